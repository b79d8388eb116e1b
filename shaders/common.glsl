// Shared by every vksort kernel: extensions, buffer references, the push
// constants and a workgroup-wide exclusive scan over the 256 digits.
//
// The includer defines the specialization constants WG_SIZE and SG_SIZE
// (workgroup size and the subgroup size the pipeline was created with)
// before including this file.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#pragma use_vulkan_memory_model

#define VKSORT_GLSL 1
#include "push.h"

layout(push_constant, std430) uniform PushBlock { VksortPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U64Buf { uint64_t v[]; };

const uint NUM_SUBGROUPS = WG_SIZE / SG_SIZE;

U32Buf tempU32() { return U32Buf(pc.temp); }
U64Buf ringBuf() { return U64Buf(pc.temp + VKSORT_TEMP_RING_OFFSET); }
U32Buf counters() { return U32Buf(pc.temp + VKSORT_TEMP_COUNTERS_OFFSET); }

uint digitOf(uint key, uint pass) { return (key >> (pass * VKSORT_RADIX_BITS)) & (VKSORT_RADIX - 1u); }

// Workgroup barrier that also orders buffer accesses, so that a happens-before
// chain through one invocation's atomics (tail iterator, done counter)
// covers the whole workgroup.
void barrierAll() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                 gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
}

// ---------------------------------------------------------------------------
// Exclusive scan of sScan[0..255] in place, by the whole workgroup.
// Works for any WG_SIZE (a multiple of SG_SIZE) and any SG_SIZE from 4 to 128:
// each invocation owns DPT consecutive digits, subgroups scan their owners'
// sums, and the subgroup totals are scanned by one subgroup (or serially when
// there are more totals than lanes).
// ---------------------------------------------------------------------------
shared uint sScan[VKSORT_RADIX];
shared uint sScanTotals[NUM_SUBGROUPS];

const uint SCAN_DPT = (VKSORT_RADIX + WG_SIZE - 1) / WG_SIZE;

void scan256Exclusive() {
  const uint first = gl_LocalInvocationIndex * SCAN_DPT;
  uint sum = 0;
  if (first < VKSORT_RADIX)
    for (uint j = 0; j < SCAN_DPT; ++j) sum += sScan[first + j];
  const uint excl = subgroupExclusiveAdd(sum);
  if (gl_SubgroupInvocationID == SG_SIZE - 1) sScanTotals[gl_SubgroupID] = excl + sum;
  barrier();
  if (NUM_SUBGROUPS <= SG_SIZE) {
    if (gl_SubgroupID == 0) {
      const uint lane = gl_SubgroupInvocationID;
      const uint t = lane < NUM_SUBGROUPS ? sScanTotals[lane] : 0u;
      const uint e = subgroupExclusiveAdd(t);
      if (lane < NUM_SUBGROUPS) sScanTotals[lane] = e;
    }
  } else if (gl_LocalInvocationIndex == 0) {
    uint run = 0;
    for (uint s = 0; s < NUM_SUBGROUPS; ++s) {
      const uint t = sScanTotals[s];
      sScanTotals[s] = run;
      run += t;
    }
  }
  barrier();
  uint base = sScanTotals[gl_SubgroupID] + excl;
  if (first < VKSORT_RADIX)
    for (uint j = 0; j < SCAN_DPT; ++j) {
      const uint v = sScan[first + j];
      sScan[first + j] = base;
      base += v;
    }
  barrier();
}

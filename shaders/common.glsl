// Shared by every vksort kernel: extensions, buffer references, the push
// constants, key loading and mapping, and workgroup-wide exclusive scans.
//
// The includer defines the specialization constants WG_SIZE and SG_SIZE
// (workgroup size and the subgroup size the pipeline was created with),
// KEY_WORDS (1 or 2: 32- or 64-bit keys), KEY_KIND (VKSORT_KEY_KIND_UNSIGNED,
// _SIGNED or _FLOAT) and RADIX_BITS (the digit width: VKSORT_RADIX_BITS for
// Onesweep, 1, 2, 4 or 8 for the portable kernels) before including this file.
//
// VKSORT_ONESWEEP_FEATURES: the kernel may use what Onesweep needs of the
// device: 64-bit integers and atomics (the status ring) and the Vulkan memory
// model (waits on other workgroups). histogram.comp and onesweep.comp always
// do, and bitonic.comp is also built with it for Onesweep's sorters.
// Without it a kernel reaches buffers through two-word addresses and needs
// none of them, so that the portable algorithm runs on devices without
// shaderInt64, shaderBufferInt64Atomics or vulkanMemoryModel. (With it,
// addresses are 64-bit integers: the NVIDIA compiler makes faster code of
// those than of two-word addresses.)
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#ifdef VKSORT_ONESWEEP_FEATURES
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#pragma use_vulkan_memory_model
#endif
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

#define VKSORT_GLSL 1
#include "push.h"

layout(push_constant, std430) uniform PushBlock { VksortPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U32x2Buf { uvec2 v[]; };
#ifdef VKSORT_ONESWEEP_FEATURES
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U64Buf { uint64_t v[]; };
#endif
// Data that other workgroups of the same dispatch write and read, ordered by
// atomics with release and acquire semantics (onesweep.comp's CHAINED passes).
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer U32BufCoherent { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) coherent buffer U32x2BufCoherent { uvec2 v[]; };

const uint NUM_SUBGROUPS = WG_SIZE / SG_SIZE;
const uint RADIX = 1u << RADIX_BITS;  // digits per pass

// A device address (push.h's two words, x low) as the kernel uses it, and
// that address plus a byte offset (given as two words, or one).
#ifdef VKSORT_ONESWEEP_FEATURES
#define Address uint64_t
Address address(uvec2 words) { return packUint2x32(words); }
Address addressAdd(Address a, uvec2 bytes) { return a + packUint2x32(bytes); }
Address addressAdd(Address a, uint bytes) { return a + bytes; }
#else
#define Address uvec2
Address address(uvec2 words) { return words; }
Address addressAdd(Address a, uvec2 bytes) {
  uint carry;
  const uint low = uaddCarry(a.x, bytes.x, carry);
  return uvec2(low, a.y + bytes.y + carry);
}
Address addressAdd(Address a, uint bytes) { return addressAdd(a, uvec2(bytes, 0u)); }
#endif

U32Buf tempU32() { return U32Buf(address(pc.temp)); }
U32Buf counters() { return U32Buf(addressAdd(address(pc.temp), VKSORT_TEMP_COUNTERS_OFFSET)); }
#ifdef VKSORT_ONESWEEP_FEATURES
U64Buf ringBuf() { return U64Buf(addressAdd(address(pc.temp), VKSORT_TEMP_RING_OFFSET)); }
#endif

// The number of keys this sort sorts: the indirect count, clamped to
// pc.count, when the caller gave one.
uint sortCount() {
  if (pc.countAddress == uvec2(0u)) return pc.count;
  return min(U32Buf(address(pc.countAddress)).v[0], pc.count);
}

// ---------------------------------------------------------------------------
// Keys. A key lives in a uvec2 (x = low word, y = high word, unused for 32-bit
// keys). Kernels sort "sort bits": an unsigned pattern whose ascending order
// is the requested order. The first pass maps keys to sort bits as
// it loads them, the passes in between move sort bits, and the last pass maps
// them back as it stores them. Each mapping is an XOR chosen by the top bit:
//   signed:   flip the sign bit;
//   float:    negative (sign set): flip every bit; else flip the sign bit. This
//             is IEEE-754 totalOrder: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN;
//   descending: then flip every bit, which reverses the order and keeps equal
//             keys equal, so the sort stays stable.
// The dispatcher folds these into pc.loadXor and pc.storeXor per pass.
// ---------------------------------------------------------------------------
bool keyTopBit(uvec2 k) { return ((KEY_WORDS == 1 ? k.x : k.y) & 0x80000000u) != 0u; }

uvec2 toSortBits(uvec2 k) {
  if (KEY_KIND == VKSORT_KEY_KIND_FLOAT && keyTopBit(k)) return k ^ uvec2(pc.loadXor[0], pc.loadXor[1]);
  return k ^ uvec2(pc.loadXor[2], pc.loadXor[3]);
}

uvec2 fromSortBits(uvec2 k) {
  if (KEY_KIND == VKSORT_KEY_KIND_FLOAT && keyTopBit(k)) return k ^ uvec2(pc.storeXor[0], pc.storeXor[1]);
  return k ^ uvec2(pc.storeXor[2], pc.storeXor[3]);
}

uvec2 loadKeyWords(Address base, uint i) {
  if (KEY_WORDS == 1) return uvec2(U32Buf(base).v[i], 0u);
  return U32x2Buf(base).v[i];
}

void storeKeyWords(Address base, uint i, uvec2 k) {
  if (KEY_WORDS == 1)
    U32Buf(base).v[i] = k.x;
  else
    U32x2Buf(base).v[i] = k;
}

// The digit of pass `pass`: bits [beginBit + R pass, min(that + R, endBit)),
// R = RADIX_BITS.
uint digitOf(uvec2 k, uint pass) {
  const uint shift = pc.beginBit + pass * RADIX_BITS;
  const uint width = min(uint(RADIX_BITS), pc.endBit - shift);
  uint bits;
  if (KEY_WORDS == 1 || shift == 0u)
    bits = k.x >> shift;
  else if (shift < 32u)
    bits = (k.x >> shift) | (k.y << (32u - shift));
  else
    bits = k.y >> (shift - 32u);
  return bits & ((1u << width) - 1u);
}

// Workgroup barrier that also orders buffer accesses: so that a
// happens-before chain through one invocation's atomics (the histogram's done
// counter) covers the whole workgroup, so that one pass of the one-workgroup
// path sees the last one's writes when they go through the buffers, and so
// that a tile's inclusive prefixes, stored by the look-back's lanes, come
// after its counts in the same entries, stored by other invocations.
void barrierAll() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                 gl_StorageSemanticsShared | gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
}

// ---------------------------------------------------------------------------
// The one invocation order the kernels assume: subgroup order,
// gl_SubgroupID * SG_SIZE + gl_SubgroupInvocationID. Vulkan promises no
// relation between it and gl_LocalInvocationIndex, but with full subgroups of
// SG_SIZE lanes it numbers the workgroup's invocations 0 .. WG_SIZE - 1. Data
// that a subgroup operation orders (scans, ballots, shuffles) is handed out
// by it; gl_LocalInvocationIndex is used only where any one-to-one numbering
// does (coalesced loads, clearing shared memory, the sorted tile's output).
// ---------------------------------------------------------------------------
uint subgroupOrderIndex() { return gl_SubgroupID * SG_SIZE + gl_SubgroupInvocationID; }

// ---------------------------------------------------------------------------
// Workgroup-wide exclusive scans. Both work for any WG_SIZE (a multiple of
// SG_SIZE) and any SG_SIZE from 4 to 128: subgroups scan their invocations'
// values, and the subgroup totals are scanned by one subgroup (or serially
// when there are more totals than lanes).
// ---------------------------------------------------------------------------
shared uint sScan[RADIX];
shared uint sScanTotals[NUM_SUBGROUPS + 1];  // per subgroup, then the workgroup's total

// The exclusive prefix sum of v over the workgroup's invocations, in
// subgroup order (subgroupOrderIndex). Called by the whole workgroup; the total is in
// sScanTotals[NUM_SUBGROUPS] on return, and stays there until the caller's
// next barrier, which must come before the next call.
uint workgroupExclusiveAdd(uint v) {
  const uint excl = subgroupExclusiveAdd(v);
  if (gl_SubgroupInvocationID == SG_SIZE - 1) sScanTotals[gl_SubgroupID] = excl + v;
  barrier();
  if (NUM_SUBGROUPS <= SG_SIZE) {
    if (gl_SubgroupID == 0) {
      const uint lane = gl_SubgroupInvocationID;
      const uint t = lane < NUM_SUBGROUPS ? sScanTotals[lane] : 0u;
      const uint e = subgroupExclusiveAdd(t);
      if (lane < NUM_SUBGROUPS) sScanTotals[lane] = e;
      if (lane == NUM_SUBGROUPS - 1) sScanTotals[NUM_SUBGROUPS] = e + t;
    }
  } else if (gl_LocalInvocationIndex == 0) {
    uint run = 0;
    for (uint s = 0; s < NUM_SUBGROUPS; ++s) {
      const uint t = sScanTotals[s];
      sScanTotals[s] = run;
      run += t;
    }
    sScanTotals[NUM_SUBGROUPS] = run;
  }
  barrier();
  return sScanTotals[gl_SubgroupID] + excl;
}

// Exclusive scan of sScan[0..RADIX) in place, by the whole workgroup: each
// invocation owns SCAN_DPT consecutive digits, from scanFirstDigit(), in
// subgroup order, the order of workgroupExclusiveAdd's prefixes. The
// last owner may have fewer (when WG_SIZE is not a power of two, e.g. 96 =
// 3 x 32 owns 3 each). The NoBarrier form ends before the closing barrier:
// then only each owner may read its own digits' results.
const uint SCAN_DPT = (RADIX + WG_SIZE - 1) / WG_SIZE;

uint scanFirstDigit() { return subgroupOrderIndex() * SCAN_DPT; }

void scanDigitsExclusiveNoBarrier() {
  const uint first = scanFirstDigit();
  uint sum = 0;
  for (uint j = 0; j < SCAN_DPT; ++j)
    if (first + j < RADIX) sum += sScan[first + j];
  uint base = workgroupExclusiveAdd(sum);
  for (uint j = 0; j < SCAN_DPT; ++j)
    if (first + j < RADIX) {
      const uint v = sScan[first + j];
      sScan[first + j] = base;
      base += v;
    }
}

void scanDigitsExclusive() {
  scanDigitsExclusiveNoBarrier();
  barrier();
}

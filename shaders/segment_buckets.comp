// vksort segmented sorts, beside Onesweep's third pass: lists the buckets of
// the large segments that split on their top two digits (histogram.comp
// decides), once pass 1 has sorted them by those digits.
//
// One workgroup per top digit of each such segment (VKSORT_RADIX per slot of
// the two-digit buckets' area, the decision's command). A bucket holds the
// keys of one value of the digit below the top one in the top digit's run,
// which pass 1 left sorted by it: each invocation finds where its digits
// begin with a binary search rather than the workgroup reading the run.
// The starts are made non-decreasing (a running maximum), so that the
// buckets tile the run whatever the keys, even where overlapping segments
// (bad offsets) changed them. The workgroup lists its buckets in their size
// classes, for the class kernels that follow the last pass, with one atomic
// add and one grid update per class.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 256;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;
layout(constant_id = VKSORT_SC_RING_SLOTS) const uint SEGMENT_RING_SLOTS = 768;  // the segments' area follows the ring
#define RADIX_BITS VKSORT_RADIX_BITS  // always 8-bit digits (push.h)
#include "common.glsl"
#define TABLE_RADIX_BITS RADIX_BITS
#include "segments.glsl"
#include "segment_list.glsl"

const uint PER_INVOCATION = VKSORT_RADIX / WG_SIZE;  // digits per invocation: 1 or 2 (WG_SIZE >= 128)
// Per subgroup: its greatest start; its buckets per class (then the
// workgroup's before it). Per digit: its bucket's start. Per class: the
// workgroup's first slot.
shared uint sSubgroupMax[NUM_SUBGROUPS];
shared uint sClassCount[SEGMENT_CLASSES * NUM_SUBGROUPS];
shared uint sStart[VKSORT_RADIX];
shared uint sClassFirst[SEGMENT_CLASSES];

uint belowDigit(uint i) { return digitOf(toSortBits(loadKeyWords(address(pc.keysIn), i)), pc.passes - 2u); }

void main() {
  const uint tid = subgroupOrderIndex();  // lanes in order: the digits too
  const uint group = segmentGridIndex();
  U32Buf header = U32Buf(splitTwoArea());
  const uint slot = group / VKSORT_RADIX, top = group % VKSORT_RADIX;
  if (slot >= min(header.v[VKSORT_SEG_SPLIT_COUNT], splitTwoCapacity())) return;  // uniform
  const uvec2 entry = splitTwoSlots().v[slot];  // (the segment's number among the large ones, its end)
  U32Buf hist = segmentHistogram(entry.x);
  const uint lo = hist.v[VKSORT_RADIX + top];
  const uint hi = max(lo, top + 1u < VKSORT_RADIX ? hist.v[VKSORT_RADIX + top + 1u] : entry.y);

  // Each digit's first key in [lo, hi), non-decreasing.
  uint start[2];
  uint greatest = lo;
  [[unroll]] for (uint j = 0; j < 2u; ++j) {
    if (j >= PER_INVOCATION) continue;
    const uint digit = tid * PER_INVOCATION + j;
    uint a = lo, b = hi;
    while (a < b) {
      const uint m = (a + b) / 2u;
      if (belowDigit(m) < digit)
        a = m + 1u;
      else
        b = m;
    }
    greatest = max(greatest, a);
    start[j] = greatest;
  }
  const uint inclusive = subgroupInclusiveMax(greatest);
  const uint lane = gl_SubgroupInvocationID;
  const uint earlierLanes = subgroupShuffle(inclusive, lane == 0u ? 0u : lane - 1u);
  if (lane + 1u == SG_SIZE) sSubgroupMax[gl_SubgroupID] = inclusive;
  barrier();
  uint earlier = lane == 0u ? lo : earlierLanes;
  for (uint s = 0; s < NUM_SUBGROUPS; ++s) {  // uniform
    const uint m = sSubgroupMax[s];
    if (s < gl_SubgroupID) earlier = max(earlier, m);
  }
  [[unroll]] for (uint j = 0; j < 2u; ++j)
    if (j < PER_INVOCATION) sStart[tid * PER_INVOCATION + j] = max(start[j], earlier);
  barrier();

  // The buckets: per class, this invocation's, its place among its
  // subgroup's, and the subgroup's count.
  uint begin[2], end[2], bucketClass[2];
  uint count[SEGMENT_CLASSES];
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c) count[c] = 0u;
  [[unroll]] for (uint j = 0; j < 2u; ++j) {
    const uint digit = tid * PER_INVOCATION + j;
    begin[j] = j < PER_INVOCATION ? sStart[digit] : 0u;
    end[j] = j < PER_INVOCATION ? (digit + 1u < VKSORT_RADIX ? sStart[digit + 1u] : hi) : 0u;
    bucketClass[j] = segmentClassOf(end[j] - begin[j], ~0u);
    [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c)
      if (bucketClass[j] == c) ++count[c];
  }
  uint slots[SEGMENT_CLASSES];
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c) {
    slots[c] = subgroupExclusiveAdd(count[c]);
    const uint total = subgroupAdd(count[c]);
    if (subgroupElect()) sClassCount[c * NUM_SUBGROUPS + gl_SubgroupID] = total;
  }
  barrier();
  // The subgroups before this one, and the workgroup's total, per class:
  // invocation c takes class c's slots.
  U32x2Buf list = U32x2Buf(addressAdd(splitTwoArea(), uint(VKSORT_SEG_HEADER_BYTES)));
  const uint capacity = VKSORT_RADIX * VKSORT_RADIX * splitTwoCapacity();
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c) {
    uint before = 0u, total = 0u;
    for (uint s = 0; s < NUM_SUBGROUPS; ++s) {  // uniform
      const uint t = sClassCount[c * NUM_SUBGROUPS + s];
      before += s < gl_SubgroupID ? t : 0u;
      total += t;
    }
    slots[c] += before;
    if (tid == c && total != 0u) {
      const uint first = atomicAdd(header.v[segmentClassCount(c)], total);
      growGrid(header, CLASS_COMMANDS[c], (first + total + classPerGroup(c) - 1u) / classPerGroup(c));
      sClassFirst[c] = first;
    }
  }
  barrier();
  [[unroll]] for (uint j = 0; j < 2u; ++j) {
    uint s = 0u;
    [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c)
      if (bucketClass[j] == c) s = sClassFirst[c] + slots[c]++;
    if (bucketClass[j] != ~0u) list.v[listIndex(bucketClass[j], s, capacity)] = uvec2(begin[j], end[j]);
  }
}

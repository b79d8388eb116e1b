// vksort segmented sorts, first dispatch: bins the segments by size.
//
// One invocation per segment reads its CSR offsets, clamps them to the keys
// range (past pc.count: clamped; an end below its begin: empty), and puts
// the segment in its size class:
//  - micro (1 to MICRO_MAX keys), tiny (up to TINY_MAX), half-subgroup (up
//    to HALF_MAX), subgroup (up to SUBGROUP_MAX) and small (up to
//    SMALL_MAX): its (begin, end) goes to the class's segment list
//    (segments.glsl), for the bitonic kernels that sort one per invocation,
//    per few lanes, per half subgroup, per subgroup or per workgroup;
//  - medium (up to MEDIUM_MAX; Onesweep sorters): to the small class's
//    list, where the bitonic kernel leaves it to onesweep.comp's medium
//    kernel, whose workgroup runs every pass over the segment itself;
//  - large: it takes ceil(keys / tileKeys) consecutive tiles of the large
//    segments' radix passes and a number among the large segments, and
//    writes each tile's (first tile, begin, end, number). Tiles are handed
//    out never past the capacity (pc.numTiles): segments that do not fit
//    (only possible when segments overlap) stay unsorted.
// Empty segments go nowhere. Each class's indirect dispatch command grows
// with atomicMax as segments arrive, so no workgroup waits for another and
// no last workgroup has to finish the job: after the barrier that follows,
// the commands hold every class's grid (rows of VKSORT_SEG_GRID_X
// workgroups). The counters and commands start at zero (vkCmdFillBuffer):
// a class with no segments dispatches nothing.
//
// Subgroups aggregate their atomics: one per class per subgroup, the
// classes' all at once (segment_list.glsl).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 256;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_RADIX_BITS) const uint RADIX_BITS = 8;  // the tile table's digit width
// common.glsl's key helpers need these; the bins kernel reads no keys.
const uint KEY_WORDS = 1;
const uint KEY_KIND = 0;
// Onesweep's sorters: its ring's slots (the segments' area follows the ring);
// 0 for the portable algorithm's (segments.glsl).
layout(constant_id = VKSORT_SC_RING_SLOTS) const uint SEGMENT_RING_SLOTS = 0;
#include "common.glsl"
#define TABLE_RADIX_BITS RADIX_BITS
#include "segments.glsl"
#include "segment_list.glsl"

void main() {
  const uint s = segmentGridIndex() * WG_SIZE + gl_LocalInvocationIndex;
  uint live = pc.segmentCount;
  if (pc.countAddress != uvec2(0u)) live = min(U32Buf(address(pc.countAddress)).v[0], live);
  uint begin = 0u, end = 0u;
  if (s < live) {
    U32Buf offsets = U32Buf(address(pc.keysIn));
    begin = min(offsets.v[s], pc.count);
    end = max(begin, min(offsets.v[s + 1u], pc.count));
  }
  const uint size = end - begin;
  // The two-digit buckets' header starts at zero, before the segment
  // histogram kernel counts in it (a fill of its own costs more).
  if ((pc.flags & VKSORT_FLAG_SPLIT_TWO) != 0u && segmentGridIndex() == 0u)
    for (uint w = gl_LocalInvocationIndex; w < VKSORT_SEG_HEADER_BYTES / 4u; w += WG_SIZE)
      U32Buf(splitTwoArea()).v[w] = 0u;
  U32Buf header = segmentHeader();
  listSegment(header, segmentList(), pc.segmentCount, MEDIUM_MAX, begin, end);

  // Large: consecutive tiles, handed out per subgroup, never past the
  // capacity. Onesweep's sorters count them with one 64-bit add: every
  // subgroup's tiles together (fewer than 2^32 segments of fewer than 2^23
  // tiles) cannot wrap it. Without 64-bit atomics (the portable algorithm's
  // devices), a compare-and-swap loop never passes the capacity, so the
  // 32-bit counter cannot wrap either; it costs more where many subgroups
  // have large segments (docs/tuning.md).
  const uint tiles = size > MEDIUM_MAX ? (size + pc.tileKeys - 1u) / pc.tileKeys : 0u;
  const uint total = subgroupAdd(tiles);
  if (total == 0u) return;  // uniform
  const uint before = subgroupExclusiveAdd(tiles);
  uint first = ~0u;
  if (subgroupElect()) {
#ifdef VKSORT_ONESWEEP_FEATURES
    const uint64_t taken =
        atomicAdd(U64Buf(addressAdd(segmentArea(), 4u * VKSORT_SEG_TILES_TAKEN)).v[0], uint64_t(total));
    if (taken + total <= pc.numTiles) first = uint(taken);
#else
    uint taken = atomicAdd(header.v[VKSORT_SEG_TILES_TAKEN], 0u);
    while (total <= pc.numTiles && taken <= pc.numTiles - total) {
      const uint seen = atomicCompSwap(header.v[VKSORT_SEG_TILES_TAKEN], taken, taken + total);
      if (seen == taken) {
        first = taken;
        break;
      }
      taken = seen;
    }
#endif
    if (first != ~0u) {
      atomicMax(header.v[VKSORT_SEG_TILES], first + total);
      growGrid(header, VKSORT_SEG_TILES_DISPATCH, first + total);
      const uint entries = (first + total) << RADIX_BITS;
      growGrid(header, VKSORT_SEG_BLOCKS_DISPATCH,
               (entries + VKSORT_PORTABLE_SCAN_BLOCK - 1u) / VKSORT_PORTABLE_SCAN_BLOCK);
    }
  }
  first = subgroupBroadcastFirst(first);
  if (first == ~0u) return;  // uniform
  // The segment's number among the large ones (Onesweep: its histograms).
  uint largeEnd;
  const uint large = takeSlots(header, VKSORT_SEG_LARGE_COUNT, tiles != 0u ? 1u : 0u, largeEnd);
  // Each tile's entry. A segment of up to a subgroup's size of tiles is
  // written by its own invocation; larger ones by the whole subgroup, one
  // after another (the one with the lowest first tile), as one invocation
  // alone would store a 4 M-key segment's 512 entries one by one.
  U32x4Buf tileInfo = segmentTiles();
  const uint mine = first + before;
  const uvec4 entry = uvec4(mine, begin, end, large);
  const bool alone = tiles <= gl_SubgroupSize;
  if (alone)
    for (uint t = 0; t < tiles; ++t) tileInfo.v[mine + t] = entry;
  bool pending = !alone;
  for (;;) {
    const uint at = subgroupMin(pending ? mine : ~0u);
    if (at == ~0u) break;  // uniform
    const bool owner = pending && mine == at;  // tile ranges do not overlap: one invocation
    const uvec4 e = uvec4(at, subgroupMin(owner ? begin : ~0u), subgroupMin(owner ? end : ~0u),
                          subgroupMin(owner ? large : ~0u));
    const uint n = subgroupMin(owner ? tiles : ~0u);
    for (uint t = gl_SubgroupInvocationID; t < n; t += gl_SubgroupSize) tileInfo.v[at + t] = e;
    pending = pending && !owner;
  }
}

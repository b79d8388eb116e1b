// vksort histogram kernel: reads every key once and builds the digit
// histograms of all passes at the same time (Adinets and Merrill, "Onesweep:
// A Faster Least Significant Digit Radix Sort for GPUs").
//
// Persistent workgroups: the dispatcher launches only as many workgroups as
// keep the device busy, and each walks the keys with a grid stride, so the
// number of global atomics is (workgroups x passes x 256), not N. The last
// workgroup to finish (found with a done counter) turns each histogram into
// its exclusive scan: the start of every digit in the sorted output.
//
// It also clears the status-ring slots the reorder passes will use, so that
// entries left by an earlier sort can never be mistaken for this one's.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 256;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;
layout(constant_id = VKSORT_SC_RING_SLOTS) const uint RING_SLOTS = 768;  // segmented sorts
#define RADIX_BITS VKSORT_RADIX_BITS  // always 8-bit digits (push.h)
#define VKSORT_ONESWEEP_FEATURES 1
#include "common.glsl"
#include "live_route.glsl"
// Built with VKSORT_SEGMENT_TILES for the large segments of a segmented sort
// (countSegmentTile below).
#ifdef VKSORT_SEGMENT_TILES
const bool SEGMENT_TILES = true;
#else
const bool SEGMENT_TILES = false;
#endif
#define SEGMENT_RING_SLOTS RING_SLOTS
#define TABLE_RADIX_BITS RADIX_BITS
#include "segments.glsl"
#include "segment_list.glsl"

const uint KEYS_PER_TURN = 8;

shared uint sHist[VKSORT_MAX_PASSES * VKSORT_RADIX];
shared bool sLast;
// The segmented form: the segment's largest buckets of its top digit and of
// the digit below it; how it is split (0: not, or 1 or 2 digits).
shared uint sBiggest, sBiggestBelow, sSplitDigits, sSplitSlot;

// The last workgroup's work: each pass's counts (hist) become the position
// of each digit's first key, base plus the exclusive scan; sScan ends with
// the top pass's scan. Every pass's counts of a digit are loaded before any
// is stored, so that their loads are in flight together: one round trip to
// memory, not one per pass.
void scanHistograms(U32Buf hist, uint base) {
  const uint tid = gl_LocalInvocationIndex;
  for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) {
    uint v[VKSORT_MAX_PASSES];
    [[unroll]] for (uint p = 0; p < VKSORT_MAX_PASSES; ++p)
      v[p] = p < pc.passes ? atomicLoad(hist.v[p * VKSORT_RADIX + d], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                                        gl_SemanticsRelaxed)
                           : 0u;
    [[unroll]] for (uint p = 0; p < VKSORT_MAX_PASSES; ++p) sHist[p * VKSORT_RADIX + d] = v[p];
  }
  barrier();
  for (uint p = 0; p < pc.passes; ++p) {
    for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) sScan[d] = sHist[p * VKSORT_RADIX + d];
    barrier();
    scanDigitsExclusive();
    for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) hist.v[p * VKSORT_RADIX + d] = base + sScan[d];
    barrier();
  }
}

// The segmented form: one workgroup per tile of the large segments (the
// reorder kernel's tiles, pc.tileKeys keys). Each clears a ring slot (all of
// them where there are more tiles than slots), counts its tile's digits of
// every pass and adds them to its segment's histograms; the last of a
// segment's tiles to finish (a done counter per segment) turns them into the
// positions of each digit's first key: the segment's begin plus the
// exclusive scan.
//
// That last workgroup also splits the segment where every bucket of its top
// digit (the keys of one digit of the last pass) holds at most
// SPLIT_BUCKET_MAX keys (the subgroup class's bound): then its tiles sort it
// by that digit alone in pass 0 (the top pass's starts go to pass 0's row,
// and its tile entries carry VKSORT_SEG_TILE_SPLIT), skip the later passes,
// and each bucket goes to the buckets' lists (segment_list.glsl), to be
// sorted as a segment of its own by the class kernels once the passes are
// done. One radix pass and a sort in registers then replace the passes
// that are left: for segments of a few thousand to a few tens of thousands
// of keys, whose top digits spread them, each key moves through memory
// twice instead of once per pass. A segment whose keys crowd into a few
// top digits keeps its passes, and gives the passes after the first their
// grid (VKSORT_SEG_LATER_DISPATCH): where every large segment is split,
// those passes have no workgroups.
//
// A segment of at least splitTwoMin() keys whose top digit's buckets are too
// large may split on its top two digits instead (VKSORT_FLAG_SPLIT_TWO):
// pass 0 sorts it by the digit below the top one, pass 1 (with its own
// grid, VKSORT_SEG_SECOND_DISPATCH) by the top one, the later passes skip
// it, and segment_buckets.comp finds its buckets (VKSORT_RADIX^2 at most)
// beside pass 2, from the slot that this kernel records.
void countSegmentTile() {
  const uint tid = gl_LocalInvocationIndex;
  const uint bins = pc.passes * VKSORT_RADIX;
  for (uint i = tid; i < bins; i += WG_SIZE) sHist[i] = 0;
  const uint tile = segmentGridIndex();
  // Both loads at once: the count of tiles, and the tile's entry (of the
  // last tile where this one is past the grid).
  const uint tiles = segmentHeader().v[VKSORT_SEG_TILES];
  const uvec4 info = segmentTiles().v[min(tile, pc.numTiles - 1u)];
  U64Buf ring = ringBuf();
  const uint ringEntries = min(tiles, RING_SLOTS) * VKSORT_RADIX;
  const uint stride = gl_NumWorkGroups.x * gl_NumWorkGroups.y * WG_SIZE;
  for (uint i = tile * WG_SIZE + tid; i < ringEntries; i += stride) ring.v[i] = 0ul;
  if (tile >= tiles) return;  // the grid's last row may overhang (uniform)
  barrier();

  const SegmentTile st = segmentTileOf(tile, pc.tileKeys, info);
  // KEYS_PER_TURN loads in flight together, as in the plain form.
  for (uint i = tid; i < st.count; i += KEYS_PER_TURN * WG_SIZE) {
    uvec2 k[KEYS_PER_TURN];
    [[unroll]] for (uint j = 0; j < KEYS_PER_TURN; ++j) {
      const uint at = i + j * WG_SIZE;
      k[j] = at < st.count ? toSortBits(loadKeyWords(address(pc.keysIn), st.start + at)) : uvec2(0u);
    }
    [[unroll]] for (uint j = 0; j < KEYS_PER_TURN; ++j) {
      if (i + j * WG_SIZE < st.count)
        for (uint p = 0; p < pc.passes; ++p) atomicAdd(sHist[p * VKSORT_RADIX + digitOf(k[j], p)], 1u);
    }
  }
  barrier();
  U32Buf hist = segmentHistogram(st.large);
  for (uint i = tid; i < bins; i += WG_SIZE) {
    const uint v = sHist[i];
    if (v != 0u) atomicAdd(hist.v[i], v, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  }
  barrierAll();
  if (tid == 0) {
    const uint done = atomicAdd(hist.v[bins], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                                gl_SemanticsAcquireRelease);
    sLast = done == st.tiles - 1u;
  }
  barrierAll();
  if (!sLast) return;
  // The tiles' dispatch command, loaded beside the counts: a segment that
  // keeps its passes copies it below.
  const bool splits = pc.passes >= 2u && SPLIT_BUCKET_MAX != 0u;
  uint tilesCommand = 0u;
  if (splits && tid < 3u) tilesCommand = segmentHeader().v[VKSORT_SEG_TILES_DISPATCH + tid];
  scanHistograms(hist, st.begin);

  // sScan holds the top pass's starts in the segment, sHist every pass's
  // counts. Split it?
  if (!splits) return;  // uniform
  const uint size = st.end - st.begin;
  if (tid == 0u) {
    sBiggest = 0u;
    sBiggestBelow = 0u;
  }
  barrier();
  uint biggest = 0u, below = 0u;
  for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) {
    biggest = max(biggest, sHist[(pc.passes - 1u) * VKSORT_RADIX + d]);
    below = max(below, sHist[(pc.passes - 2u) * VKSORT_RADIX + d]);
  }
  biggest = subgroupMax(biggest);
  below = subgroupMax(below);
  if (subgroupElect()) {
    atomicMax(sBiggest, biggest);
    atomicMax(sBiggestBelow, below);
  }
  barrier();
  // A place in the buckets' area, for as many segments as valid offsets can
  // split; more (only where segments overlap) keep their passes. A segment
  // whose top digit's buckets are too large may split on its top two
  // digits instead (VKSORT_FLAG_SPLIT_TWO), where those promise buckets of
  // half the largest on average were the two digits independent, and none
  // larger than SPLIT_TWO_BUCKET_MAX whatever the keys.
  U32Buf splitHeader = U32Buf(splitArea());
  U32Buf twoHeader = U32Buf(splitTwoArea());
  const bool two = (pc.flags & VKSORT_FLAG_SPLIT_TWO) != 0u;
  if (tid == 0u) {
    uint digits = 0u;
    uint hi, lo, sizeHi, sizeLo;
    umulExtended(sBiggest, sBiggestBelow, hi, lo);
    umulExtended(size, SPLIT_BUCKET_MAX / 2u, sizeHi, sizeLo);
    if (sBiggest <= SPLIT_BUCKET_MAX)
      digits = atomicAdd(splitHeader.v[VKSORT_SEG_SPLIT_COUNT], 1u) < splitCapacity() ? 1u : 0u;
    else if (two && size >= splitTwoMin() && min(sBiggest, sBiggestBelow) <= SPLIT_TWO_BUCKET_MAX &&
             (hi < sizeHi || (hi == sizeHi && lo <= sizeLo))) {
      const uint slot = atomicAdd(twoHeader.v[VKSORT_SEG_SPLIT_COUNT], 1u);
      if (slot < splitTwoCapacity()) {
        digits = 2u;
        splitTwoSlots().v[slot] = uvec2(st.large, st.end);
        growGrid(twoHeader, VKSORT_SEG_FIND_DISPATCH, (slot + 1u) * VKSORT_RADIX);
      }
    }
    sSplitDigits = digits;
  }
  barrier();
  if (sSplitDigits == 0u) {  // uniform
    // The segment keeps its passes, so the passes after the first run the
    // tiles' grid (the bins kernel's command): each such segment copies it.
    // Where every large segment is split, none does, and they run none.
    if (tid < 3u) {
      atomicStore(splitHeader.v[VKSORT_SEG_LATER_DISPATCH + tid], tilesCommand, gl_ScopeQueueFamily,
                  gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      if (two)
        atomicStore(twoHeader.v[VKSORT_SEG_SECOND_DISPATCH + tid], tilesCommand, gl_ScopeQueueFamily,
                    gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    }
    return;
  }
  if (sSplitDigits == 2u) {  // uniform
    // Pass 0 sorts by the digit below the top one, pass 1 by the top one
    // (their starts go to rows 0 and 1), and segment_buckets.comp lists the
    // buckets after pass 1. Each invocation reads back the row it wrote in
    // scanHistograms.
    for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) {
      hist.v[d] = hist.v[(pc.passes - 2u) * VKSORT_RADIX + d];
      hist.v[VKSORT_RADIX + d] = st.begin + sScan[d];
    }
    for (uint t = tid; t < st.tiles; t += WG_SIZE)
      segmentTiles().v[st.first + t].w = st.large | VKSORT_SEG_TILE_SPLIT_TWO;
    if (tid < 3u)
      atomicStore(twoHeader.v[VKSORT_SEG_SECOND_DISPATCH + tid], tilesCommand, gl_ScopeQueueFamily,
                  gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    return;
  }
  for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) hist.v[d] = st.begin + sScan[d];
  for (uint t = tid; t < st.tiles; t += WG_SIZE) segmentTiles().v[st.first + t].w = st.large | VKSORT_SEG_TILE_SPLIT;
  U32x2Buf splitList = U32x2Buf(addressAdd(splitArea(), uint(VKSORT_SEG_HEADER_BYTES)));
  for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE) {  // the same turns in every invocation
    const uint d = base + tid;
    uint begin = 0u, end = 0u;
    if (d < VKSORT_RADIX) {
      begin = st.begin + sScan[d];
      end = st.begin + (d + 1u < VKSORT_RADIX ? sScan[d + 1u] : size);
    }
    listSegment(splitHeader, splitList, VKSORT_RADIX * splitCapacity(), MEDIUM_MAX, begin, end);
  }
}

void main() {
  if (SEGMENT_TILES) {
    countSegmentTile();
    return;
  }
  // With an indirect count it counts only for a tile shape's passes that
  // have a dispatch each (live_route.glsl; uniform): the other routes count
  // their own digits. Its first workgroup writes those passes' dispatch
  // commands: the live count's tiles in its route's shape, none in the
  // others'.
  const uint count = sortCount();
  if ((pc.flags & VKSORT_FLAG_LIVE_ROUTE) != 0u) {
    const uint route = liveRoute(count);
    const uint i = gl_LocalInvocationIndex;
    if (gl_WorkGroupID.x == 0u && i < 3u * 3u) {
      const uint r = VKSORT_ROUTE_MIDSIZE_HALF + i / 3u, word = i % 3u;
      const uint tiles = r == route && routePerPass(r) ? (count + routeTileKeys(r) - 1u) / routeTileKeys(r) : 0u;
      counters().v[VKSORT_CTR_PASSES_DISPATCH(r) + word] = word == 0u ? tiles : 1u;
    }
    if (route < VKSORT_ROUTE_MIDSIZE_HALF || !routePerPass(route)) return;
  }
  const uint tid = gl_LocalInvocationIndex;
  const uint bins = pc.passes * VKSORT_RADIX;
  for (uint i = tid; i < bins; i += WG_SIZE) sHist[i] = 0;

  U64Buf ring = ringBuf();
  const uint ringEntries = pc.ringClear * VKSORT_RADIX;
  const uint stride = gl_NumWorkGroups.x * WG_SIZE;
  for (uint i = gl_WorkGroupID.x * WG_SIZE + tid; i < ringEntries; i += stride) ring.v[i] = 0ul;
  barrier();

  // KEYS_PER_TURN keys a stride apart per turn, so that their loads are in
  // flight together; with one key per turn each load waits for the one
  // before.
  for (uint i = gl_WorkGroupID.x * WG_SIZE + tid; i < count; i += KEYS_PER_TURN * stride) {
    uvec2 k[KEYS_PER_TURN];
    [[unroll]] for (uint j = 0; j < KEYS_PER_TURN; ++j) {
      const uint at = i + j * stride;
      k[j] = at < count ? toSortBits(loadKeyWords(address(pc.keysIn), at)) : uvec2(0u);
    }
    [[unroll]] for (uint j = 0; j < KEYS_PER_TURN; ++j) {
      if (i + j * stride < count)
        for (uint p = 0; p < pc.passes; ++p) atomicAdd(sHist[p * VKSORT_RADIX + digitOf(k[j], p)], 1u);
    }
  }
  barrier();

  U32Buf hist = tempU32();
  for (uint i = tid; i < bins; i += WG_SIZE) {
    const uint v = sHist[i];
    if (v != 0u) atomicAdd(hist.v[i], v, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  }
  barrierAll();
  if (tid == 0) {
    const uint done = atomicAdd(counters().v[VKSORT_CTR_HIST_DONE], 1u, gl_ScopeQueueFamily,
                                gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    sLast = done == gl_NumWorkGroups.x - 1u;
  }
  barrierAll();
  if (!sLast) return;
  scanHistograms(hist, 0u);
}

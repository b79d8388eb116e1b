// vksort reorder kernel: one dispatch per 8-bit digit pass, or one for all
// of them (CHAINED) (Adinets and Merrill, "Onesweep: A Faster Least
// Significant Digit Radix Sort for GPUs").
//
// A workgroup sorts one tile of WG_SIZE * KEYS_PER_THREAD keys (and their
// values, if any):
//  1. takes its tile number from an atomic counter (never gl_WorkGroupID:
//     launch order is not promised, and a tile only waits on lower tiles),
//     (CHAINED: its work item, a pass and a tile, and waits until the pass
//     before is done), and, once its key loads are issued, waits until its
//     status-ring slot is free;
//  2. ranks its keys within each subgroup by ballots on the digit bits
//     (warp-level multisplit), keeping one digit histogram per subgroup so
//     the rank is stable without ordering atomics between subgroups
//     (steps 2, 4 and 6 are tile_sort.glsl, shared with the portable path);
//  3. publishes its per-digit counts, then scans them into local digit starts;
//  4. sorts the tile locally in shared memory;
//  5. looks back over the ring for each digit's global position (with a
//     fallback that counts a missing tile's digits itself, so no look-back
//     wait is unbounded: see status_ring.glsl);
//  6. writes the locally sorted keys out: neighbouring invocations write
//     neighbouring addresses within a digit, so the scatter is coalesced.
//     Values follow through the same shared memory with the same ranks.
//
// Key types, values, order and bit range are specialization constants and
// push constants of this one shader (see common.glsl for the key mapping).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 512;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEYS_PER_THREAD) const uint KEYS_PER_THREAD = 15;
layout(constant_id = VKSORT_SC_RING_SLOTS) const uint RING_SLOTS = 768;
layout(constant_id = VKSORT_SC_LOOKBACK) const uint LOOKBACK = 32;
layout(constant_id = VKSORT_SC_TAIL_BITS) const uint TAIL_BITS = 5;
layout(constant_id = VKSORT_SC_STATUS_RMW) const bool STATUS_RMW = false;
// Polling rounds an invocation may spend waiting per dispatch (status_ring.glsl).
layout(constant_id = VKSORT_SC_SPIN_BUDGET) const uint SPIN_BUDGET = 16384;
// Fault injection for tests: largest extra delay before a tile publishes.
layout(constant_id = VKSORT_SC_PUBLISH_DELAY) const uint PUBLISH_DELAY = 0;
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;    // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;    // VKSORT_KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = VKSORT_SC_VALUE_WORDS) const uint VALUE_WORDS = 0; // 0: keys only, 1: 32-bit values, 2: 64-bit values
layout(constant_id = VKSORT_SC_VALUE_INDEX) const bool VALUE_INDEX = false;  // argsort: pass 0 makes value = input index
// The one-workgroup paths: one workgroup sorts all keys (count <= one tile), every
// pass in one dispatch, with a workgroup barrier between passes. No
// histogram kernel, no status ring.
layout(constant_id = VKSORT_SC_ONE_WORKGROUP) const bool ONE_WORKGROUP = false;
// Invocations that walk one digit's look-back together (status_ring.glsl):
// a power of two, at most 8 and SG_SIZE.
layout(constant_id = VKSORT_SC_LOOKBACK_LANES) const uint LOOKBACK_LANES = 1;
// ONE_WORKGROUP only: the tile's keys and values stay in shared memory between
// passes and only the last pass writes a buffer (the one the pass count
// picks: keys or alt). The dispatcher sets it where keys and values fit in
// shared memory together; otherwise the passes hand the tile over through
// the caller's buffers, ping-ponging between keys and alt.
layout(constant_id = VKSORT_SC_TILE_IN_SHARED) const bool TILE_IN_SHARED = false;
const bool SHARED_PASSES = ONE_WORKGROUP && TILE_IN_SHARED;
// 64-bit keys and values go through shared memory one word at a time, so
// that they can have tiles as large as 32-bit ones (tile_sort.glsl); the
// dispatcher sets it only where both words would not fit. Not with
// SHARED_PASSES.
layout(constant_id = VKSORT_SC_ONE_WORD_STAGING) const bool ONE_WORD_STAGING = false;
// The sorted tile goes through shared memory in this many rounds, so that
// only a part of it is there at once (tile_sort.glsl). Not with
// SHARED_PASSES.
layout(constant_id = VKSORT_SC_STAGING_ROUNDS) const uint STAGING_ROUNDS = 1;
// Tests only: rank with the uvec4 ballot at every subgroup size (tile_sort.glsl).
layout(constant_id = VKSORT_SC_WIDE_BALLOT) const bool WIDE_BALLOT = false;
// Every pass in one dispatch (not with ONE_WORKGROUP): the work items are
// (pass, tile), taken in that order from one counter, and each workgroup of
// a grid of one pass's tiles takes up to `passes` of them, one after the
// other. An item of pass p > 0 waits until every tile of pass p - 1 has
// retired (waitForPass). Every item it waits on was taken earlier, by a
// workgroup that is running, so this needs no more of the device than the
// look-back's waits: that running workgroups make progress.
layout(constant_id = VKSORT_SC_CHAINED) const bool CHAINED = false;
#define RADIX_BITS VKSORT_RADIX_BITS  // always 8-bit digits (push.h)
#define VKSORT_ONESWEEP_FEATURES 1
#include "common.glsl"
#include "live_route.glsl"
// Built with VKSORT_SEGMENT_TILES for the large segments of a segmented sort
// (segments.glsl): each tile is a tile of one segment, whose first tile
// publishes the segment's digit starts (the segment histogram kernel's) and
// whose look-backs end there. A second module rather than a specialization
// constant, as for portable_scatter.comp.
#ifdef VKSORT_SEGMENT_TILES
const bool SEGMENT_TILES = true;
#else
const bool SEGMENT_TILES = false;
#endif
// SEGMENT_TILES with ONE_WORKGROUP: the medium segments' kernel
// (sortMediumSegment). It takes the segments of the small class's list
// that are larger than SEGMENT_SMALL_MAX, the bitonic kernel's.
const bool MEDIUM_SEGMENTS = SEGMENT_TILES && ONE_WORKGROUP;
layout(constant_id = VKSORT_SC_SEGMENT_SMALL_MAX) const uint SEGMENT_SMALL_MAX = 0;
#define SEGMENT_RING_SLOTS RING_SLOTS
#define TABLE_RADIX_BITS RADIX_BITS
#include "segments.glsl"
#include "tile_sort.glsl"
#include "status_ring.glsl"

shared uint sTile;
#ifdef VKSORT_SEGMENT_TILES
// MEDIUM_SEGMENTS: per pass and digit, where the digit's next key goes in
// the segment; one word in the large segments' kernel (the dispatcher counts
// both: segmentOnesweepExtraSharedBytes).
shared uint sSegmentNext[MEDIUM_SEGMENTS ? 4u * KEY_WORDS * VKSORT_RADIX : 1u];
#endif

// CHAINED: waits until every tile of pass `pass` has retired (the pass's
// tail counts them), then acquires what they wrote. Called by one
// invocation. This wait has no budget, unlike the look-back's: the item
// cannot start without the last pass's output, and those tiles were taken
// before this one by running workgroups, so it ends. It polls 64 times per
// loop turn: it may last as long as the slowest tile of a pass, look-back
// spins included, and llvmpipe's loop limiter (status_ring.glsl) counts
// turns, not polls.
void waitForPass(uint pass, uint tiles) {
  uint t = loadTail(pass);
  while (t < tiles) {
    VKSORT_POLL_ROUND(VKSORT_POLL_ROUND(if (t < tiles) t = loadTail(pass);))
  }
  memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire | gl_SemanticsMakeVisible);
}

// CHAINED: the dispatch builds the histograms itself, in place of the
// histogram kernel (histogram items). Its first `tiles` work items each
// count the digits of every pass in one tile's keys and clear ring slots,
// as the histogram kernel does; the last of them to finish
// scans the histograms into digit starts and counts itself once more, which
// releases them. Pass 0's items wait for that (waitForHistogram) once their
// keys are loaded and ranked. With SEGMENT_TILES each large segment has its
// histograms, done counter and release: its tiles count into them, the
// last of its tiles scans them, and pass 0's tiles of the segment wait for
// them alone. An item then clears its own tile's ring slot, which only
// tiles of its segment read before the release.

// The histograms that histogram items count into: a plain sort's (the
// temp header's, with the HIST_DONE counter, a part per tile) or a large
// segment's (its histograms, with its done counter after them, a part per
// tile of the segment), and what their scanned starts add (the segment's
// begin).
struct Histograms {
  U32Buf hist, done;
  uint doneIndex, parts, base;
};

Histograms segmentHistogramsOf(SegmentTile st) {
  U32Buf hist = segmentHistogram(st.large);
  return Histograms(hist, hist, pc.passes * VKSORT_RADIX, st.tiles, st.begin);
}

// Counts the digits of every pass of `n` keys from `start` into h's
// histograms, through sWork in groups of as many passes as it holds.
void countTileDigits(Histograms h, uint start, uint n) {
  const uint tid = gl_LocalInvocationIndex;
  uvec2 k[KEYS_PER_THREAD];
  [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint at = i * WG_SIZE + tid;
    k[i] = at < n ? loadKey(0u, start + at) : uvec2(0u);
  }
  const uint group = min(pc.passes, WORK_WORDS / VKSORT_RADIX);
  for (uint first = 0; first < pc.passes; first += group) {
    const uint bins = min(group, pc.passes - first) * VKSORT_RADIX;
    for (uint base = 0; base < bins; base += WG_SIZE)
      if (base + tid < bins) sWork[base + tid] = 0u;
    barrier();
    [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
      if (i * WG_SIZE + tid < n)
        for (uint p = first; p < first + bins / VKSORT_RADIX; ++p)
          atomicAdd(sWork[(p - first) * VKSORT_RADIX + digitOf(k[i], p)], 1u);
    }
    barrier();
    for (uint base = 0; base < bins; base += WG_SIZE) {
      const uint v = base + tid < bins ? sWork[base + tid] : 0u;
      if (v != 0u)
        atomicAdd(h.hist.v[first * VKSORT_RADIX + base + tid], v, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                  gl_SemanticsRelaxed);
    }
    barrier();
  }
}

// The histogram item `item` of `tiles`: clears its ring slots, counts its
// tile's digits, and where it is the last of its histograms' items, scans
// them into digit starts, then counts itself once more, which releases them
// (and every item's ring clearing) to pass 0's items.
void histogramItem(uint item, uint tiles, uint count) {
  const uint tid = gl_LocalInvocationIndex;
  U64Buf ring = ringBuf();
  Histograms h;
  if (SEGMENT_TILES) {
    if (item < RING_SLOTS)
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)
        if (base + tid < VKSORT_RADIX)
          atomicStore(ring.v[item * VKSORT_RADIX + base + tid], 0ul, gl_ScopeQueueFamily,
                      gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    const SegmentTile st = segmentTile(item, TILE);
    h = segmentHistogramsOf(st);
    countTileDigits(h, st.start, st.count);
  } else {
    const uint ringEntries = pc.ringClear * VKSORT_RADIX;
    for (uint base = item * WG_SIZE; base < ringEntries; base += tiles * WG_SIZE)
      if (base + tid < ringEntries)
        atomicStore(ring.v[base + tid], 0ul, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    h = Histograms(tempU32(), counters(), VKSORT_CTR_HIST_DONE, tiles, 0u);  // sortTile's `built`
    countTileDigits(h, item * TILE, min(TILE, count - item * TILE));
  }
  barrierAll();
  if (tid == 0) {
    const uint done = atomicAdd(h.done.v[h.doneIndex], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                                gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    sTile = done == h.parts - 1u ? 1u : 0u;
  }
  barrierAll();
  if (sTile == 0u) return;
  // Every count of a group of passes is loaded before any is scanned, so
  // that the loads are in flight together.
  const uint group = min(pc.passes, WORK_WORDS / VKSORT_RADIX);
  for (uint first = 0; first < pc.passes; first += group) {
    const uint bins = min(group, pc.passes - first) * VKSORT_RADIX;
    for (uint base = 0; base < bins; base += WG_SIZE)
      if (base + tid < bins) sWork[base + tid] = loadCounter(h.hist, first * VKSORT_RADIX + base + tid);
    barrier();
    for (uint p = 0; p < bins / VKSORT_RADIX; ++p) {
      // Digit loops take the same turns in every invocation (tile_sort.glsl).
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)
        if (base + tid < VKSORT_RADIX) sScan[base + tid] = sWork[p * VKSORT_RADIX + base + tid];
      barrier();
      scanDigitsExclusive();
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)
        if (base + tid < VKSORT_RADIX)
          atomicStore(h.hist.v[(first + p) * VKSORT_RADIX + base + tid], h.base + sScan[base + tid],
                      gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      barrier();
    }
  }
  barrierAll();
  if (tid == 0)
    atomicAdd(h.done.v[h.doneIndex], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
              gl_SemanticsRelease | gl_SemanticsMakeAvailable);
}

// Pass 0's wait for histogramItem's release of h. Called by one invocation;
// no budget, as for waitForPass: the histogram items were taken before any
// of pass 0's.
void waitForHistogram(Histograms h) {
  uint done = loadCounter(h.done, h.doneIndex);
  while (done <= h.parts) {
    VKSORT_POLL_ROUND(VKSORT_POLL_ROUND(if (done <= h.parts) done = loadCounter(h.done, h.doneIndex);))
  }
  memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire | gl_SemanticsMakeVisible);
}

// Sorts one tile of pass `pass` (CHAINED: of the pass that the work item it
// takes gives; or counts a tile's digits, a histogram item). Returns
// false where the tile is past the grid (CHAINED: no work item was left).
bool sortTile(uint pass) {
  const uint tid = gl_LocalInvocationIndex;
  const uint count = sortCount();
  // CHAINED: the tiles of each pass, and the histogram items before them.
  const uint tiles = !CHAINED ? 0u : SEGMENT_TILES ? segmentHeader().v[VKSORT_SEG_TILES] : (count + TILE - 1u) / TILE;
  const uint histogramTiles = tiles;
  // SHARED_PASSES after pass 0: the tile is in sWork, where the histograms go.
  const bool fromShared = SHARED_PASSES && pass != 0u;
  if (fromShared) {
    loadTile(pass, 0u, min(TILE, count));
    barrier();
  }

#ifdef VKSORT_SEGMENT_TILES
  // Loaded while the ticket is taken, so that no load waits for it: the
  // count of tiles, and the entry of the tile that this workgroup's index
  // names. A segment's tiles share one entry, so that entry is the ticket
  // tile's wherever both tiles lie in the same segment: most tiles, where
  // segments are large. Otherwise the tile loads its own entry.
  const uint largeTiles = segmentHeader().v[VKSORT_SEG_TILES];
  const uint guessed = min(segmentGridIndex(), pc.numTiles - 1u);
  const uvec4 guess = CHAINED || ONE_WORKGROUP ? uvec4(0u) : segmentTiles().v[guessed];
#else
  const uint largeTiles = 0u, guessed = 0u;
  const uvec4 guess = uvec4(0u);
#endif
  if (ONE_WORKGROUP) {
    if (tid == 0) sTile = 0u;
  } else if (tid == 0) {
    const uint t = atomicAdd(counters().v[VKSORT_CTR_TILE(CHAINED ? 0u : pass)], 1u, gl_ScopeQueueFamily,
                             gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    sTile = t;
    sLookMissing[0] = 0u;
    if (CHAINED && t >= histogramTiles + tiles && t < histogramTiles + pc.passes * tiles)
      waitForPass((t - histogramTiles) / tiles - 1u, tiles);
  }
  clearSubgroupHistograms();
  barrierAll();
  // Tile numbers from here on are within the tile's segment (status_ring.glsl).
  uint tile = sTile, tileStart, tileCount;
  if (CHAINED) {
    if (tile < histogramTiles) {
      histogramItem(tile, tiles, count);
      barrier();  // sTile is read by all before the next item writes it
      return true;
    }
    tile -= histogramTiles;
    if (tile >= pc.passes * tiles) return false;  // no item left (uniform)
    pass = tile / tiles;
    tile -= pass * tiles;
    gTailSeen = 0u;  // the tail seen was the last item's pass's
  }
  // Per pass and digit, the position of the first key of the digit; with
  // CHAINED, the histograms that pass 0 waits for.
  U32Buf globalStart = tempU32();
  Histograms built = Histograms(globalStart, counters(), VKSORT_CTR_HIST_DONE, tiles, 0u);
  if (SEGMENT_TILES) {
    if (tile >= largeTiles) return false;  // past the grid (uniform)
    // Entries below the count of tiles are this sort's (segment_bins.comp).
    const bool same = !CHAINED && guessed < largeTiles && tile - guess.x < (guess.z - guess.y + TILE - 1u) / TILE;
    const uvec4 info = same ? guess : segmentTiles().v[tile];
    const SegmentTile st = segmentTileOf(tile, TILE, info);
    gTileBase = st.first;
    gKeysBegin = st.begin;
    gKeysEnd = st.end;
    // Keys stay in their segment even where overlapping segments (bad
    // offsets) changed them between the histogram and this pass.
    gDstSegment = uvec2(st.begin, st.end);
    tile -= st.first;
    // The pass whose digits the tile sorts by (status_ring.glsl): its own,
    // but a split segment's (histogram.comp) tiles sort by the last pass's
    // digit in pass 0, whose digit starts the histogram kernel made the top
    // digit's, and skip the later passes; its buckets are sorted after the
    // passes. (Only the histogram kernel splits: never with CHAINED.)
    // A skipping tile retires at once, not in its turn. The tail may then
    // count it early, which can only let a later tile take a ring slot
    // early; a look-back that misses the entry there counts the tile's
    // digits itself (status_ring.glsl).
    // A segment split on its top two digits sorts by the one below the top
    // in pass 0 and by the top one in pass 1.
    gDigitPass = pass;
    const uint splitDigits = (info.w & VKSORT_SEG_TILE_SPLIT) != 0u       ? 1u
                             : (info.w & VKSORT_SEG_TILE_SPLIT_TWO) != 0u ? 2u
                                                                          : 0u;
    if (splitDigits != 0u) {
      if (pass >= splitDigits) {
        if (tid == 0)
          atomicAdd(counters().v[VKSORT_CTR_TAIL(pass)], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                    gl_SemanticsRelaxed);
        return true;
      }
      gDigitPass = pc.passes - splitDigits + pass;
    }
    tileStart = st.start;
    tileCount = st.count;
    globalStart = segmentHistogram(st.large);
    built = segmentHistogramsOf(st);
  } else {
    tileStart = tile * TILE;
    if (tileStart >= count) return false;  // past an indirect count (uniform: tile is shared)
    tileCount = min(TILE, count - tileStart);
    gKeysEnd = count;
  }

  if (!fromShared) loadTile(pass, tileStart, tileCount);
  // The slot must be free before the first publication, after rankTile's
  // barrier; waiting here lets the tail's load overlap the key loads.
  if (!ONE_WORKGROUP && tid == 0) waitForRingSlot(pass, tile);
  rankTile(SEGMENT_TILES ? gDigitPass : pass, tileCount);
  barrier();
  // Pass 0's digit starts, and the ring cleared, before anything is
  // published or looked up.
  if (histogramTiles != 0u && pass == 0u) {
    if (tid == 0) waitForHistogram(built);
    barrierAll();
  }

  // Per digit: the tile's count, and its publication (tile 0 publishes an
  // inclusive prefix right away: the digit's global start, from the
  // histogram kernel, plus its count; tile 0 publishes nothing else, which
  // walkBack relies on).
  injectDelay(tile);
  // Digit loops take the same number of turns in every invocation (see
  // tile_sort.glsl).
  for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE) {
    const uint d = base + tid;
    if (d >= VKSORT_RADIX) continue;
    const uint sum = tileDigitCount(d, tileCount);
    sScan[d] = sum;
    sDigitBase[d] = sum;
    if (ONE_WORKGROUP)
      ;  // nobody looks back
    else if (tile == 0u)
      publishStatus(pass, tile, d, loadDigitStart(globalStart, pass * VKSORT_RADIX + d) + sum, true);
    else
      publishStatus(pass, tile, d, sum, false);
  }
  // With buffer semantics: the look-back's lanes publish this tile's
  // inclusive prefixes to the entries just written by other invocations, and
  // must be ordered after them.
  barrierAll();
  scanTileDigits(tileCount);  // sScan: local start of each digit in the tile
  sortTileLocally(SEGMENT_TILES ? gDigitPass : pass, tileCount);

  // Tiles after the first look back (and publish each digit's inclusive
  // prefix once the walks of its subgroup have ended).
  if (!ONE_WORKGROUP && tile != 0u) {
    lookBack(pass, tile, globalStart);
    barrier();
  }
  for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE) {
    const uint d = base + tid;
    if (d >= VKSORT_RADIX) continue;
    uint prefix;
    if (ONE_WORKGROUP)
      prefix = sScan[d];  // the only tile: local starts are global starts
    else if (tile == 0u)
      prefix = loadDigitStart(globalStart, pass * VKSORT_RADIX + d);
    else
      prefix = sLookPrefix[d];
    sDigitBase[d] = prefix - sScan[d];
  }
  barrierAll();

  writeKeys(SEGMENT_TILES ? gDigitPass : pass, tileCount);
  writeValues(pass, tileCount);
  // CHAINED: the tile's writes come before its retirement, which releases
  // them to the next pass, and the next item reuses shared memory after it.
  if (CHAINED) barrierAll();
  if (!ONE_WORKGROUP && tid == 0) retireTile(pass, tile);
  return true;
}

#ifdef VKSORT_SEGMENT_TILES
// MEDIUM_SEGMENTS: the workgroup sorts one medium segment on its own, with
// no status ring and no other workgroup: each pass runs over the segment's
// tiles in order, as the one-workgroup sort's passes run over its only
// tile. Pass p reads buffer p % 2 and writes the other, as there, so the
// segment ends where the pass count says. With SHARED_PASSES the segment is
// one tile (the dispatcher's bound) and stays in shared memory between
// passes. A segment of several tiles first counts the digits of every pass
// over its keys and scans them into each digit's first position; each
// tile's digits then go where the tiles before it left off. The tile's
// steps are sortTile's, in a loop of their own: branches for this kernel in
// sortTile, dead code in the large segments' kernel of the same module,
// made that kernel 14% slower on NVIDIA (docs/tuning.md).
void sortMediumSegment() {
  const uint tid = gl_LocalInvocationIndex;
  const uint s = segmentGridIndex();
  if (s >= segmentHeader().v[VKSORT_SEG_SMALL_COUNT]) return;  // past the list (uniform)
  const uvec2 segment = segmentList().v[segmentListIndex(VKSORT_SEGMENT_CLASS_SMALL, s)];
  if (segment.y - segment.x <= SEGMENT_SMALL_MAX) return;  // the bitonic kernel's (uniform)
  // Keys stay in their segment even where overlapping segments (bad
  // offsets) change its keys between the count and a pass.
  gDstSegment = segment;
  const bool tiles = segment.y - segment.x > TILE;  // uniform
  if (tiles) {
    const uint words = pc.passes * VKSORT_RADIX;
    for (uint base = 0; base < words; base += WG_SIZE)
      if (base + tid < words) sSegmentNext[base + tid] = 0u;
    barrier();
    for (uint start = segment.x; start < segment.y; start += TILE) {
      const uint n = min(TILE, segment.y - start);
      [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
        const uint at = i * WG_SIZE + tid;
        if (at < n) {
          const uvec2 k = loadKey(0u, start + at);
          for (uint p = 0; p < pc.passes; ++p) atomicAdd(sSegmentNext[p * VKSORT_RADIX + digitOf(k, p)], 1u);
        }
      }
    }
    barrier();
    for (uint p = 0; p < pc.passes; ++p) {
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)
        if (base + tid < VKSORT_RADIX) sScan[base + tid] = sSegmentNext[p * VKSORT_RADIX + base + tid];
      barrier();
      scanDigitsExclusive();
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)
        if (base + tid < VKSORT_RADIX) sSegmentNext[p * VKSORT_RADIX + base + tid] = segment.x + sScan[base + tid];
      barrier();
    }
  }
  for (uint pass = 0; pass < pc.passes; ++pass) {
    // SHARED_PASSES after pass 0: the tile is in sWork, where the histograms go.
    const bool fromShared = SHARED_PASSES && pass != 0u;
    for (uint start = segment.x; start < segment.y; start += TILE) {
      const uint n = min(TILE, segment.y - start);
      if (fromShared) {
        loadTile(pass, 0u, n);
        barrier();
      }
      clearSubgroupHistograms();
      barrier();
      if (!fromShared) loadTile(pass, start, n);
      rankTile(pass, n);
      barrier();
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE) {
        const uint d = base + tid;
        if (d >= VKSORT_RADIX) continue;
        const uint sum = tileDigitCount(d, n);
        sScan[d] = sum;
        sDigitBase[d] = sum;
      }
      barrier();
      scanTileDigits(n);  // sScan: local start of each digit in the tile
      sortTileLocally(pass, n);
      for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE) {
        const uint d = base + tid;
        if (d >= VKSORT_RADIX) continue;
        // The only tile: its local starts from the segment's begin.
        uint prefix = start + sScan[d];
        if (tiles) {
          prefix = sSegmentNext[pass * VKSORT_RADIX + d];
          sSegmentNext[pass * VKSORT_RADIX + d] = prefix + sDigitBase[d];
        }
        sDigitBase[d] = prefix - sScan[d];
      }
      barrier();
      writeKeys(pass, n);
      writeValues(pass, n);
      barrier();  // the next tile (or pass) reuses shared memory
    }
    if (!SHARED_PASSES) barrierAll();  // this pass's output is the next pass's input
  }
}
#endif

void main() {
  // With an indirect count, a kernel that the live count's route does not
  // take returns at once (live_route.glsl; uniform).
  if (!onRoute(sortCount())) return;
  if (CHAINED) {
    // Each workgroup of the grid (one pass's tiles) takes as many items as
    // there are passes, and one more: the histogram items. With an indirect
    // count the grid holds maxCount's tiles: only as many workgroups as the
    // live count has tiles take items.
    if ((pc.flags & VKSORT_FLAG_LIVE_ROUTE) != 0u && gl_WorkGroupID.x >= (sortCount() + TILE - 1u) / TILE) return;
    const uint items = pc.passes + 1u;
    for (uint i = 0; i < items; ++i)
      if (!sortTile(0u)) break;
    return;
  }
  if (!ONE_WORKGROUP) {
    sortTile(pc.pass);
    return;
  }
#ifdef VKSORT_SEGMENT_TILES
  if (MEDIUM_SEGMENTS) {
    sortMediumSegment();
    return;
  }
#endif
  for (uint pass = 0; pass < pc.passes; ++pass) {
    sortTile(pass);
    // This pass's output is the next pass's input: in sWork, or in a buffer.
    if (SHARED_PASSES)
      barrier();
    else
      barrierAll();
  }
}

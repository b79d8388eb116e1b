// The in-workgroup part of a digit pass, shared by onesweep.comp and
// portable_scatter.comp: load one tile of WG_SIZE * KEYS_PER_THREAD keys
// (and values), rank them stably by the current digit, sort the tile locally
// in shared memory, and write it out so that neighbouring invocations write
// neighbouring addresses within a digit (a coalesced scatter).
//
// The kernels differ only in where a digit's global position comes from:
// Onesweep looks back over the status ring, the portable scatter reads it
// from the scanned per-tile table. A kernel calls, in order:
//   clearSubgroupHistograms(); barrier;
//   loadTile(); rankTile(); barrier;
//   per digit d: sScan[d] = tileDigitCount(d, tileCount); barrier;
//   scanTileDigits(tileCount); sortTileLocally();
//   per digit d: sDigitBase[d] = (keys before the tile's first d) - sScan[d];
//   barrier; writeKeys(); writeValues();
//
// The includer includes common.glsl first and defines KEYS_PER_THREAD,
// VALUE_WORDS (0, 1 or 2), VALUE_INDEX (argsort: pass 0 makes value = input
// index), ONE_WORKGROUP (onesweep.comp's one-workgroup paths: every pass in one
// dispatch, so the pass, not the push constants, picks buffers and mapping),
// CHAINED (onesweep.comp's tiles of every pass in one dispatch: likewise, and
// buffers are read and written coherently), SHARED_PASSES (ONE_WORKGROUP
// with the tile kept in shared memory between passes), ONE_WORD_STAGING and
// STAGING_ROUNDS (below), WIDE_BALLOT
// (rankTile) and SEGMENT_TILES (the portable scatter over a segmented sort's
// large segments: writes outside gDstSegment are dropped).
//
// Loops over an invocation's keys ("for i < KEYS_PER_THREAD") are marked
// [[unroll]]: the NVIDIA driver does not unroll all of them by itself.
//
// Loops over digits or words are written so that every invocation of the
// workgroup takes the same number of turns ("for base += WG_SIZE, if
// base + tid < n"), never "for i = tid; i < n; i += WG_SIZE" with n not a
// multiple of WG_SIZE. With the latter, lavapipe (Mesa 22.3.6, llvmpipe)
// crashed or wrote keys to wrong places in the portable scatter kernel with
// 16 digits and 128 invocations; the uniform form fixed it (see the driver
// notes in docs/design.md).

const uint TILE = WG_SIZE * KEYS_PER_THREAD;
const uint SG_KEYS = SG_SIZE * KEYS_PER_THREAD;
const uint HIST_WORDS = NUM_SUBGROUPS * RADIX;
const uint ITEM_WORDS = KEY_WORDS > VALUE_WORDS ? KEY_WORDS : VALUE_WORDS;
// The keys and values of a tile live in registers; shared memory holds only
// what is being moved. The locally sorted tile goes through it in
// STAGING_ROUNDS rounds (1 to KEYS_PER_THREAD): round r holds the sorted
// positions [r ROUND_KEYS, (r + 1) ROUND_KEYS), which are this invocation's
// output positions tid + i WG_SIZE for i in [r ROUND_ITEMS, (r + 1)
// ROUND_ITEMS). Each invocation stages those of its items whose rank falls
// in the round; after a barrier, the round is written out; after another,
// the next round is staged. Two rounds halve the shared memory of a tile for
// two more barriers per item, so that two workgroups fit where one did.
// SHARED_PASSES keeps the tile in shared memory from one pass to the next,
// in one round: the keys in [0, KEY_WORDS TILE), the values after them, from
// VALUE_BASE. Otherwise the values are staged where the keys were, once the
// keys are written. A 64-bit item is staged with both words at once (low
// words in [0, ROUND_KEYS), high words in [ROUND_KEYS, 2 ROUND_KEYS)), or
// with ONE_WORD_STAGING one word at a time through [0, ROUND_KEYS): low
// words, then high words. That costs two barriers per round, and lets 64-bit
// items have tiles as large as 32-bit ones.
const uint ROUNDS = SHARED_PASSES ? 1u : STAGING_ROUNDS;
const uint ROUND_ITEMS = (KEYS_PER_THREAD + ROUNDS - 1u) / ROUNDS;
const uint ROUND_KEYS = WG_SIZE * ROUND_ITEMS;
const bool SPLIT_WORDS = ONE_WORD_STAGING && !SHARED_PASSES;
const uint UNPADDED_TILE_WORDS =
    SHARED_PASSES ? TILE * (KEY_WORDS + VALUE_WORDS) : SPLIT_WORDS ? ROUND_KEYS : ROUND_KEYS * ITEM_WORDS;
const uint VALUE_BASE = SHARED_PASSES ? TILE * KEY_WORDS : 0u;
// Tile word w lives at sWork[padded(w)]: one word of padding after every 32.
// A tile holds about TILE / 256 keys of each digit, so the ranks of a
// subgroup's items with consecutive digits (nearly sorted keys) are that far
// apart; with 32 keys per digit all 32 stores of a subgroup would hit one
// bank of shared memory.
uint padded(uint w) { return w + (w >> 5u); }
const uint TILE_WORDS = UNPADDED_TILE_WORDS + UNPADDED_TILE_WORDS / 32u;
const uint WORK_WORDS = TILE_WORDS > HIST_WORDS ? TILE_WORDS : HIST_WORDS;

// First the per-subgroup digit histograms, then (after their prefixes are in
// registers) one round of the locally sorted keys of the tile at a time,
// then of its values, at padded word indices.
shared uint sWork[WORK_WORDS];
// Per digit, for the kernel: typically the tile's count, then (global start
// - local start), which writeKeys reads.
shared uint sDigitBase[RADIX];

// This pass's input and output. The push constants name them, except where
// a dispatch runs several passes (PASSES_IN_DISPATCH: ONE_WORKGROUP, or
// onesweep.comp's CHAINED passes), where pass p reads buffer p % 2 (keys,
// alt) and writes the other one (with SHARED_PASSES only pass 0 reads a
// buffer and only the last pass writes one), which leaves the result where
// VksortResultBuffer says.
const bool PASSES_IN_DISPATCH = ONE_WORKGROUP || CHAINED;
Address keysIn(uint pass) { return address(PASSES_IN_DISPATCH && pass % 2u == 1u ? pc.keysOut : pc.keysIn); }
Address keysOut(uint pass) { return address(PASSES_IN_DISPATCH && pass % 2u == 1u ? pc.keysIn : pc.keysOut); }
Address valuesIn(uint pass) { return address(PASSES_IN_DISPATCH && pass % 2u == 1u ? pc.valuesOut : pc.valuesIn); }
Address valuesOut(uint pass) { return address(PASSES_IN_DISPATCH && pass % 2u == 1u ? pc.valuesIn : pc.valuesOut); }

// Keys and values that other workgroups of this dispatch wrote (CHAINED: the
// last pass's output) are read, and written for the next pass, through
// coherent references: those bypass caches that other workgroups' writes do
// not reach, and the waits' release and acquire order them.
uvec2 loadItemWords(uint words, Address base, uint i) {
  if (CHAINED) return words == 1u ? uvec2(U32BufCoherent(base).v[i], 0u) : U32x2BufCoherent(base).v[i];
  return words == 1u ? uvec2(U32Buf(base).v[i], 0u) : U32x2Buf(base).v[i];
}
void storeItemWords(uint words, Address base, uint i, uvec2 w) {
  if (CHAINED && words == 1u)
    U32BufCoherent(base).v[i] = w.x;
  else if (CHAINED)
    U32x2BufCoherent(base).v[i] = w;
  else if (words == 1u)
    U32Buf(base).v[i] = w.x;
  else
    U32x2Buf(base).v[i] = w;
}

// The key at `index` of this pass's input, as sort bits (pass 0 maps them:
// pc.loadXor is zero in later dispatches; PASSES_IN_DISPATCH checks the
// pass).
uvec2 loadKey(uint pass, uint index) {
  const uvec2 k = loadItemWords(KEY_WORDS, keysIn(pass), index);
  return PASSES_IN_DISPATCH && pass != 0u ? k : toSortBits(k);
}
uint loadKeyDigit(uint pass, uint index) { return digitOf(loadKey(pass, index), pass); }

// This invocation's part of the tile. Keys are read in subgroup-contiguous
// runs: item i of an invocation is tile element sgBase + i * SG_SIZE + lane.
// Ranking in that order keeps the sort stable. Low and high words are in
// separate arrays, so that 32-bit keys and values cost one register each
// (the high words are dead code then).
uint gKeysLo[KEYS_PER_THREAD], gKeysHi[KEYS_PER_THREAD];
uint gValuesLo[KEYS_PER_THREAD], gValuesHi[KEYS_PER_THREAD];
uint gOffs[KEYS_PER_THREAD];  // rank of item i: in its subgroup and digit, then in the tile
uint gDst[KEYS_PER_THREAD];   // output index of the key at tile position tid + i * WG_SIZE
// SEGMENT_TILES: the tile's segment, [begin, end); keys (and values) go only there.
uvec2 gDstSegment;
bool inSegment(uint dst) { return !SEGMENT_TILES || dst - gDstSegment.x < gDstSegment.y - gDstSegment.x; }

uint itemIndex(uint i) { return gl_SubgroupID * SG_KEYS + i * SG_SIZE + gl_SubgroupInvocationID; }

// Subgroups that hold at least one of the tile's keys. In ONE_WORKGROUP mode
// the only tile is usually partial (1,024 keys in a 1024 x 4 tile fill 8 of
// 32 subgroups): the others rank nothing, their histograms stay zero, and
// loops over the subgroups stop early. A subgroup without keys still takes the turns of its per-key
// loops, skipping their bodies: when it skipped the loops, lavapipe sorted
// wrongly with 33 or more keys per invocation (loops it does not unroll; see
// the top of this file). Other kernels keep the code they had, with a
// constant loop bound:
// only their last tile is partial, and any of this in the multi-tile kernel
// makes large sorts slower. Use it under `if (ONE_WORKGROUP ...)` only.
uint activeSubgroups(uint tileCount) { return min(NUM_SUBGROUPS, (tileCount + SG_KEYS - 1u) / SG_KEYS); }

void clearSubgroupHistograms() {
  for (uint base = 0; base < HIST_WORDS; base += WG_SIZE)
    if (base + gl_LocalInvocationIndex < HIST_WORDS) sWork[base + gl_LocalInvocationIndex] = 0u;
}

// SHARED_PASSES after pass 0 reads the tile from shared memory, where the
// last pass left it sorted (as sort bits), not from the buffers: the caller
// loads it before anything else overwrites sWork.
void loadTile(uint pass, uint tileStart, uint tileCount) {
  const bool fromShared = SHARED_PASSES && pass != 0u;
  [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint idx = itemIndex(i);
    uvec2 k = uvec2(0u), v = uvec2(0u);
    if (fromShared && idx < tileCount) {
      k.x = sWork[padded(idx)];
      if (KEY_WORDS == 2) k.y = sWork[padded(TILE + idx)];
      if (VALUE_WORDS >= 1) v.x = sWork[padded(VALUE_BASE + idx)];
      if (VALUE_WORDS == 2) v.y = sWork[padded(VALUE_BASE + TILE + idx)];
    } else if (idx < tileCount) {
      k = loadKey(pass, tileStart + idx);
      if (VALUE_INDEX && pass == 0u && (!SEGMENT_TILES || (pc.flags & VKSORT_FLAG_BUCKETS) == 0u))
        v.x = tileStart + idx;
      else if (VALUE_WORDS != 0)
        v = loadItemWords(VALUE_WORDS, valuesIn(pass), tileStart + idx);
    }
    gKeysLo[i] = k.x;
    gKeysHi[i] = k.y;
    gValuesLo[i] = v.x;
    gValuesHi[i] = v.y;
  }
}

// Warp-level multisplit: the lanes holding the same digit ("peers") are
// found with one ballot per digit bit. Every peer reads this subgroup's
// count of the digit (sWork[subgroup * RADIX + digit]), and the highest one
// adds the group's size to it: a plain load and store, ordered by subgroup
// barriers, as only this subgroup touches its histogram and the peers of
// different digits store to different words. (This is faster than an atomic
// add whose result the leader shuffles to its peers, and than
// subgroupPartitionNV; docs/tuning.md.)
// Subgroups of up to 32 lanes use one 32-bit mask word; larger ones (AMD's
// wave64, Adreno's 128 lanes) use the full uvec4 ballot. WIDE_BALLOT makes
// every size take the uvec4 branch, so that tests run it on lavapipe's 4, 8
// and 16 lanes (VksortTestingHooks::wideBallot); it gives the same ranks.
// The histograms must be cleared, with a barrier, before.
void rankTile(uint pass, uint tileCount) {
  const uint lane = gl_SubgroupInvocationID;
  const uint sg = gl_SubgroupID;
  // Subgroups without keys skip the work but take the loop's turns (see the
  // top of this file); uniform in the subgroup.
  const bool hasKeys = !ONE_WORKGROUP || sg < activeSubgroups(tileCount);
  [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    if (!hasKeys) continue;
    const bool valid = itemIndex(i) < tileCount;
    const uint d = digitOf(uvec2(gKeysLo[i], gKeysHi[i]), pass);
    uint rank, peerCount, leader;
    if (SG_SIZE <= 32 && !WIDE_BALLOT) {
      uint peers = subgroupBallot(valid).x;
      for (uint b = 0; b < RADIX_BITS; ++b) {
        const bool bit = ((d >> b) & 1u) != 0u;
        const uint bal = subgroupBallot(bit).x;
        peers &= bit ? bal : ~bal;
      }
      rank = bitCount(peers & gl_SubgroupLtMask.x);
      peerCount = bitCount(peers);
      leader = uint(findMSB(peers));
    } else {
      uvec4 peers = subgroupBallot(valid);
      for (uint b = 0; b < RADIX_BITS; ++b) {
        const bool bit = ((d >> b) & 1u) != 0u;
        const uvec4 bal = subgroupBallot(bit);
        peers &= bit ? bal : ~bal;
      }
      rank = subgroupBallotExclusiveBitCount(peers);
      peerCount = subgroupBallotBitCount(peers);
      leader = subgroupBallotFindMSB(peers);
    }
    uint old = 0u;
    if (valid) old = sWork[sg * RADIX + d];
    subgroupBarrier();  // every peer has read the count before the leader adds to it
    if (valid && leader == lane) sWork[sg * RADIX + d] = old + peerCount;
    subgroupBarrier();  // and the next key's peers see the sum
    gOffs[i] = old + rank;
  }
}

// After rankTile and a barrier: the tile's count of digit d (the sum of the
// subgroups' counts).
uint tileDigitCount(uint d, uint tileCount) {
  uint sum = 0u;
  if (ONE_WORKGROUP) {
    const uint subgroups = activeSubgroups(tileCount);
    for (uint w = 0; w < subgroups; ++w) sum += sWork[w * RADIX + d];
    return sum;
  }
  for (uint w = 0; w < NUM_SUBGROUPS; ++w) sum += sWork[w * RADIX + d];
  return sum;
}

// After sScan holds the tile's digit counts and a barrier: scans them into
// each digit's local start in the tile (sScan), and turns each subgroup's
// count of digit d into where that subgroup's first d goes in the locally
// sorted tile (local start plus the counts of the subgroups before it), so
// that sortTileLocally reads one word per key. Ends with a barrier.
void scanTileDigits(uint tileCount) {
  scanDigitsExclusiveNoBarrier();
  for (uint j = 0; j < SCAN_DPT; ++j) {
    const uint d = scanFirstDigit() + j;
    if (d < RADIX) {
      uint start = sScan[d];  // this invocation's own result
      if (ONE_WORKGROUP) {
        const uint subgroups = activeSubgroups(tileCount);
        for (uint w = 0; w < subgroups; ++w) {
          const uint t = sWork[w * RADIX + d];
          sWork[w * RADIX + d] = start;
          start += t;
        }
      } else {
        for (uint w = 0; w < NUM_SUBGROUPS; ++w) {
          const uint t = sWork[w * RADIX + d];
          sWork[w * RADIX + d] = start;
          start += t;
        }
      }
    }
  }
  barrier();
}

// Stores the words of this invocation's items whose ranks fall in round r
// as tile word base + rank - r ROUND_KEYS (with both, the high words ROUND_KEYS
// further on).
void stageRound(uint r, uint tileCount, uint base, uint lo[KEYS_PER_THREAD], uint hi[KEYS_PER_THREAD], bool both) {
  [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint s = gOffs[i] - r * ROUND_KEYS;
    if (itemIndex(i) < tileCount && (ROUNDS == 1u || s < ROUND_KEYS)) {
      sWork[padded(base + s)] = lo[i];
      if (both) sWork[padded(base + ROUND_KEYS + s)] = hi[i];
    }
  }
}

// After scanTileDigits: makes each item's rank its position in the locally
// sorted tile, and stages the keys of the first round in sWork.
void sortTileLocally(uint pass, uint tileCount) {
  const bool hasKeys = !ONE_WORKGROUP || gl_SubgroupID < activeSubgroups(tileCount);
  [[unroll]] for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    if (hasKeys) gOffs[i] += sWork[gl_SubgroupID * RADIX + digitOf(uvec2(gKeysLo[i], gKeysHi[i]), pass)];
  }
  barrier();
  stageRound(0u, tileCount, 0u, gKeysLo, gKeysHi, KEY_WORDS == 2 && !SPLIT_WORDS);
}

// This invocation's i-th output position in the locally sorted tile, and
// where round r keeps it in sWork.
uint sortedPosition(uint i) { return gl_LocalInvocationIndex + i * WG_SIZE; }
uint stagedPosition(uint r, uint i) { return sortedPosition(i) - r * ROUND_KEYS; }

// SPLIT_WORDS only. With sWork holding the low words of round r of the
// locally sorted items (keys or values), after a barrier: reads this
// invocation's low words of the round into lo, then stages the high words
// in their place. Ends with the high words in sWork, after a barrier.
void stageHighWords(uint r, uint tileCount, out uint lo[KEYS_PER_THREAD], uint hi[KEYS_PER_THREAD]) {
  [[unroll]] for (uint j = 0; j < ROUND_ITEMS; ++j) {
    const uint i = r * ROUND_ITEMS + j;
    if (i < KEYS_PER_THREAD) lo[i] = sortedPosition(i) < tileCount ? sWork[padded(stagedPosition(r, i))] : 0u;
  }
  barrier();
  stageRound(r, tileCount, 0u, hi, hi, false);
  barrier();
}

// After sDigitBase holds (global start - local start) per digit and a
// barrier: writes the sorted keys out, round by round (the last pass maps
// them back to keys). SHARED_PASSES writes only in the last pass; the others
// leave the tile in sWork for the next. `pass` picks the digit, and the
// buffer where a dispatch runs several passes.
void writeKeys(uint pass, uint tileCount) {
  if (SHARED_PASSES && pass + 1u != pc.passes) return;
  [[unroll]] for (uint r = 0; r < ROUNDS; ++r) {
    if (r != 0u) {  // sortTileLocally staged round 0
      barrier();
      stageRound(r, tileCount, 0u, gKeysLo, gKeysHi, KEY_WORDS == 2 && !SPLIT_WORDS);
      barrier();
    }
    uint lo[KEYS_PER_THREAD];
    if (KEY_WORDS == 2 && SPLIT_WORDS) stageHighWords(r, tileCount, lo, gKeysHi);
    [[unroll]] for (uint j = 0; j < ROUND_ITEMS; ++j) {
      const uint i = r * ROUND_ITEMS + j;
      if (i >= KEYS_PER_THREAD) continue;
      const uint p = sortedPosition(i), s = stagedPosition(r, i);
      gDst[i] = 0u;
      if (p < tileCount) {
        uvec2 k = uvec2(sWork[padded(s)], 0u);
        if (KEY_WORDS == 2) k = SPLIT_WORDS ? uvec2(lo[i], k.x) : uvec2(k.x, sWork[padded(ROUND_KEYS + s)]);
        gDst[i] = sDigitBase[digitOf(k, pass)] + p;
        // pc.storeXor is zero before the last dispatch; PASSES_IN_DISPATCH
        // checks the pass, as do segmented sorts, whose pass 0 maps the keys
        // of split segments back (it sorts by the last pass's digit:
        // onesweep.comp).
        if (inSegment(gDst[i]))
          storeItemWords(KEY_WORDS, keysOut(pass), gDst[i],
                         (PASSES_IN_DISPATCH || SEGMENT_TILES) && pass + 1u != pc.passes ? k : fromSortBits(k));
      }
    }
  }
}

// After writeKeys: the values follow through the same shared memory with the
// same ranks, round by round.
void writeValues(uint pass, uint tileCount) {
  if (VALUE_WORDS == 0) return;
  [[unroll]] for (uint r = 0; r < ROUNDS; ++r) {
    barrier();
    stageRound(r, tileCount, VALUE_BASE, gValuesLo, gValuesHi, VALUE_WORDS == 2 && !SPLIT_WORDS);
    barrier();
    if (SHARED_PASSES && pass + 1u != pc.passes) return;  // the next pass reads them here
    uint lo[KEYS_PER_THREAD];
    if (VALUE_WORDS == 2 && SPLIT_WORDS) stageHighWords(r, tileCount, lo, gValuesHi);
    [[unroll]] for (uint j = 0; j < ROUND_ITEMS; ++j) {
      const uint i = r * ROUND_ITEMS + j;
      if (i >= KEYS_PER_THREAD) continue;
      const uint p = sortedPosition(i), s = stagedPosition(r, i);
      if (p < tileCount && inSegment(gDst[i])) {
        uvec2 v = uvec2(sWork[padded(VALUE_BASE + s)], 0u);
        if (VALUE_WORDS == 2)
          v = SPLIT_WORDS ? uvec2(lo[i], sWork[padded(s)]) : uvec2(v.x, sWork[padded(VALUE_BASE + ROUND_KEYS + s)]);
        storeItemWords(VALUE_WORDS, valuesOut(pass), gDst[i], v);
      }
    }
  }
}

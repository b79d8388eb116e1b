// vksort reorder kernel: one dispatch per 8-bit digit pass (Onesweep, seed 000).
//
// A workgroup sorts one tile of WG_SIZE * KEYS_PER_THREAD keys (and their
// values, if any):
//  1. takes its tile number from an atomic counter (never gl_WorkGroupID:
//     launch order is not promised, and a tile only waits on lower tiles),
//     and waits until its status-ring slot is free;
//  2. ranks its keys within each subgroup by ballots on the digit bits
//     (warp-level multisplit), keeping one digit histogram per subgroup so
//     the rank is stable without ordering atomics between subgroups;
//  3. publishes its per-digit counts, then scans them into local digit starts;
//  4. sorts the tile locally in shared memory;
//  5. looks back over the ring for each digit's global position (with a
//     fallback that counts a missing tile's digits itself, so no wait is
//     unbounded: see status_ring.glsl);
//  6. writes the locally sorted keys out: neighbouring invocations write
//     neighbouring addresses within a digit, so the scatter is coalesced.
//     Values follow through the same shared memory with the same ranks.
//
// Key types, values, order and bit range are specialization constants and
// push constants of this one shader (see common.glsl for the key mapping).
#version 460
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG_SIZE = 512;
layout(constant_id = 1) const uint SG_SIZE = 32;
layout(constant_id = 2) const uint KEYS_PER_THREAD = 15;
layout(constant_id = 3) const uint RING_SLOTS = 768;
layout(constant_id = 4) const uint LOOKBACK = 32;
layout(constant_id = 5) const uint TAIL_BITS = 5;
layout(constant_id = 6) const bool STATUS_RMW = false;
// Polling rounds an invocation may spend waiting per dispatch (status_ring.glsl).
layout(constant_id = 7) const uint SPIN_BUDGET = 16384;
// Fault injection for tests: largest extra delay before a tile publishes.
layout(constant_id = 8) const uint PUBLISH_DELAY = 0;
layout(constant_id = 9) const uint KEY_WORDS = 1;    // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = 10) const uint KEY_KIND = 0;    // KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = 11) const uint VALUE_WORDS = 0; // 0: keys only, 1: 32-bit values, 2: 64-bit values
layout(constant_id = 12) const bool VALUE_INDEX = false;  // argsort: pass 0 makes value = input index
// The small-N path: one workgroup sorts all keys (count <= one tile), every
// pass in one dispatch, ping-ponging through the caller's buffers with a
// workgroup barrier between passes. No histogram kernel, no status ring.
layout(constant_id = 13) const bool SINGLE_TILE = false;
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

const uint TILE = WG_SIZE * KEYS_PER_THREAD;

// This pass's input and output: the push constants name them, except in
// SINGLE_TILE mode, where pass p reads buffer p % 2 (keys, alt) and writes the
// other one.
uint64_t keysIn(uint pass) { return SINGLE_TILE && pass % 2u == 1u ? pc.keysOut : pc.keysIn; }
uint64_t keysOut(uint pass) { return SINGLE_TILE && pass % 2u == 1u ? pc.keysIn : pc.keysOut; }
uint64_t valuesIn(uint pass) { return SINGLE_TILE && pass % 2u == 1u ? pc.valuesOut : pc.valuesIn; }
uint64_t valuesOut(uint pass) { return SINGLE_TILE && pass % 2u == 1u ? pc.valuesIn : pc.valuesOut; }

// The key at `index` of this pass's input, as sort bits (pass 0 maps them:
// pc.loadXor is zero in later dispatches; SINGLE_TILE checks the pass).
uvec2 loadKey(uint pass, uint index) {
  const uvec2 k = loadKeyWords(keysIn(pass), index);
  return SINGLE_TILE && pass != 0u ? k : toSortBits(k);
}
uint loadKeyDigit(uint pass, uint index) { return digitOf(loadKey(pass, index), pass); }

#include "status_ring.glsl"

const uint SG_KEYS = SG_SIZE * KEYS_PER_THREAD;
const uint HIST_WORDS = NUM_SUBGROUPS * VKSORT_RADIX;
const uint ITEM_WORDS = KEY_WORDS > VALUE_WORDS ? KEY_WORDS : VALUE_WORDS;
const uint WORK_WORDS = TILE * ITEM_WORDS > HIST_WORDS ? TILE * ITEM_WORDS : HIST_WORDS;

// First the per-subgroup digit histograms, then (after their prefixes are in
// registers) the locally sorted keys of the tile, then its values. A 64-bit
// item keeps its low words in [0, TILE) and its high words in [TILE, 2 TILE).
shared uint sWork[WORK_WORDS];
// Per digit: the tile's count, then (global start - local start).
shared uint sDigitBase[VKSORT_RADIX];
shared uint sTile;

void sortTile(uint pass) {
  const uint tid = gl_LocalInvocationIndex;
  const uint lane = gl_SubgroupInvocationID;
  const uint sg = gl_SubgroupID;
  const uint count = sortCount();

  if (SINGLE_TILE) {
    if (tid == 0) sTile = 0u;
  } else if (tid == 0) {
    const uint t = atomicAdd(counters().v[VKSORT_CTR_TILE(pass)], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                             gl_SemanticsRelaxed);
    // With an indirect count, workgroups past the last tile leave at once.
    if (t * TILE < count) waitForRingSlot(pass, t);
    sTile = t;
    sLookMissing[0] = 0u;
  }
  for (uint i = tid; i < HIST_WORDS; i += WG_SIZE) sWork[i] = 0u;
  barrierAll();
  const uint tile = sTile;
  const uint tileStart = tile * TILE;
  if (tileStart >= count) return;  // past an indirect count (uniform: tile is shared)
  const uint tileCount = min(TILE, count - tileStart);

  // Keys are read in subgroup-contiguous runs: key i of this invocation is
  // tile element sgBase + i * SG_SIZE + lane. Ranking in that order keeps
  // the sort stable.
  const uint sgBase = sg * SG_KEYS;
  // Low and high words in separate arrays, so that 32-bit keys and values
  // cost one register each (the high words are dead code then).
  uint keysLo[KEYS_PER_THREAD], keysHi[KEYS_PER_THREAD];
  uint valuesLo[KEYS_PER_THREAD], valuesHi[KEYS_PER_THREAD];
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint idx = sgBase + i * SG_SIZE + lane;
    uvec2 k = uvec2(0u), v = uvec2(0u);
    if (idx < tileCount) {
      k = loadKey(pass, tileStart + idx);
      if (VALUE_INDEX && pass == 0u)
        v.x = tileStart + idx;
      else if (VALUE_WORDS == 1)
        v.x = U32Buf(valuesIn(pass)).v[tileStart + idx];
      else if (VALUE_WORDS == 2)
        v = U32x2Buf(valuesIn(pass)).v[tileStart + idx];
    }
    keysLo[i] = k.x;
    keysHi[i] = k.y;
    valuesLo[i] = v.x;
    valuesHi[i] = v.y;
  }

  // Warp-level multisplit: the lanes holding the same digit ("peers") are
  // found with one ballot per digit bit. The highest peer adds the group's
  // size to this subgroup's histogram and shuffles the old value to the
  // others. Subgroups of up to 32 lanes use one 32-bit mask word; larger ones
  // use the full uvec4 ballot.
  uint offs[KEYS_PER_THREAD];
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const bool valid = sgBase + i * SG_SIZE + lane < tileCount;
    const uint d = digitOf(uvec2(keysLo[i], keysHi[i]), pass);
    uint rank, peerCount, leader;
    if (SG_SIZE <= 32) {
      uint peers = subgroupBallot(valid).x;
      for (uint b = 0; b < VKSORT_RADIX_BITS; ++b) {
        const bool bit = ((d >> b) & 1u) != 0u;
        const uint bal = subgroupBallot(bit).x;
        peers &= bit ? bal : ~bal;
      }
      rank = bitCount(peers & gl_SubgroupLtMask.x);
      peerCount = bitCount(peers);
      leader = uint(findMSB(peers));
    } else {
      uvec4 peers = subgroupBallot(valid);
      for (uint b = 0; b < VKSORT_RADIX_BITS; ++b) {
        const bool bit = ((d >> b) & 1u) != 0u;
        const uvec4 bal = subgroupBallot(bit);
        peers &= bit ? bal : ~bal;
      }
      rank = subgroupBallotExclusiveBitCount(peers);
      peerCount = subgroupBallotBitCount(peers);
      leader = subgroupBallotFindMSB(peers);
    }
    uint old = 0u;
    if (valid && leader == lane) old = atomicAdd(sWork[sg * VKSORT_RADIX + d], peerCount);
    old = subgroupShuffle(old, valid ? leader : lane);
    offs[i] = old + rank;
  }
  barrier();

  // Per digit: exclusive prefix over the subgroups, the tile's count, and
  // its publication (tile 0 publishes an inclusive prefix right away: the
  // digit's global start, from the histogram kernel, plus its count).
  U32Buf globalStart = tempU32();
  injectDelay(tile);
  for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) {
    uint sum = 0u;
    for (uint w = 0; w < NUM_SUBGROUPS; ++w) {
      const uint t = sWork[w * VKSORT_RADIX + d];
      sWork[w * VKSORT_RADIX + d] = sum;
      sum += t;
    }
    sScan[d] = sum;
    sDigitBase[d] = sum;
    if (SINGLE_TILE)
      ;  // nobody looks back
    else if (tile == 0u)
      publishStatus(pass, tile, d, globalStart.v[pass * VKSORT_RADIX + d] + sum, true);
    else
      publishStatus(pass, tile, d, sum, false);
  }
  barrier();
  scan256Exclusive();  // sScan: local start of each digit in the tile

  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint d = digitOf(uvec2(keysLo[i], keysHi[i]), pass);
    offs[i] += sWork[sg * VKSORT_RADIX + d] + sScan[d];
  }
  barrier();
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    if (sgBase + i * SG_SIZE + lane < tileCount) {
      sWork[offs[i]] = keysLo[i];
      if (KEY_WORDS == 2) sWork[TILE + offs[i]] = keysHi[i];
    }
  }

  if (!SINGLE_TILE && tile != 0u) lookBack(pass, tile, globalStart);
  injectDelay(tile);
  for (uint d = tid; d < VKSORT_RADIX; d += WG_SIZE) {
    uint prefix;
    if (SINGLE_TILE) {
      prefix = sScan[d];  // the only tile: local starts are global starts
    } else if (tile == 0u) {
      prefix = globalStart.v[pass * VKSORT_RADIX + d];
    } else {
      prefix = sLookPrefix[d];
      publishStatus(pass, tile, d, prefix + sDigitBase[d], true);
    }
    sDigitBase[d] = prefix - sScan[d];
  }
  barrierAll();

  uint dst[KEYS_PER_THREAD];
  for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
    const uint p = tid + i * WG_SIZE;
    dst[i] = 0u;
    if (p < tileCount) {
      uvec2 k = uvec2(sWork[p], 0u);
      if (KEY_WORDS == 2) k.y = sWork[TILE + p];
      dst[i] = sDigitBase[digitOf(k, pass)] + p;
      // pc.storeXor is zero before the last dispatch; SINGLE_TILE checks the pass.
      storeKeyWords(keysOut(pass), dst[i], SINGLE_TILE && pass + 1u != pc.passes ? k : fromSortBits(k));
    }
  }

  if (VALUE_WORDS > 0) {
    barrier();
    for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
      if (sgBase + i * SG_SIZE + lane < tileCount) {
        sWork[offs[i]] = valuesLo[i];
        if (VALUE_WORDS == 2) sWork[TILE + offs[i]] = valuesHi[i];
      }
    }
    barrier();
    for (uint i = 0; i < KEYS_PER_THREAD; ++i) {
      const uint p = tid + i * WG_SIZE;
      if (p < tileCount) {
        if (VALUE_WORDS == 1)
          U32Buf(valuesOut(pass)).v[dst[i]] = sWork[p];
        else
          U32x2Buf(valuesOut(pass)).v[dst[i]] = uvec2(sWork[p], sWork[TILE + p]);
      }
    }
  }
  if (!SINGLE_TILE && tid == 0) retireTile(pass, tile);
}

void main() {
  if (!SINGLE_TILE) {
    sortTile(pc.pass);
    return;
  }
  for (uint pass = 0; pass < pc.passes; ++pass) {
    sortTile(pass);
    barrierAll();  // this pass's writes are the next pass's reads
  }
}

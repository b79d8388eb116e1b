// vksort tiny-N kernel: one workgroup sorts up to CAPACITY keys (a power of
// two, WG_SIZE x ITEMS) in one dispatch with a bitonic sorting network.
//
// Every key is sorted together with its input index, and pairs compare by
// (key bits in [beginBit, endBit), index): no two elements are equal, so the
// network, which is not stable by itself, gives the stable order. Slots past
// the count hold all-ones keys and indices >= count, so they sort last.
//
// Element i of the network is item e of invocation t, i = e WG_SIZE + t, with
// t the invocation's place in subgroup order (gl_SubgroupID SG_SIZE + lane),
// so that partners less than SG_SIZE apart are in the same subgroup:
//  - steps with a distance j < SG_SIZE exchange through subgroup shuffles;
//  - steps with j >= SG_SIZE go through shared memory, one barrier each.
// For 1,024 keys and 32-lane subgroups that is 15 barriers for 55 steps;
// the radix sort's one-workgroup path needs about 30 for its 4 passes.
//
// Keys and values are read once and written once: the output goes to the
// buffer that the pass count names (pc.keysOut, pc.valuesOut: keys or alt),
// which may be the input buffer itself; every read of the input is done
// before the workgroup's last barrier, and every write comes after it.
#version 460
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG_SIZE = 1024;
layout(constant_id = 1) const uint SG_SIZE = 32;
layout(constant_id = 2) const uint ITEMS = 1;            // elements per invocation
layout(constant_id = 3) const uint KEY_WORDS = 1;        // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = 4) const uint KEY_KIND = 0;         // KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = 5) const uint VALUE_WORDS = 0;      // 0: keys only, 1: 32-bit values, 2: 64-bit values
layout(constant_id = 6) const bool VALUE_INDEX = false;  // argsort: value = input index
#define RADIX_BITS VKSORT_RADIX_BITS                     // unused here; common.glsl wants it
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

const uint CAPACITY = WG_SIZE * ITEMS;

// The network's elements while a run of steps goes through shared memory:
// sort bits (low, high) and input index.
shared uint sLo[CAPACITY];
shared uint sHi[KEY_WORDS == 2 ? CAPACITY : 1];
shared uint sIndex[CAPACITY];

// This invocation's elements: sort bits and input index.
uint gLo[ITEMS], gHi[ITEMS], gIndex[ITEMS];

// The masks of the sorted bit range, per key word (uniform).
uvec2 rangeMask() {
  const uint64_t below = pc.endBit >= 64u ? ~0ul : (1ul << pc.endBit) - 1ul;
  const uint64_t m = below & ~((1ul << pc.beginBit) - 1ul);
  return uvec2(uint(m), uint(m >> 32));
}

// Whether element a goes after element b.
bool after(uint aLo, uint aHi, uint aIndex, uint bLo, uint bHi, uint bIndex, uvec2 mask) {
  aLo &= mask.x;
  bLo &= mask.x;
  if (KEY_WORDS == 2) {
    aHi &= mask.y;
    bHi &= mask.y;
    if (aHi != bHi) return aHi > bHi;
  }
  if (aLo != bLo) return aLo > bLo;
  return aIndex > bIndex;
}

void main() {
  const uint t = gl_SubgroupID * SG_SIZE + gl_SubgroupInvocationID;
  const uint count = sortCount();
  const uvec2 mask = rangeMask();
  // The network sorts the first `size` elements: count rounded up to a
  // power of two. Items wholly past it take no part.
  const uint size = count <= 1u ? 1u : 1u << (findMSB(count - 1u) + 1);

  [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
    const uint i = e * WG_SIZE + t;
    uvec2 k = uvec2(~0u);
    if (i < count) k = toSortBits(loadKeyWords(pc.keysIn, i));
    gLo[e] = k.x;
    gHi[e] = k.y;
    gIndex[e] = i;
  }

  for (uint k = 2u; k <= size; k <<= 1) {
    if (k / 2u >= SG_SIZE) {
      [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
        const uint i = e * WG_SIZE + t;
        if (e * WG_SIZE >= size) break;
        sLo[i] = gLo[e];
        if (KEY_WORDS == 2) sHi[i] = gHi[e];
        sIndex[i] = gIndex[e];
      }
      barrier();
      for (uint j = k / 2u; j >= SG_SIZE; j >>= 1) {
        // Pair q: elements i (bit j clear) and i + j. The same turns in
        // every invocation (see tile_sort.glsl).
        for (uint base = 0; base < size / 2u; base += WG_SIZE) {
          const uint q = base + t;
          if (q < size / 2u) {
            const uint i = ((q & ~(j - 1u)) << 1) | (q & (j - 1u));
            const uint l = i + j;
            const uint aLo = sLo[i], bLo = sLo[l];
            const uint aHi = KEY_WORDS == 2 ? sHi[i] : 0u, bHi = KEY_WORDS == 2 ? sHi[l] : 0u;
            const uint aIndex = sIndex[i], bIndex = sIndex[l];
            // Ascending where bit k of i is clear.
            if (after(aLo, aHi, aIndex, bLo, bHi, bIndex, mask) == ((i & k) == 0u)) {
              sLo[i] = bLo;
              sLo[l] = aLo;
              if (KEY_WORDS == 2) {
                sHi[i] = bHi;
                sHi[l] = aHi;
              }
              sIndex[i] = bIndex;
              sIndex[l] = aIndex;
            }
          }
        }
        barrier();
      }
      [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
        const uint i = e * WG_SIZE + t;
        if (e * WG_SIZE >= size) break;
        gLo[e] = sLo[i];
        if (KEY_WORDS == 2) gHi[e] = sHi[i];
        gIndex[e] = sIndex[i];
      }
      // The next writes to sLo go to this invocation's own elements, which
      // no other invocation reads before the next barrier.
    }
    for (uint j = min(k / 2u, SG_SIZE / 2u); j > 0u; j >>= 1) {
      [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
        const uint i = e * WG_SIZE + t;
        if (e * WG_SIZE >= size) break;
        const uint pLo = subgroupShuffleXor(gLo[e], j);
        const uint pHi = KEY_WORDS == 2 ? subgroupShuffleXor(gHi[e], j) : 0u;
        const uint pIndex = subgroupShuffleXor(gIndex[e], j);
        // The lower element of a pair keeps the smaller one where the run
        // ascends (bit k of i clear), the larger one where it descends.
        const bool keepSmaller = ((i & j) == 0u) == ((i & k) == 0u);
        if (after(gLo[e], gHi[e], gIndex[e], pLo, pHi, pIndex, mask) == keepSmaller) {
          gLo[e] = pLo;
          gHi[e] = pHi;
          gIndex[e] = pIndex;
        }
      }
    }
  }

  // Element i is output position i. Read what goes there (the key maps back
  // from its sort bits; values by input index), then write once every
  // invocation has read: the output may be the input buffer.
  uvec2 keys[ITEMS], values[ITEMS];
  [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
    keys[e] = fromSortBits(uvec2(gLo[e], gHi[e]));
    values[e] = uvec2(0u);
    if (e * WG_SIZE + t < count) {
      if (VALUE_INDEX)
        values[e].x = gIndex[e];
      else if (VALUE_WORDS == 1)
        values[e].x = U32Buf(pc.valuesIn).v[gIndex[e]];
      else if (VALUE_WORDS == 2)
        values[e] = U32x2Buf(pc.valuesIn).v[gIndex[e]];
    }
  }
  barrierAll();
  [[unroll]] for (uint e = 0; e < ITEMS; ++e) {
    const uint i = e * WG_SIZE + t;
    if (i < count) {
      storeKeyWords(pc.keysOut, i, keys[e]);
      if (VALUE_WORDS == 1)
        U32Buf(pc.valuesOut).v[i] = values[e].x;
      else if (VALUE_WORDS == 2)
        U32x2Buf(pc.valuesOut).v[i] = values[e];
    }
  }
}

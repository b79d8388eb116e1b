// vksort bitonic kernel (the bitonic and bitonic keys-only paths): one
// workgroup sorts up to CAPACITY keys (a power of two, WG_SIZE x
// KEYS_PER_THREAD) in one dispatch with a bitonic sorting network.
//
// Every key is sorted together with its input index, and pairs compare by
// (key bits in [beginBit, endBit), index): no two elements are equal, so the
// network, which is not stable by itself, gives the stable order. The
// network carries only the masked sort bits and the index (for 32-bit keys
// one 64-bit compare, where the kernel is built with 64-bit integers); the
// output reads each key and value back by index.
// Slots past the count hold all-ones keys and indices >= count, so they
// sort last.
//
// With NO_INDEX (keys-only sorts of every key bit) the network carries the
// sort bits alone: equal sort bits are then equal keys, whose order cannot
// be seen, and the output maps the sort bits back to keys instead of
// reading them by index. Half the shuffles and shared memory, and a 32-bit
// compare for 32-bit keys.
//
// Element i of the network is item e of invocation t, i = t KEYS_PER_THREAD + e, with
// t the invocation's place in subgroup order (gl_SubgroupID SG_SIZE + lane),
// so that each step's partners, i and i ^ j, are as close as they can be:
//  - j < KEYS_PER_THREAD: in the same invocation, compared in registers;
//  - j < KEYS_PER_THREAD SG_SIZE: in the same subgroup, exchanged by shuffles;
//  - larger j go through shared memory, two steps per barrier where two
//    such steps follow each other.
// For 1,024 keys in 512 invocations of 32-lane subgroups that is 10 steps in
// registers, 35 with shuffles and 10 through shared memory with 6 barriers,
// for the network's 55.
//
// Segmented sorts (SEGMENTED) run the same network per segment, over the
// segments that segment_bins.comp listed in their class (SEGMENT_CLASS):
// VKSORT_SEGMENTED_WORKGROUP sorts one small segment per workgroup (and
// leaves the medium segments of the small class's list to onesweep.comp);
// VKSORT_SEGMENTED_LANES one segment per group of LANES lanes (micro: 1,
// tiny: 8, half-subgroup: half the subgroup, subgroup: the whole
// subgroup), with a network of LANES x
// KEYS_PER_THREAD elements that never leaves the lanes (registers and
// shuffles only, no shared memory), so that a subgroup sorts SG_SIZE / LANES
// segments at once. Indices are then within the segment; argsort writes the
// position in the whole keys range.
//
// Keys and values are read once (keys twice: the second time by index, for
// the output) and written once: the output goes to the buffer that the pass
// count names (pc.keysOut, pc.valuesOut: keys or alt), which may be the
// input buffer itself; every read of the input is done before the
// workgroup's last barrier, and every write comes after it.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 1024;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEYS_PER_THREAD) const uint KEYS_PER_THREAD = 1;  // elements per invocation
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;        // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;         // VKSORT_KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = VKSORT_SC_VALUE_WORDS) const uint VALUE_WORDS = 0;      // 0: keys only, 1: 32-bit values, 2: 64-bit values
layout(constant_id = VKSORT_SC_VALUE_INDEX) const bool VALUE_INDEX = false;  // argsort: value = input index
// Keys only, every key bit sorted: equal sort bits are equal keys, so their
// order cannot be seen and the network carries no index; the output is the
// sort bits mapped back to keys (the dispatcher's choice per sort).
layout(constant_id = VKSORT_SC_NO_INDEX) const bool NO_INDEX = false;
// Segmented sorts: VKSORT_SEGMENTED_NONE, _LANES or _WORKGROUP; the class
// (VKSORT_SEGMENT_CLASS_*) and, for _LANES, the lanes per segment.
layout(constant_id = VKSORT_SC_SEGMENTED) const uint SEGMENTED = VKSORT_SEGMENTED_NONE;
layout(constant_id = VKSORT_SC_SEGMENT_CLASS) const uint SEGMENT_CLASS = VKSORT_SEGMENT_CLASS_SMALL;
layout(constant_id = VKSORT_SC_SEGMENT_LANES) const uint LANES = 1;
// Segmented sorts: what precedes the segments' area in temp (segments.glsl).
layout(constant_id = VKSORT_SC_RADIX_BITS) const uint TABLE_RADIX_BITS = 8;
layout(constant_id = VKSORT_SC_RING_SLOTS) const uint SEGMENT_RING_SLOTS = 0;
#define RADIX_BITS VKSORT_RADIX_BITS                     // unused here; common.glsl wants it
#include "common.glsl"
#include "segments.glsl"

// Networks that never leave a group of lanes: no shared memory, no barrier.
const bool IN_SUBGROUP = SEGMENTED == VKSORT_SEGMENTED_LANES;
// The network's elements: the workgroup's, or each group of lanes'.
const uint CAPACITY = (IN_SUBGROUP ? LANES : WG_SIZE) * KEYS_PER_THREAD;
// Partners less than this far apart are in the same subgroup.
const uint SHUFFLE_SPAN = KEYS_PER_THREAD * SG_SIZE;
// Elements in shared memory (none with IN_SUBGROUP: CAPACITY is then at most
// SHUFFLE_SPAN, and no step goes through shared memory).
const uint SHARED_ELEMENTS = IN_SUBGROUP ? 1u : CAPACITY;

// The network's elements while a run of steps goes through shared memory:
// sort bits (low, high) and input index.
shared uint sLo[SHARED_ELEMENTS];
shared uint sHi[KEY_WORDS == 2 ? SHARED_ELEMENTS : 1];
shared uint sIndex[NO_INDEX ? 1 : SHARED_ELEMENTS];

// This invocation's elements: sort bits and input index.
uint gLo[KEYS_PER_THREAD], gHi[KEYS_PER_THREAD], gIndex[KEYS_PER_THREAD];

// Segments of groups of lanes (IN_SUBGROUP) with STAGE: their keys and
// values go in and out through shared memory, one word of each element at a
// time, so that the subgroup reads and writes each group's segment as one
// run rather than each lane its own elements, KEYS_PER_THREAD apart
// (LANES = 1: a segment apart). Group g of a subgroup has slots
// [g CAPACITY, (g + 1) CAPACITY) of the subgroup's SG_SIZE x KEYS_PER_THREAD,
// one per element; a word of padding every 32 slots keeps lanes that read
// their own elements off each other's banks. The host turns it on where the
// workgroup's slots fit in shared memory (segmentStageBytes).
layout(constant_id = VKSORT_SC_SEGMENT_STAGE) const bool STAGE = false;
const uint STAGE_SLOTS = SG_SIZE * KEYS_PER_THREAD;
const uint STAGE_WORDS = STAGE_SLOTS + STAGE_SLOTS / 32u;
shared uint sStage[STAGE ? NUM_SUBGROUPS * STAGE_WORDS : 1];

uint stageWord(uint slot) { return gl_SubgroupID * STAGE_WORDS + slot + slot / 32u; }

// This lane's group's slot of element i of its segment.
uint stageSlot(uint i) { return (gl_SubgroupInvocationID / LANES) * CAPACITY + i; }

// Word w of each element (words: the element's words in memory) of every
// segment of the subgroup's groups (this lane's: its first element and key
// count), from `base` into its slot. Then the subgroup's lanes may read
// any slot. Called by the whole subgroup.
void stageIn(Address base, uint words, uint w, uint first, uint count) {
  [[unroll]] for (uint r = 0; r < KEYS_PER_THREAD; ++r) {
    const uint slot = r * SG_SIZE + gl_SubgroupInvocationID;
    const uint lead = (slot / CAPACITY) * LANES;  // the lane that leads the slot's group
    const uint groupFirst = subgroupShuffle(first, lead), groupCount = subgroupShuffle(count, lead);
    if (slot % CAPACITY < groupCount) sStage[stageWord(slot)] = U32Buf(base).v[(groupFirst + slot % CAPACITY) * words + w];
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

// The reverse of stageIn: word w of each slot's element to `base`, once
// every lane of the subgroup has written its slots. Then the subgroup's
// lanes may write any slot.
void stageOut(Address base, uint words, uint w, uint first, uint count) {
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  [[unroll]] for (uint r = 0; r < KEYS_PER_THREAD; ++r) {
    const uint slot = r * SG_SIZE + gl_SubgroupInvocationID;
    const uint lead = (slot / CAPACITY) * LANES;
    const uint groupFirst = subgroupShuffle(first, lead), groupCount = subgroupShuffle(count, lead);
    if (slot % CAPACITY < groupCount) U32Buf(base).v[(groupFirst + slot % CAPACITY) * words + w] = sStage[stageWord(slot)];
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

// Word w of this lane's output elements: `words[e]` goes to element
// t KEYS_PER_THREAD + e of its segment, through its slot.
void stageOutput(Address base, uint elementWords, uint w, uint first, uint count, uint t, uint words[KEYS_PER_THREAD]) {
  subgroupMemoryBarrierShared();
  subgroupBarrier();  // every lane has read the slots it gathers from
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    const uint i = t * KEYS_PER_THREAD + e;
    if (i < count) sStage[stageWord(stageSlot(i))] = words[e];
  }
  stageOut(base, elementWords, w, first, count);
}

// Bits [0, n) of a 64-bit value as (low, high) words, n <= 64.
uvec2 wordMask(uint n) {
  return uvec2(n >= 32u ? ~0u : (1u << n) - 1u, n >= 64u ? ~0u : n <= 32u ? 0u : (1u << (n - 32u)) - 1u);
}

// The masks of the sorted bit range, per key word (uniform).
uvec2 rangeMask() { return wordMask(pc.endBit) & ~wordMask(pc.beginBit); }

// (aHigh, aLow) > (bHigh, bLow) as unsigned 64-bit numbers: one 64-bit
// compare where the kernel may use 64-bit integers, else in 32-bit words.
bool greater64(uint aHigh, uint aLow, uint bHigh, uint bLow) {
#ifdef VKSORT_ONESWEEP_FEATURES
  return packUint2x32(uvec2(aLow, aHigh)) > packUint2x32(uvec2(bLow, bHigh));
#else
  return aHigh > bHigh || (aHigh == bHigh && aLow > bLow);
#endif
}

// Whether element a goes after element b (sort bits already masked to the
// bit range). oneWord: the element is one word (packed: see main).
bool after(uint aLo, uint aHi, uint aIndex, uint bLo, uint bHi, uint bIndex, bool oneWord) {
  if ((NO_INDEX || oneWord) && KEY_WORDS == 1) return aLo > bLo;
  if (NO_INDEX) return greater64(aHi, aLo, bHi, bLo);
  if (KEY_WORDS == 2 && aHi != bHi) return aHi > bHi;
  return greater64(aLo, aIndex, bLo, bIndex);
}

// One element of the network in shared memory.
struct Element {
  uint lo, hi, index;
};

Element sharedElement(uint i) { return Element(sLo[i], KEY_WORDS == 2 ? sHi[i] : 0u, NO_INDEX ? 0u : sIndex[i]); }

void storeShared(uint i, Element x) {
  sLo[i] = x.lo;
  if (KEY_WORDS == 2) sHi[i] = x.hi;
  if (!NO_INDEX) sIndex[i] = x.index;
}

// Puts the smaller element first where ascending, the larger one where not.
void order(inout Element a, inout Element b, bool ascending) {
  if (after(a.lo, a.hi, a.index, b.lo, b.hi, b.index, false) == ascending) {
    const Element x = a;
    a = b;
    b = x;
  }
}

// One step of the network whose partners are items e and e + j of the
// same invocation (j < KEYS_PER_THREAD, a constant at each call so that the items
// stay in registers).
void registerStep(uint j, uint k, uint t, bool oneWord) {
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    if ((e & j) != 0u) continue;
    const uint i = t * KEYS_PER_THREAD + e;
    if (after(gLo[e], gHi[e], gIndex[e], gLo[e + j], gHi[e + j], gIndex[e + j], oneWord) == ((i & k) == 0u)) {
      const uint lo = gLo[e], hi = gHi[e], index = gIndex[e];
      gLo[e] = gLo[e + j];
      gHi[e] = gHi[e + j];
      gIndex[e] = gIndex[e + j];
      gLo[e + j] = lo;
      gHi[e + j] = hi;
      gIndex[e + j] = index;
    }
  }
}

// The network over the first `size` elements of gLo, gHi and gIndex (t:
// this invocation's place in it). oneWord: each element is its lo word
// alone (a constant at each call, so that the driver compiles the network
// once for each).
void sortNetwork(uint size, uint t, bool oneWord) {
  // The loops over stages and steps run to constants (CAPACITY, k), so that
  // the driver can unroll the whole network, with every shuffle distance,
  // partner and direction mask a constant. Stages past `size` are skipped.
  [[unroll]] for (uint k = 2u; k <= CAPACITY; k <<= 1) {
    if (k > size) break;  // uniform (IN_SUBGROUP: in the subgroup, see size)
    // (IN_SUBGROUP first, so that the block and its barriers are gone
    // before the loop is unrolled: lavapipe stops a subgroup's network at a
    // barrier in a loop that other subgroups have left.)
    if (!IN_SUBGROUP && k / 2u >= SHUFFLE_SPAN) {
      [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
        const uint i = t * KEYS_PER_THREAD + e;
        sLo[i] = gLo[e];
        if (KEY_WORDS == 2) sHi[i] = gHi[e];
        if (!NO_INDEX) sIndex[i] = gIndex[e];
      }
      barrier();
      // Two steps per barrier: quad r holds elements i, i + h, i + j and
      // i + j + h (h = j / 2), which steps j and h pair only among
      // themselves. The same turns in every invocation (see tile_sort.glsl).
      uint j = k / 2u;
      [[unroll]] for (; j >= 2u * SHUFFLE_SPAN; j >>= 2) {
        const uint h = j / 2u;
        [[unroll]] for (uint base = 0; base < CAPACITY / 4u; base += WG_SIZE) {
          const uint r = base + t;
          if (r < size / 4u) {
            const uint i = ((r & ~(h - 1u)) << 2) | (r & (h - 1u));
            const bool ascending = (i & k) == 0u;  // bit k of i
            Element e0 = sharedElement(i), e1 = sharedElement(i + h);
            Element e2 = sharedElement(i + j), e3 = sharedElement(i + j + h);
            order(e0, e2, ascending);
            order(e1, e3, ascending);
            order(e0, e1, ascending);
            order(e2, e3, ascending);
            storeShared(i, e0);
            storeShared(i + h, e1);
            storeShared(i + j, e2);
            storeShared(i + j + h, e3);
          }
        }
        barrier();
      }
      if (j >= SHUFFLE_SPAN) {
        [[unroll]] for (uint base = 0; base < CAPACITY / 2u; base += WG_SIZE) {
          const uint q = base + t;
          if (q < size / 2u) {
            const uint i = ((q & ~(j - 1u)) << 1) | (q & (j - 1u));
            Element e0 = sharedElement(i), e1 = sharedElement(i + j);
            order(e0, e1, (i & k) == 0u);
            storeShared(i, e0);
            storeShared(i + j, e1);
          }
        }
        barrier();
      }
      [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
        const uint i = t * KEYS_PER_THREAD + e;
        gLo[e] = sLo[i];
        if (KEY_WORDS == 2) gHi[e] = sHi[i];
        if (!NO_INDEX) gIndex[e] = sIndex[i];
      }
      // The next writes to sLo go to this invocation's own elements, which
      // no other invocation reads before the next barrier.
    }
    // Subgroups whose elements all lie past `size` sit the rest of the stage out.
    if (IN_SUBGROUP || gl_SubgroupID * SHUFFLE_SPAN < size) {
      // Partners in other invocations of the subgroup: element i ^ j is item
      // e of lane ^ (j / KEYS_PER_THREAD).
      [[unroll]] for (uint j = min(k / 2u, SHUFFLE_SPAN / 2u); j >= KEYS_PER_THREAD; j >>= 1) {
        [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
          const uint i = t * KEYS_PER_THREAD + e;
          const uint pLo = subgroupShuffleXor(gLo[e], j / KEYS_PER_THREAD);
          const uint pHi = KEY_WORDS == 2 ? subgroupShuffleXor(gHi[e], j / KEYS_PER_THREAD) : 0u;
          const uint pIndex = NO_INDEX || oneWord ? 0u : subgroupShuffleXor(gIndex[e], j / KEYS_PER_THREAD);
          // The lower element of a pair keeps the smaller one where the run
          // ascends (bit k of i clear), the larger one where it descends.
          const bool keepSmaller = ((i & j) == 0u) == ((i & k) == 0u);
          if (after(gLo[e], gHi[e], gIndex[e], pLo, pHi, pIndex, oneWord) == keepSmaller) {
            gLo[e] = pLo;
            gHi[e] = pHi;
            gIndex[e] = pIndex;
          }
        }
      }
      // Partners in this invocation: items e and e + j.
      if (KEYS_PER_THREAD >= 16u && 8u < k) registerStep(8u, k, t, oneWord);
      if (KEYS_PER_THREAD >= 8u && 4u < k) registerStep(4u, k, t, oneWord);
      if (KEYS_PER_THREAD >= 4u && 2u < k) registerStep(2u, k, t, oneWord);
      if (KEYS_PER_THREAD >= 2u && 1u < k) registerStep(1u, k, t, oneWord);
    }
  }

}

void main() {
  // This invocation's place in the network, the keys' first index and count.
  const uint t = IN_SUBGROUP ? gl_SubgroupInvocationID % LANES : gl_SubgroupID * SG_SIZE + gl_SubgroupInvocationID;
  uint first = 0u, count;
  if (SEGMENTED == VKSORT_SEGMENTED_NONE) {
    count = sortCount();
    // In a Onesweep sort with an indirect count this is the largest kernel
    // of its set, beside the other routes' kernels (live_route.glsl): its
    // capacity is the tuning's bitonicMaxCount (or bitonicKeysMaxCount),
    // up to which the live count's route is this kernel.
    if ((pc.flags & VKSORT_FLAG_LIVE_ROUTE) != 0u && (count == 0u || count > CAPACITY)) return;  // uniform
  } else {
    // The segment: one per group of lanes or per workgroup. Lanes without
    // one sort nothing but stay for the workgroup's barrier at the end.
    const uint i = IN_SUBGROUP ? (segmentGridIndex() * NUM_SUBGROUPS + gl_SubgroupID) * (SG_SIZE / LANES) +
                                     gl_SubgroupInvocationID / LANES
                               : segmentGridIndex();
    const uint listed = segmentHeader().v[segmentClassCount(SEGMENT_CLASS)];
    if (!IN_SUBGROUP && i >= listed) return;  // uniform
    const uvec2 segment = i < listed ? segmentList().v[segmentListIndex(SEGMENT_CLASS, i)] : uvec2(0u);
    first = segment.x;
    count = segment.y - segment.x;
    // The small class's list also holds the medium segments, which
    // onesweep.comp sorts (uniform: one segment per workgroup).
    if (!IN_SUBGROUP && count > WG_SIZE * KEYS_PER_THREAD) return;
  }
  const uvec2 mask = rangeMask();
  // Argsort makes each value its key's input index, but the buckets of split
  // segments (VKSORT_FLAG_BUCKETS) have theirs already: the split pass made
  // them.
  const bool makeIndex = VALUE_INDEX && (pc.flags & VKSORT_FLAG_BUCKETS) == 0u;
  // The network sorts the first `size` elements: count rounded up to a
  // power of two. Elements past it take no part.
  uint size = count <= 1u ? 1u : 1u << (findMSB(count - 1u) + 1);
  // Groups of lanes run the stages of the subgroup's largest segment, so
  // that the subgroup stays uniform (shorter ones carry all-ones padding).
  if (IN_SUBGROUP) size = subgroupMax(size);

  const bool staged = IN_SUBGROUP && STAGE;
  uvec2 k[KEYS_PER_THREAD];
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    const uint i = t * KEYS_PER_THREAD + e;
    k[e] = uvec2(0u);
    if (i < count && !staged) k[e] = loadKeyWords(address(pc.keysIn), first + i);
  }
  if (staged) {
    [[unroll]] for (uint w = 0; w < KEY_WORDS; ++w) {
      if (w != 0u) {  // every lane has read word 0
        subgroupMemoryBarrierShared();
        subgroupBarrier();
      }
      stageIn(address(pc.keysIn), KEY_WORDS, w, first, count);
      [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
        const uint i = t * KEYS_PER_THREAD + e;
        if (i < count) k[e][w] = sStage[stageWord(stageSlot(i))];
      }
    }
  }
  // The buckets of split segments, 32-bit keys with their index: a bucket's
  // keys share their top digit (the last pass's), so the sorted bits below
  // it and the index (below CAPACITY <= 256) fit one word, bits << 8 |
  // index. The network then compares and shuffles one word per element, as
  // for keys alone, and the index is the word's low byte. Padding stays
  // all ones: where there is padding, no index is 255, so it sorts last.
  const uint lowBits = VKSORT_RADIX_BITS * (pc.passes - 1u);  // < 32: buckets have 2 to 4 passes
  const bool oneWord = IN_SUBGROUP && KEY_WORDS == 1 && !NO_INDEX && CAPACITY <= 256u &&
                       (pc.flags & VKSORT_FLAG_BUCKETS) != 0u;  // uniform
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    const uint i = t * KEYS_PER_THREAD + e;
    const uvec2 bits = i < count ? toSortBits(k[e]) & mask : uvec2(~0u);
    gLo[e] = bits.x;
    gHi[e] = bits.y;
    gIndex[e] = i;
    if (oneWord && i < count) gLo[e] = bitfieldExtract(bits.x, int(pc.beginBit), int(lowBits)) << 8 | i;
  }
  if (oneWord) {
    sortNetwork(size, t, true);
    [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) gIndex[e] = gLo[e] & 0xffu;
  } else {
    sortNetwork(size, t, false);
  }
  // Element i is output position i. Read what goes there (key and value by
  // input index: the sort bits were masked), then write once every
  // invocation has read: the output may be the input buffer.
  if (staged) {
    // A word at a time, the keys' last word first: the input stage still
    // holds it. Each word's reads come before its writes, and a word is
    // read before any of it is written, so the output may be the input.
    uint words[KEYS_PER_THREAD];
    [[unroll]] for (uint w = KEY_WORDS; w-- > 0u;) {
      if (!NO_INDEX && w + 1u != KEY_WORDS) stageIn(address(pc.keysIn), KEY_WORDS, w, first, count);
      [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
        const uint i = t * KEYS_PER_THREAD + e;
        words[e] = 0u;
        if (NO_INDEX)
          words[e] = fromSortBits(uvec2(gLo[e], gHi[e]))[w];
        else if (i < count)
          words[e] = sStage[stageWord(stageSlot(gIndex[e]))];
      }
      stageOutput(address(pc.keysOut), KEY_WORDS, w, first, count, t, words);
    }
    [[unroll]] for (uint w = 0; w < VALUE_WORDS; ++w) {
      if (!makeIndex) stageIn(address(pc.valuesIn), VALUE_WORDS, w, first, count);
      [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
        const uint i = t * KEYS_PER_THREAD + e;
        words[e] = 0u;
        if (i < count) words[e] = makeIndex ? first + gIndex[e] : sStage[stageWord(stageSlot(gIndex[e]))];
      }
      stageOutput(address(pc.valuesOut), VALUE_WORDS, w, first, count, t, words);
    }
    return;
  }
  uvec2 keys[KEYS_PER_THREAD], values[KEYS_PER_THREAD];
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    keys[e] = uvec2(0u);
    values[e] = uvec2(0u);
    if (NO_INDEX) {
      keys[e] = fromSortBits(uvec2(gLo[e], gHi[e]));
    } else if (t * KEYS_PER_THREAD + e < count) {
      const uint from = first + gIndex[e];
      keys[e] = loadKeyWords(address(pc.keysIn), from);
      if (makeIndex)
        values[e].x = from;
      else if (VALUE_WORDS == 1)
        values[e].x = U32Buf(address(pc.valuesIn)).v[from];
      else if (VALUE_WORDS == 2)
        values[e] = U32x2Buf(address(pc.valuesIn)).v[from];
    }
  }
  barrierAll();
  [[unroll]] for (uint e = 0; e < KEYS_PER_THREAD; ++e) {
    const uint i = t * KEYS_PER_THREAD + e;
    if (i < count) {
      storeKeyWords(address(pc.keysOut), first + i, keys[e]);
      if (VALUE_WORDS == 1)
        U32Buf(address(pc.valuesOut)).v[first + i] = values[e].x;
      else if (VALUE_WORDS == 2)
        U32x2Buf(address(pc.valuesOut)).v[first + i] = values[e];
    }
  }
}

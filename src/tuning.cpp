// The Config of a sorter: the key and value types, the algorithm, and the
// kernels' shapes for the device (defaults per vendor, the caller's
// overrides, and the checks that keep every shape inside the device's
// limits). docs/tuning.md gives the measurements behind the defaults.
#include <cstring>

#include "internal.h"

namespace vksort {

namespace {
// The words of shared memory that `words` tile words take: tile_sort.glsl
// pads one word after every 32.
uint64_t paddedWords(uint64_t words) { return words + words / 32; }
}  // namespace

// Shared memory of onesweep.comp, in bytes, for a tile shape (mirrors its
// shared declarations: sWork, sDigitBase, sTile, sScan, sScanTotals, and
// the look-back's sLookPrefix, sLookCount, sLookMissing). The portable
// scatter kernel needs less (no look-back, at most as many digits).
// itemWords: the 32-bit words sWork holds per key: the larger of the key and
// value sizes, 1 where 64-bit items are staged a word at a time, or their sum
// where the one-workgroup kernel keeps keys and values there together
// between passes. 64-bit arithmetic: tunings may be absurd.
uint64_t onesweepSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg, uint32_t itemWords) {
  const uint64_t subgroups = wg / sg;
  const uint64_t tile = paddedWords(uint64_t(wg) * kpt * itemWords), hist = subgroups * VKSORT_RADIX;
  return ((tile > hist ? tile : hist) + VKSORT_RADIX + 1 + VKSORT_RADIX + subgroups + 1 + 2 * VKSORT_RADIX + 2) * 4;
}

uint64_t segmentOnesweepExtraSharedBytes(bool medium, uint32_t keyWords) {
  return medium ? uint64_t(4) * keyWords * VKSORT_RADIX * 4 : 4;
}

// Shared memory of portable_scatter.comp, in bytes (mirrors tile_sort.glsl's
// sWork and sDigitBase and common.glsl's scan arrays, with 2^radixBits
// digits); the count and scan kernels need less.
uint64_t portableSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg, uint32_t itemWords, uint32_t radixBits) {
  const uint64_t subgroups = wg / sg, radix = uint64_t(1) << radixBits;
  const uint64_t tile = paddedWords(uint64_t(wg) * kpt * itemWords), hist = subgroups * radix;
  return ((tile > hist ? tile : hist) + 2 * radix + subgroups + 1) * 4;
}

// Shared memory of bitonic.comp, in bytes, for `capacity` keys of keyWords
// words, with or without their indices, and without staging (mirrors its
// shared declarations and common.glsl's scan arrays).
uint64_t bitonicSharedBytes(uint32_t capacity, uint32_t wg, uint32_t sg, uint32_t keyWords, bool index) {
  const uint64_t indexWords = index ? capacity : 1;
  return (uint64_t(capacity) * keyWords + indexWords + (keyWords == 2 ? 0 : 1) + VKSORT_RADIX + wg / sg + 2) * 4;
}

// The shared memory that bitonic.comp's staging of segments of groups of
// lanes (VKSORT_SC_SEGMENT_STAGE) adds, in bytes: per subgroup a word for
// each of its sg x kpt elements, and one more every 32, less the one word
// that bitonicSharedBytes counts.
uint64_t segmentStageBytes(uint32_t wg, uint32_t sg, uint32_t kpt) {
  const uint64_t slots = uint64_t(sg) * kpt;
  return (uint64_t(wg / sg) * (slots + slots / 32) - 1) * 4;
}

namespace {

constexpr uint32_t kHistogramWorkgroupSize = 256;
constexpr uint32_t kScanWorkgroupSize = 256;
constexpr uint32_t kMaxKeysPerThread = 128;
constexpr uint32_t kDefaultSpinBudget = 16384;

VksortResult chooseTypes(const VksortCreateInfo& ci, Config* c) {
  static_assert(sizeof(VksortKeyType) == 4 && sizeof(VksortValueType) == 4, "C enums are 32-bit");
  const uint32_t key = enumValue(&ci.keyType), value = enumValue(&ci.valueType);
  if (key > VKSORT_KEY_F64) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "keyType %u is not a VksortKeyType", key);
  if (value > VKSORT_VALUE_INDEX)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "valueType %u is not a VksortValueType", value);
  c->keyWords = key >= VKSORT_KEY_U64 ? 2 : 1;
  // VksortKeyType runs U32, I32, F32, U64, I64, F64.
  static const uint32_t kinds[3] = {VKSORT_KEY_KIND_UNSIGNED, VKSORT_KEY_KIND_SIGNED, VKSORT_KEY_KIND_FLOAT};
  c->keyKind = kinds[key % 3];
  c->valueWords = value == VKSORT_VALUE_64 ? 2 : value == VKSORT_VALUE_NONE ? 0 : 1;
  c->valueIndex = value == VKSORT_VALUE_INDEX;
  return VKSORT_SUCCESS;
}

// Shared memory of the algorithm's tile kernel (onesweep.comp or
// portable_scatter.comp), staging the sorted tile in `rounds` rounds of
// ceil(kpt / rounds) keys per invocation (tile_sort.glsl).
uint64_t tileSharedBytes(const Config& c, uint32_t wg, uint32_t kpt, uint32_t rounds, uint32_t itemWords) {
  const uint32_t staged = (kpt + rounds - 1) / rounds;
  return c.algorithm == VKSORT_ALGORITHM_PORTABLE
             ? portableSharedBytes(wg, staged, c.subgroupSize, itemWords, c.radixBits)
             : onesweepSharedBytes(wg, staged, c.subgroupSize, itemWords);
}

// The bitonic kernel's workgroup for a capacity: two keys per invocation up
// to 512 invocations, more keys per invocation above. A power of two, at
// most maxWg.
uint32_t bitonicWorkgroup(uint32_t capacity, uint32_t maxWg) {
  uint32_t wg = capacity / 2 < 512 ? capacity / 2 : 512;
  while (wg > maxWg) wg /= 2;
  return wg;
}

// The kernels of one bitonic set for `cap` keys (VKSORT_TUNING_OFF: none):
// the capacity and up to classes - 1 halvings of it, each from twice the
// subgroup size up. Fails, naming the tuning field, unless cap is a power of
// two from twice the subgroup size with at most 16 keys per invocation that
// fit in shared memory (with their indices where `index`).
VksortResult chooseBitonic(const Config& c, const char* field, uint32_t cap, uint32_t classes, bool index,
                           BitonicKernels* k) {
  *k = {};
  if (cap == VKSORT_TUNING_OFF) return VKSORT_SUCCESS;
  const uint32_t sg = c.subgroupSize;
  const bool valid = (cap & (cap - 1)) == 0 && cap >= 2 * sg;
  for (uint32_t i = 0; valid && i < classes; ++i) {
    const uint32_t capacity = cap >> i;
    if (i > 0 && (capacity < 2 * sg || bitonicWorkgroup(capacity, c.maxWorkgroupSize) % c.workgroupGranule != 0)) break;
    k->workgroupSize[i] = bitonicWorkgroup(capacity, c.maxWorkgroupSize);
    k->keysPerThread[i] = capacity / k->workgroupSize[i];
  }
  if (!valid || k->keysPerThread[0] > 16 || k->workgroupSize[0] % c.workgroupGranule != 0 ||
      bitonicSharedBytes(cap, k->workgroupSize[0], sg, c.keyWords, index) > c.maxShared)
    return fail(
        VKSORT_ERROR_INVALID_ARGUMENT,
        "tuning: %s %u must be VKSORT_TUNING_OFF or a power of two from twice the subgroup size (%u), at most "
        "16 per invocation of its workgroup (%u invocations for this capacity), whose keys fit in shared memory",
        field, cap, 2 * sg, bitonicWorkgroup(cap, c.maxWorkgroupSize));
  return VKSORT_SUCCESS;
}

// The defaults for this device. Elsewhere than NVIDIA nothing was measured:
// the shapes there follow the device's limits, and the paths that were
// measured only on NVIDIA are off.
VksortTuning defaultTuning(const DeviceInfo& info, const Config& c) {
  const uint32_t sg = c.subgroupSize, maxWg = c.maxWorkgroupSize, maxShared = c.maxShared;
  const uint32_t itemWords = c.keyWords > c.valueWords ? c.keyWords : c.valueWords;
  const bool nvidia = info.props12.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY && sg == 32;
  VksortTuning d{};
  // Reorder tiles: up to 16 subgroups keeps the per-subgroup histograms at
  // 16 KiB. On NVIDIA, 32-bit keys alone run 512 x 16 keys staged in two
  // rounds: 21 KiB of shared memory and 64 registers per invocation, so that
  // two workgroups share a multiprocessor. Keys with values and 64-bit keys
  // run 1024 invocations, one workgroup per multiprocessor (64-bit items go
  // through shared memory a word at a time), where two rounds gain little at
  // large counts and lose at 2^20 keys (docs/tuning.md). Elsewhere the tile
  // shrinks until both words fit.
  const uint32_t granule = c.workgroupGranule;
  const bool twoRounds = nvidia && c.keyWords == 1 && c.valueWords == 0;
  d.workgroupSize = nvidia && !twoRounds ? 1024 : sg * 16 < 512 ? sg * 16 : 512;
  if (d.workgroupSize < granule) d.workgroupSize = granule;
  while (d.workgroupSize > maxWg) d.workgroupSize /= 2;
  while (d.workgroupSize > granule && tileSharedBytes(c, d.workgroupSize, 1, 1, 1) > maxShared)  // small shared memory
    d.workgroupSize /= 2;
  d.keysPerThread = twoRounds ? 16 : d.workgroupSize == 1024 ? (itemWords == 2 ? 8 : 10) : 20;
  d.stagingRounds = twoRounds ? 2 : 1;
  while (d.keysPerThread > 1 &&
         tileSharedBytes(c, d.workgroupSize, d.keysPerThread, d.stagingRounds, nvidia ? 1 : itemWords) > maxShared)
    --d.keysPerThread;
  // The ring: 768 tiles x 256 digits x 8 bytes = 1.5 MiB, enough for every
  // tile in flight on a large GPU plus the look-back window.
  d.histogramWorkgroups = 1024;
  d.ringSlots = 768;
  d.lookback = 32;
  d.tailGroup = 512;
  d.lookbackLanes = 0;  // follows the workgroup size, once the caller's is known (chooseConfig)
  // The one-workgroup path is latency-bound: many invocations, few keys each.
  d.oneWorkgroupSize = nvidia ? 512 : maxWg < 1024 ? maxWg : 1024;
  d.oneWorkgroupKeysPerThread = nvidia ? 8 : 4;
  while (d.oneWorkgroupSize > granule &&  // per-subgroup histograms grow with the workgroup
         onesweepSharedBytes(d.oneWorkgroupSize, d.oneWorkgroupKeysPerThread, sg, itemWords) > maxShared)
    d.oneWorkgroupSize /= 2;
  // The wide one-workgroup kernel, where it holds the keys and values in
  // shared memory, up to 1.25 times the one-workgroup keys: above that the
  // mid-size tiles, chained, are faster (docs/tuning.md).
  d.oneWorkgroupMaxCount = d.oneWorkgroupSize * d.oneWorkgroupKeysPerThread;
  if (nvidia && 2 * d.oneWorkgroupSize <= maxWg &&
      onesweepSharedBytes(2 * d.oneWorkgroupSize, d.oneWorkgroupKeysPerThread, sg, c.keyWords + c.valueWords) <=
          maxShared)
    d.oneWorkgroupMaxCount += d.oneWorkgroupMaxCount / 4;
  // 32-bit items run the mid-size tiles further: a sort of up to 2^20 keys
  // in large tiles leaves SMs idle (docs/tuning.md).
  d.midsizeMaxCount = !nvidia ? VKSORT_TUNING_OFF : itemWords == 1 ? 3u << 18 : 1u << 19;
  // Up to 2^20 keys a pass is short enough that the barrier between passes
  // costs more than waiting inside one dispatch (docs/tuning.md). A chained
  // tile's wait for the pass before it has no fallback, so it is on only
  // where the driver gives running workgroups forward progress, and not on
  // llvmpipe, where a waiting workgroup spins on a CPU thread that could run
  // the tiles it waits for.
  const VkDriverId driver = info.props12.driverID;
  d.chainedMaxCount =
      driverHasForwardProgress(driver) && driver != VK_DRIVER_ID_MESA_LLVMPIPE ? 1u << 20 : VKSORT_TUNING_OFF;
  d.bitonicMaxCount = nvidia ? 2048 : VKSORT_TUNING_OFF;
  d.bitonicKeysMaxCount = nvidia && c.valueWords == 0 ? 4096 : VKSORT_TUNING_OFF;
  return d;
}

// The caller's non-zero fields over the defaults.
void applyOverrides(const VksortTuning& user, uint32_t valueWords, VksortTuning* t) {
  if (user.workgroupSize) t->workgroupSize = user.workgroupSize;
  if (user.keysPerThread) t->keysPerThread = user.keysPerThread;
  if (user.stagingRounds) t->stagingRounds = user.stagingRounds;
  if (user.histogramWorkgroups) t->histogramWorkgroups = user.histogramWorkgroups;
  if (user.ringSlots) t->ringSlots = user.ringSlots;
  if (user.lookback) t->lookback = user.lookback;
  if (user.tailGroup) t->tailGroup = user.tailGroup;
  if (user.lookbackLanes) t->lookbackLanes = user.lookbackLanes;
  if (user.bitonicMaxCount) t->bitonicMaxCount = user.bitonicMaxCount;
  if (user.bitonicKeysMaxCount && valueWords == 0) t->bitonicKeysMaxCount = user.bitonicKeysMaxCount;
  if (user.oneWorkgroupSize) t->oneWorkgroupSize = user.oneWorkgroupSize;
  if (user.oneWorkgroupKeysPerThread) t->oneWorkgroupKeysPerThread = user.oneWorkgroupKeysPerThread;
  // A one-workgroup shape of the caller's drops the default wide kernel.
  if (user.oneWorkgroupSize || user.oneWorkgroupKeysPerThread)
    t->oneWorkgroupMaxCount = t->oneWorkgroupSize * t->oneWorkgroupKeysPerThread;
  if (user.oneWorkgroupMaxCount) t->oneWorkgroupMaxCount = user.oneWorkgroupMaxCount;
  if (user.midsizeMaxCount) t->midsizeMaxCount = user.midsizeMaxCount;
  if (user.chainedMaxCount) t->chainedMaxCount = user.chainedMaxCount;
}

// One look-back lane per invocation a workgroup has for each digit, up to 8
// and the subgroup size.
uint32_t defaultLookbackLanes(const Config& c, uint32_t workgroupSize) {
  uint32_t lanes = 1;
  while (lanes < 8 && lanes * 2 <= c.subgroupSize && lanes * 2 * VKSORT_RADIX <= workgroupSize) lanes *= 2;
  return lanes;
}

// Checks a resolved tuning against the device; fills the bitonic kernels.
VksortResult checkTuning(Config* c) {
  const VksortTuning& t = c->t;
  const uint32_t sg = c->subgroupSize, maxWg = c->maxWorkgroupSize, maxShared = c->maxShared;
  if ((t.lookbackLanes & (t.lookbackLanes - 1)) != 0 || t.lookbackLanes > 8 || t.lookbackLanes > sg)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: lookbackLanes %u must be a power of two up to 8 and the subgroup size %u", t.lookbackLanes,
                sg);
  const uint32_t granule = c->workgroupGranule;
  if (t.workgroupSize % granule != 0 || t.workgroupSize > maxWg)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: workgroupSize %u must be a multiple of the subgroup size %u and at most %u (the least of "
                "maxComputeWorkGroupInvocations, maxComputeWorkGroupSize[0] and maxComputeWorkgroupSubgroups x the "
                "subgroup size)",
                t.workgroupSize, granule, maxWg);
  if (t.keysPerThread > kMaxKeysPerThread || t.oneWorkgroupKeysPerThread > kMaxKeysPerThread)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: keysPerThread %u and oneWorkgroupKeysPerThread %u must be at most %u", t.keysPerThread,
                t.oneWorkgroupKeysPerThread, kMaxKeysPerThread);
  if ((t.tailGroup & (t.tailGroup - 1)) != 0 || t.tailGroup > (1u << 16) || t.lookback < 1 ||
      uint64_t(t.ringSlots) < uint64_t(t.lookback) + t.tailGroup)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: need tailGroup a power of two, lookback >= 1 and ringSlots (%u) >= lookback (%u) + "
                "tailGroup (%u)",
                t.ringSlots, t.lookback, t.tailGroup);
  if (t.ringSlots > (1u << 16) || t.lookback > 4096)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: ringSlots %u > 65536 or lookback %u > 4096", t.ringSlots,
                t.lookback);
  if (t.stagingRounds < 1 || t.stagingRounds > t.keysPerThread)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: stagingRounds %u must be from 1 to keysPerThread (%u)",
                t.stagingRounds, t.keysPerThread);
  // 64-bit items can always be staged a word at a time (stageOneWord).
  const uint64_t tileBytes = tileSharedBytes(*c, t.workgroupSize, t.keysPerThread, t.stagingRounds, 1);
  if (tileBytes > maxShared)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: a tile of %u x %u keys staged in %u rounds needs %llu bytes of shared memory; the device "
                "has %u",
                t.workgroupSize, t.keysPerThread, t.stagingRounds, (unsigned long long)tileBytes, maxShared);
  if (t.oneWorkgroupSize % granule != 0 || t.oneWorkgroupSize > maxWg ||
      onesweepSharedBytes(t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, sg, 1) > maxShared)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: the one-workgroup sort's %u x %u keys need a workgroup size that is a multiple of %u, at "
                "most %u (the device's largest workgroup), and fit in shared memory",
                t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, granule, maxWg);
  const uint32_t oneKeys = c->oneWorkgroupKeys();
  if (t.oneWorkgroupMaxCount != oneKeys && t.oneWorkgroupMaxCount != VKSORT_TUNING_OFF &&
      (t.oneWorkgroupMaxCount < oneKeys || uint64_t(t.oneWorkgroupMaxCount) > 2ull * oneKeys ||
       2 * t.oneWorkgroupSize > maxWg ||
       onesweepSharedBytes(2 * t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, sg, c->keyWords + c->valueWords) >
           maxShared))
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: oneWorkgroupMaxCount %u must be VKSORT_TUNING_OFF, the one-workgroup sort's %u x %u keys, or "
                "up to twice that where a workgroup of %u invocations (at most %u) holds that many keys and their "
                "values in shared memory",
                t.oneWorkgroupMaxCount, t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, 2 * t.oneWorkgroupSize, maxWg);
  if (t.histogramWorkgroups < 64 || t.histogramWorkgroups > c->maxDispatchX)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: histogramWorkgroups %u out of range", t.histogramWorkgroups);
  // With the index: a kernel of the capacity and one of half of it. Without:
  // also one of a quarter.
  VksortResult r = chooseBitonic(*c, "bitonicMaxCount", t.bitonicMaxCount, 2, true, &c->bitonic);
  if (r == VKSORT_SUCCESS)
    r = chooseBitonic(*c, "bitonicKeysMaxCount", t.bitonicKeysMaxCount, 3, false, &c->bitonicKeys);
  return r;
}

// The portable algorithm's tile table must stay below 2^31 entries, so that
// the shaders' u32 indices cannot overflow.
VksortResult checkPortableTable(const Config& c) {
  const uint64_t tiles = (uint64_t(VKSORT_MAX_COUNT) + c.tileKeys() - 1) / c.tileKeys();
  if ((tiles << c.radixBits) > (uint64_t(1) << 31))
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: tiles of %u keys are too small for the portable algorithm with %u-bit digits (its tile "
                "table for VKSORT_MAX_COUNT keys would exceed 2^31 entries)",
                c.tileKeys(), c.radixBits);
  return VKSORT_SUCCESS;
}

// The kernels of segmented sorts (Config::segmented). Not tunable: they
// follow the device's limits.
//  - bins: 256 invocations, one segment each.
//  - micro, tiny, half-subgroup and subgroup: networks in registers and
//    shuffles, four subgroups per workgroup: one invocation sorts a segment
//    of up to 16 keys; 8 lanes (the subgroup, if smaller) one of up to 8
//    keys each; the subgroup one of up to 256 keys (2 to 16 per lane), and
//    half the subgroup one of up to half that (with as many keys per lane;
//    none where that is no more than the tiny class's).
//  - small: a workgroup sorts one segment of up to 2,048 keys with their
//    indices in shared memory, or less where they do not fit; none where
//    even twice the subgroup size does not (the subgroup class then ends at
//    the next one).
//  - medium (Onesweep sorters): a workgroup in the one-workgroup kernel's
//    shape sorts one segment of up to 4,096 keys with radix passes, in
//    shared memory where the segment is one tile and fits there with its
//    values, else tile after tile through the buffers; none where even that
//    does not fit (the small class then ends at the large one).
void chooseSegmentShapes(Config* c) {
  const uint32_t sg = c->subgroupSize, granule = c->workgroupGranule;
  c->segmented = true;
  c->segmentBinsWorkgroup = 256;
  while (c->segmentBinsWorkgroup > c->maxWorkgroupSize) c->segmentBinsWorkgroup /= 2;
  c->segmentGroup = 4;
  while (c->segmentGroup * sg % granule != 0) c->segmentGroup *= 2;
  while (c->segmentGroup > 1 && c->segmentGroup * sg > c->maxWorkgroupSize && (c->segmentGroup / 2) * sg % granule == 0)
    c->segmentGroup /= 2;
  c->segmentTinyLanes = sg < 8 ? sg : 8;
  c->segmentSubgroupKeys = 256 / sg < 2 ? 2 : 256 / sg > 16 ? 16 : 256 / sg;
  c->segmentSmallWorkgroup = c->segmentSmallKeys = 0;
  for (uint32_t cap = 2048; cap >= 2 * sg; cap /= 2) {
    const uint32_t wg = bitonicWorkgroup(cap, c->maxWorkgroupSize);
    if (cap / wg <= 16 && wg % granule == 0 && bitonicSharedBytes(cap, wg, sg, c->keyWords, true) <= c->maxShared) {
      c->segmentSmallWorkgroup = wg;
      c->segmentSmallKeys = cap / wg;
      break;
    }
  }
  c->segmentMediumKeys = 0;
  c->segmentMediumInShared = false;
  if (c->algorithm == VKSORT_ALGORITHM_ONESWEEP) {
    const uint32_t wg = c->t.oneWorkgroupSize, kpt = c->t.oneWorkgroupKeysPerThread;
    const uint64_t extra = segmentOnesweepExtraSharedBytes(true, c->keyWords);
    const uint32_t itemWords = stageOneWord(*c, wg, kpt, 1)  ? 1
                               : c->keyWords > c->valueWords ? c->keyWords
                                                             : c->valueWords;
    if (kSegmentMediumKeys <= wg * kpt &&
        onesweepSharedBytes(wg, kpt, sg, c->keyWords + c->valueWords) + extra <= c->maxShared) {
      c->segmentMediumKeys = kSegmentMediumKeys;
      c->segmentMediumInShared = true;
    } else if (onesweepSharedBytes(wg, kpt, sg, itemWords) + extra <= c->maxShared) {
      c->segmentMediumKeys = kSegmentMediumKeys;
    }
  }
}

// The subgroup size the kernels are built for and pinned to, where the
// device lets compute pipelines require one: its default, except on Intel
// (16) and Adreno (64), where the default (32, 128) leaves each lane too few
// registers for a tile's keys, ranks and offsets (docs/tuning.md, "Other
// GPUs"). Not measured.
uint32_t preferredSubgroupSize(const DeviceInfo& info) {
  uint32_t preferred = info.props11.subgroupSize;
  switch (info.props12.driverID) {
    case VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS:
    case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA: preferred = 16; break;
    case VK_DRIVER_ID_QUALCOMM_PROPRIETARY:
    case VK_DRIVER_ID_MESA_TURNIP: preferred = 64; break;
    default: break;
  }
  const bool allowed = preferred >= info.props13.minSubgroupSize && preferred <= info.props13.maxSubgroupSize;
  return allowed ? preferred : info.props11.subgroupSize;
}

}  // namespace

bool stageOneWord(const Config& c, uint32_t workgroupSize, uint32_t keysPerThread, uint32_t stagingRounds) {
  // Only where both words would not fit: the second word costs barriers.
  return (c.keyWords == 2 || c.valueWords == 2) &&
         tileSharedBytes(c, workgroupSize, keysPerThread, stagingRounds, 2) > c.maxShared;
}

VksortResult chooseConfig(const DeviceInfo& info, const VksortCreateInfo& ci, VksortAlgorithm algorithm,
                          const VksortTestingHooks* hooks, Config* c) {
  *c = Config{};
  VksortResult r = chooseTypes(ci, c);
  if (r != VKSORT_SUCCESS) return r;
  const uint32_t radixBits = ci.portableRadixBits ? ci.portableRadixBits : VKSORT_RADIX_BITS;
  if (radixBits != 1 && radixBits != 2 && radixBits != 4 && radixBits != 8)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "portableRadixBits %u is not 0, 1, 2, 4 or 8", radixBits);
  c->algorithm = algorithm;
  c->radixBits = algorithm == VKSORT_ALGORITHM_PORTABLE ? radixBits : VKSORT_RADIX_BITS;
  const VkPhysicalDeviceLimits& lim = info.props.properties.limits;
  c->pinSubgroupSize = subgroupSizeIsPinnable(info);
  c->subgroupSize = c->pinSubgroupSize ? preferredSubgroupSize(info) : info.props11.subgroupSize;
  // A precaution on lavapipe: ring accesses as read-modify-write atomics only
  // (see status_ring.glsl and docs/design.md).
  c->statusRmw = info.props12.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  c->maxShared = lim.maxComputeSharedMemorySize;
  // Every kernel's workgroup is local_size_x alone, so maxComputeWorkGroupSize[0]
  // bounds it too (Turnip: 2048 invocations, 1024 in x). The subgroup limit
  // is a product of two u32 limits (RADV reports UINT32_MAX subgroups).
  c->maxWorkgroupSize = lim.maxComputeWorkGroupInvocations;
  if (lim.maxComputeWorkGroupSize[0] < c->maxWorkgroupSize) c->maxWorkgroupSize = lim.maxComputeWorkGroupSize[0];
  const uint64_t subgroupLimit = uint64_t(info.props13.maxComputeWorkgroupSubgroups) * c->subgroupSize;
  if (c->pinSubgroupSize && subgroupLimit < c->maxWorkgroupSize) c->maxWorkgroupSize = uint32_t(subgroupLimit);
  c->maxDispatchX = lim.maxComputeWorkGroupCount[0];
  // Full subgroups without a pinned size: Vulkan asks for workgroups in
  // multiples of the largest subgroup size.
  c->workgroupGranule = c->subgroupSize;
  if (!c->pinSubgroupSize && info.props13.maxSubgroupSize > c->workgroupGranule)
    c->workgroupGranule = info.props13.maxSubgroupSize;
  // Tests hold vksort to the smallest limits Vulkan allows.
  if (hooks && hooks->maxComputeSharedMemorySize && hooks->maxComputeSharedMemorySize < c->maxShared)
    c->maxShared = hooks->maxComputeSharedMemorySize;
  if (hooks && hooks->maxComputeWorkGroupInvocations && hooks->maxComputeWorkGroupInvocations < c->maxWorkgroupSize)
    c->maxWorkgroupSize = hooks->maxComputeWorkGroupInvocations;
  c->histogramWorkgroupSize = kHistogramWorkgroupSize;
  while (c->histogramWorkgroupSize > c->maxWorkgroupSize) c->histogramWorkgroupSize /= 2;
  c->scanWorkgroupSize = kScanWorkgroupSize;
  while (c->scanWorkgroupSize > c->maxWorkgroupSize) c->scanWorkgroupSize /= 2;
  c->scanItems = kScanBlock / c->scanWorkgroupSize;
  c->hooks.spinBudget = hooks && hooks->spinBudget ? hooks->spinBudget : kDefaultSpinBudget;
  c->hooks.faultPublishDelay = hooks ? hooks->faultPublishDelay : 0;
  c->hooks.wideBallot = hooks && hooks->wideBallot ? 1 : 0;
  c->hooks.segmentNoStage = hooks && hooks->segmentNoStage ? 1 : 0;

  c->t = defaultTuning(info, *c);
  if (ci.pTuning) applyOverrides(*ci.pTuning, c->valueWords, &c->t);
  if (c->hasOneWorkgroup() && c->t.midsizeMaxCount <= c->t.oneWorkgroupMaxCount)
    c->t.midsizeMaxCount = VKSORT_TUNING_OFF;
  if (!c->t.lookbackLanes) c->t.lookbackLanes = defaultLookbackLanes(*c, c->t.workgroupSize);
  c->midsizeLookbackLanes = defaultLookbackLanes(*c, c->t.oneWorkgroupSize);
  if ((r = checkTuning(c)) != VKSORT_SUCCESS) return r;
  if (algorithm == VKSORT_ALGORITHM_PORTABLE) {
    if ((r = checkPortableTable(*c)) != VKSORT_SUCCESS) return r;
    c->t.midsizeMaxCount = VKSORT_TUNING_OFF;  // Onesweep paths
    c->t.chainedMaxCount = VKSORT_TUNING_OFF;
  }
  if (ci.segmented) chooseSegmentShapes(c);
  // Where keys and values fit in shared memory together, the one-workgroup
  // kernel keeps them there between passes; otherwise its passes go through
  // the keys and alt buffers.
  c->oneWorkgroupInShared = onesweepSharedBytes(c->t.oneWorkgroupSize, c->t.oneWorkgroupKeysPerThread, c->subgroupSize,
                                                c->keyWords + c->valueWords) <= c->maxShared;
  return VKSORT_SUCCESS;
}

}  // namespace vksort

// The sorter's pipelines: one per kernel variant its Config needs, each
// specialized by name (shaders/spec_constants.h) from the Config.
#include <cstddef>

#include "internal.h"
#include "vksort_bitonic_portable_spv.h"
#include "vksort_bitonic_spv.h"
#include "vksort_histogram_spv.h"
#include "vksort_onesweep_spv.h"
#include "vksort_portable_count_spv.h"
#include "vksort_portable_scan_spv.h"
#include "vksort_portable_scatter_spv.h"
#include "vksort_segment_bins_portable_spv.h"
#include "vksort_segment_bins_spv.h"
#include "vksort_segment_buckets_spv.h"
#include "vksort_segment_histogram_spv.h"
#include "vksort_segment_onesweep_spv.h"
#include "vksort_segment_scatter_spv.h"

namespace vksort {

namespace {

static_assert(sizeof(VksortPush) <= 128, "push constants fit in the least maxPushConstantsSize that Vulkan allows");

#define VKSORT_CHECK_ID(field, id) static_assert(offsetof(SpecConstants, field) == 4 * (id), #field " != " #id)
VKSORT_CHECK_ID(wgSize, VKSORT_SC_WG_SIZE);
VKSORT_CHECK_ID(sgSize, VKSORT_SC_SG_SIZE);
VKSORT_CHECK_ID(keysPerThread, VKSORT_SC_KEYS_PER_THREAD);
VKSORT_CHECK_ID(keyWords, VKSORT_SC_KEY_WORDS);
VKSORT_CHECK_ID(keyKind, VKSORT_SC_KEY_KIND);
VKSORT_CHECK_ID(valueWords, VKSORT_SC_VALUE_WORDS);
VKSORT_CHECK_ID(valueIndex, VKSORT_SC_VALUE_INDEX);
VKSORT_CHECK_ID(oneWordStaging, VKSORT_SC_ONE_WORD_STAGING);
VKSORT_CHECK_ID(radixBits, VKSORT_SC_RADIX_BITS);
VKSORT_CHECK_ID(scanStep, VKSORT_SC_SCAN_STEP);
VKSORT_CHECK_ID(ringSlots, VKSORT_SC_RING_SLOTS);
VKSORT_CHECK_ID(lookback, VKSORT_SC_LOOKBACK);
VKSORT_CHECK_ID(tailBits, VKSORT_SC_TAIL_BITS);
VKSORT_CHECK_ID(statusRmw, VKSORT_SC_STATUS_RMW);
VKSORT_CHECK_ID(spinBudget, VKSORT_SC_SPIN_BUDGET);
VKSORT_CHECK_ID(publishDelay, VKSORT_SC_PUBLISH_DELAY);
VKSORT_CHECK_ID(lookbackLanes, VKSORT_SC_LOOKBACK_LANES);
VKSORT_CHECK_ID(oneWorkgroup, VKSORT_SC_ONE_WORKGROUP);
VKSORT_CHECK_ID(tileInShared, VKSORT_SC_TILE_IN_SHARED);
VKSORT_CHECK_ID(noIndex, VKSORT_SC_NO_INDEX);
VKSORT_CHECK_ID(scanItems, VKSORT_SC_SCAN_ITEMS);
VKSORT_CHECK_ID(stagingRounds, VKSORT_SC_STAGING_ROUNDS);
VKSORT_CHECK_ID(wideBallot, VKSORT_SC_WIDE_BALLOT);
VKSORT_CHECK_ID(segmented, VKSORT_SC_SEGMENTED);
VKSORT_CHECK_ID(segmentTinyMax, VKSORT_SC_SEGMENT_TINY_MAX);
VKSORT_CHECK_ID(segmentSmallMax, VKSORT_SC_SEGMENT_SMALL_MAX);
VKSORT_CHECK_ID(segmentGroup, VKSORT_SC_SEGMENT_GROUP);
VKSORT_CHECK_ID(segmentMicroMax, VKSORT_SC_SEGMENT_MICRO_MAX);
VKSORT_CHECK_ID(segmentSubgroupMax, VKSORT_SC_SEGMENT_SUBGROUP_MAX);
VKSORT_CHECK_ID(segmentLanes, VKSORT_SC_SEGMENT_LANES);
VKSORT_CHECK_ID(segmentClass, VKSORT_SC_SEGMENT_CLASS);
VKSORT_CHECK_ID(chained, VKSORT_SC_CHAINED);
VKSORT_CHECK_ID(midsizeMaxCount, VKSORT_SC_MIDSIZE_MAX_COUNT);
VKSORT_CHECK_ID(midsizeHalfMaxCount, VKSORT_SC_MIDSIZE_HALF_MAX_COUNT);
VKSORT_CHECK_ID(route, VKSORT_SC_ROUTE);
VKSORT_CHECK_ID(segmentStage, VKSORT_SC_SEGMENT_STAGE);
VKSORT_CHECK_ID(bitonicKeysMaxCount, VKSORT_SC_BITONIC_KEYS_MAX_COUNT);
VKSORT_CHECK_ID(bitonicMaxCount, VKSORT_SC_BITONIC_MAX_COUNT);
VKSORT_CHECK_ID(oneWorkgroupMaxCount, VKSORT_SC_ONE_WORKGROUP_MAX_COUNT);
VKSORT_CHECK_ID(chainedMaxCount, VKSORT_SC_CHAINED_MAX_COUNT);
VKSORT_CHECK_ID(segmentMediumMax, VKSORT_SC_SEGMENT_MEDIUM_MAX);
VKSORT_CHECK_ID(segmentSplitMax, VKSORT_SC_SEGMENT_SPLIT_MAX);
VKSORT_CHECK_ID(midsizeHalfTileKeys, VKSORT_SC_MIDSIZE_HALF_TILE_KEYS);
VKSORT_CHECK_ID(midsizeTileKeys, VKSORT_SC_MIDSIZE_TILE_KEYS);
VKSORT_CHECK_ID(tileKeys, VKSORT_SC_TILE_KEYS);
VKSORT_CHECK_ID(segmentHalfMax, VKSORT_SC_SEGMENT_HALF_MAX);
#undef VKSORT_CHECK_ID
static_assert(sizeof(SpecConstants) == 4 * VKSORT_SC_COUNT, "one field per specialization constant");
static_assert(kKernelSegmentTiny - kKernelSegmentMicro == VKSORT_SEGMENT_CLASS_TINY &&
                  kKernelSegmentHalf - kKernelSegmentMicro == VKSORT_SEGMENT_CLASS_HALF &&
                  kKernelSegmentSubgroup - kKernelSegmentMicro == VKSORT_SEGMENT_CLASS_SUBGROUP &&
                  kKernelSegmentSmall - kKernelSegmentMicro == VKSORT_SEGMENT_CLASS_SMALL,
              "the segment kernels in the order of the classes");

// The constants every kernel of a sorter shares: the device's subgroup size
// and the key and value types, with a shape (stagingRounds: the tile
// kernels').
SpecConstants commonConstants(const Config& c, uint32_t wgSize, uint32_t keysPerThread, uint32_t stagingRounds = 1) {
  SpecConstants sc{};
  sc.wgSize = wgSize;
  sc.sgSize = c.subgroupSize;
  sc.keysPerThread = keysPerThread;
  sc.keyWords = c.keyWords;
  sc.keyKind = c.keyKind;
  sc.valueWords = c.valueWords;
  sc.valueIndex = c.valueIndex;
  sc.oneWordStaging = stageOneWord(c, wgSize, keysPerThread, stagingRounds);
  sc.stagingRounds = stagingRounds;
  sc.radixBits = c.radixBits;
  sc.wideBallot = c.hooks.wideBallot;
  return sc;
}

// onesweep.comp in a tile shape, for the multi-tile paths.
SpecConstants onesweepConstants(const Config& c, uint32_t wgSize, uint32_t keysPerThread, uint32_t stagingRounds,
                                uint32_t lookbackLanes) {
  SpecConstants sc = commonConstants(c, wgSize, keysPerThread, stagingRounds);
  sc.ringSlots = c.t.ringSlots;
  sc.lookback = c.t.lookback;
  while ((1u << sc.tailBits) < c.t.tailGroup) ++sc.tailBits;
  sc.statusRmw = c.statusRmw;
  sc.spinBudget = c.hooks.spinBudget;
  sc.publishDelay = c.hooks.faultPublishDelay;
  sc.lookbackLanes = lookbackLanes;
  return sc;
}

// The kernels of a Onesweep sort with an indirect count: where a live
// count's route goes (live_route.glsl, as planSort's paths), and the
// kernel's own route.
SpecConstants withRoute(const Config& c, SpecConstants sc, uint32_t route) {
  sc.route = route;
  sc.bitonicKeysMaxCount = c.bitonicKeys.workgroupSize[0] ? c.t.bitonicKeysMaxCount : 0;
  sc.bitonicMaxCount = c.bitonic.workgroupSize[0] ? c.t.bitonicMaxCount : 0;
  // The one-workgroup kernel that such a sort records (planOnesweep) sorts
  // up to its tile.
  const uint32_t oneWorkgroupTile = (c.hasWideOneWorkgroup() ? 2 : 1) * c.oneWorkgroupKeys();
  sc.oneWorkgroupMaxCount = !c.hasOneWorkgroup()                          ? 0
                            : c.t.oneWorkgroupMaxCount < oneWorkgroupTile ? c.t.oneWorkgroupMaxCount
                                                                          : oneWorkgroupTile;
  sc.midsizeMaxCount = c.hasMidsize() ? c.t.midsizeMaxCount : 0;
  sc.midsizeHalfMaxCount = c.midsizeHalfMaxCount();
  // The histogram kernel writes the dispatch commands of the passes that
  // are not chained.
  sc.chainedMaxCount = c.t.chainedMaxCount == VKSORT_TUNING_OFF ? 0 : c.t.chainedMaxCount;
  sc.midsizeHalfTileKeys = c.t.oneWorkgroupSize * (c.t.oneWorkgroupKeysPerThread / 2);
  sc.midsizeTileKeys = c.oneWorkgroupKeys();
  sc.tileKeys = c.tileKeys();
  return sc;
}

// onesweep.comp as the one-workgroup kernel (wide: twice the invocations,
// only where keys and values stay in shared memory between passes).
SpecConstants oneWorkgroupConstants(const Config& c, bool wide) {
  SpecConstants sc = onesweepConstants(c, (wide ? 2 : 1) * c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread, 1, 1);
  sc.oneWorkgroup = 1;
  sc.tileInShared = wide || c.oneWorkgroupInShared;
  if (sc.tileInShared) sc.oneWordStaging = 0;  // the tile in shared memory keeps both words
  return withRoute(c, sc, VKSORT_ROUTE_ONE_WORKGROUP);
}

VksortResult createPipeline(VksortSorter s, VkPipelineCache cache, const uint32_t* code, size_t codeBytes,
                            const SpecConstants& constants, const char* name, VkPipeline* out) {
  VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mci.codeSize = codeBytes;
  mci.pCode = code;
  VkShaderModule module;
  VkResult r = s->fn.createShaderModule(s->device, &mci, s->allocator, &module);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateShaderModule(%s) failed: VkResult %d", name, r);

  // Every ID; a kernel ignores those it does not declare.
  VkSpecializationMapEntry entries[VKSORT_SC_COUNT];
  for (uint32_t i = 0; i < VKSORT_SC_COUNT; ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{VKSORT_SC_COUNT, entries, sizeof constants, &constants};

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  required.requiredSubgroupSize = s->config.subgroupSize;
  VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  // The kernels size shared memory and masks by SG_SIZE, so every subgroup
  // must be full and of exactly that size.
  pci.stage.pNext = s->config.pinSubgroupSize ? &required : nullptr;
  pci.stage.flags = VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pci.stage.module = module;
  pci.stage.pName = "main";
  pci.stage.pSpecializationInfo = &spec;
  pci.layout = s->pipelines.layout;
  r = s->fn.createComputePipelines(s->device, cache, 1, &pci, s->allocator, out);
  s->fn.destroyShaderModule(s->device, module, s->allocator);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateComputePipelines(%s) failed: VkResult %d", name, r);
  return VKSORT_SUCCESS;
}

#define VKSORT_SPV(name) \
  { vksort_##name##_spv, sizeof vksort_##name##_spv }

struct Spirv {
  const uint32_t* code;
  size_t bytes;
};

// The module of each kernel.
Spirv kernelSpirv(const Config& c, Kernel k) {
  if (isChainedKernel(k)) k = unchainedKernel(k);
  if ((k >= kKernelBitonic && k < kKernelPortableCount) || (k >= kKernelSegmentMicro && k <= kKernelSegmentSmall))
    // Onesweep's sorters have 64-bit integers; the portable one's build needs none.
    return c.algorithm == VKSORT_ALGORITHM_ONESWEEP ? Spirv VKSORT_SPV(bitonic) : Spirv VKSORT_SPV(bitonic_portable);
  switch (k) {
    case kKernelHistogram: return VKSORT_SPV(histogram);
    case kKernelPortableCount:
    case kKernelSegmentCount: return VKSORT_SPV(portable_count);
    case kKernelSegmentBins:
      return c.algorithm == VKSORT_ALGORITHM_ONESWEEP ? Spirv VKSORT_SPV(segment_bins)
                                                      : Spirv VKSORT_SPV(segment_bins_portable);
    case kKernelSegmentScatter: return VKSORT_SPV(segment_scatter);
    case kKernelSegmentHistogram: return VKSORT_SPV(segment_histogram);
    case kKernelSegmentBuckets: return VKSORT_SPV(segment_buckets);
    case kKernelSegmentOnesweep:
    case kKernelSegmentMedium: return VKSORT_SPV(segment_onesweep);
    case kKernelPortableReduce:
    case kKernelPortableScanSums:
    case kKernelPortableDownsweep: return VKSORT_SPV(portable_scan);
    case kKernelPortableScatter: return VKSORT_SPV(portable_scatter);
    default: return VKSORT_SPV(onesweep);
  }
}

// The segment kernels' SEGMENT_RING_SLOTS (segments.glsl): Onesweep's
// segments' area follows the ring, the portable one's the tile table (0).
uint32_t segmentAreaAfterRing(const Config& c) { return c.algorithm == VKSORT_ALGORITHM_ONESWEEP ? c.t.ringSlots : 0; }

// The size classes' bounds and shapes, for the kernels that list segments
// in their classes (segment_list.glsl).
void segmentClassConstants(const Config& c, SpecConstants* sc) {
  sc->segmentMicroMax = c.segmentMicroMax();
  sc->segmentTinyMax = c.segmentTinyMax();
  sc->segmentHalfMax = c.segmentHalfMax();
  sc->segmentSubgroupMax = c.segmentSubgroupMax();
  sc->segmentSmallMax = c.segmentSmallMax();
  sc->segmentMediumMax = c.segmentMediumMax();
  sc->segmentGroup = c.segmentGroup;
  sc->segmentLanes = c.segmentTinyLanes;
}

// The specialization of each kernel.
SpecConstants kernelConstants(const Config& c, Kernel k) {
  const VksortTuning& t = c.t;
  if (isChainedKernel(k)) {
    SpecConstants sc = kernelConstants(c, unchainedKernel(k));
    sc.chained = 1;
    return sc;
  }
  if (k >= kKernelBitonic && k < kKernelPortableCount) {
    const bool noIndex = k >= kKernelBitonicKeys;
    const BitonicKernels& set = noIndex ? c.bitonicKeys : c.bitonic;
    const uint32_t i = uint32_t(k - (noIndex ? kKernelBitonicKeys : kKernelBitonic));
    SpecConstants sc = commonConstants(c, set.workgroupSize[i], set.keysPerThread[i]);
    sc.noIndex = noIndex;
    return sc;
  }
  switch (k) {
    case kKernelHistogram:  // counts for every shape whose passes have a dispatch each: no route of its own
      return withRoute(c, commonConstants(c, c.histogramWorkgroupSize, 1), VKSORT_ROUTE_NONE);
    case kKernelOnesweep:
      return withRoute(c, onesweepConstants(c, t.workgroupSize, t.keysPerThread, t.stagingRounds, t.lookbackLanes),
                       VKSORT_ROUTE_TILES);
    case kKernelMidsizeOnesweep:
      return withRoute(c,
                       onesweepConstants(c, t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, 1, c.midsizeLookbackLanes),
                       VKSORT_ROUTE_MIDSIZE);
    case kKernelMidsizeOnesweepHalf:
      return withRoute(
          c, onesweepConstants(c, t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread / 2, 1, c.midsizeLookbackLanes),
          VKSORT_ROUTE_MIDSIZE_HALF);
    case kKernelOneWorkgroup: return oneWorkgroupConstants(c, false);
    case kKernelWideOneWorkgroup: return oneWorkgroupConstants(c, true);
    case kKernelSegmentHistogram:
    case kKernelSegmentBuckets: {
      // It lists the buckets of the segments it splits on one digit;
      // segment_buckets.comp those of the segments split on two, after
      // pass 1, with the same constants.
      SpecConstants sc = commonConstants(c, c.histogramWorkgroupSize, 1);
      segmentClassConstants(c, &sc);
      sc.ringSlots = c.t.ringSlots;
      sc.segmentSplitMax = c.segmentBucketMax();
      return sc;
    }
    case kKernelSegmentOnesweep:
      return onesweepConstants(c, t.workgroupSize, t.keysPerThread, t.stagingRounds, t.lookbackLanes);
    case kKernelSegmentMedium: {
      // The one-workgroup kernel's shape, with the segment in shared memory
      // or going through the buffers.
      SpecConstants sc = onesweepConstants(c, t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, 1, 1);
      sc.oneWorkgroup = 1;
      sc.segmentSmallMax = c.segmentSmallMax();
      sc.tileInShared = c.segmentMediumInShared;
      if (sc.tileInShared) sc.oneWordStaging = 0;  // the tile in shared memory keeps both words
      return sc;
    }
    case kKernelSegmentBins: {
      SpecConstants sc = commonConstants(c, c.segmentBinsWorkgroup, 1);
      segmentClassConstants(c, &sc);
      sc.ringSlots = segmentAreaAfterRing(c);
      return sc;
    }
    case kKernelSegmentMicro:
    case kKernelSegmentTiny:
    case kKernelSegmentHalf:
    case kKernelSegmentSubgroup: {
      const uint32_t lanes = k == kKernelSegmentMicro  ? 1
                             : k == kKernelSegmentTiny ? c.segmentTinyLanes
                             : k == kKernelSegmentHalf ? c.segmentHalfLanes()
                                                       : c.subgroupSize;
      const uint32_t keys = k == kKernelSegmentMicro  ? kSegmentMicroKeys
                            : k == kKernelSegmentTiny ? kSegmentTinyKeys
                                                      : c.segmentSubgroupKeys;
      SpecConstants sc = commonConstants(c, c.segmentGroup * c.subgroupSize, keys);
      sc.segmented = VKSORT_SEGMENTED_LANES;
      sc.segmentLanes = lanes;
      sc.segmentClass = uint32_t(k - kKernelSegmentMicro);  // VKSORT_SEGMENT_CLASS_*: the same order
      sc.ringSlots = segmentAreaAfterRing(c);
      // Keys and values through shared memory where it holds them.
      const uint64_t staged = bitonicSharedBytes(1, sc.wgSize, sc.sgSize, sc.keyWords, true) +
                              segmentStageBytes(sc.wgSize, sc.sgSize, sc.keysPerThread);
      sc.segmentStage = !c.hooks.segmentNoStage && staged <= c.maxShared;
      return sc;
    }
    case kKernelSegmentSmall: {
      SpecConstants sc = commonConstants(c, c.segmentSmallWorkgroup, c.segmentSmallKeys);
      sc.segmented = VKSORT_SEGMENTED_WORKGROUP;
      sc.segmentClass = VKSORT_SEGMENT_CLASS_SMALL;
      sc.ringSlots = segmentAreaAfterRing(c);
      return sc;
    }
    case kKernelSegmentCount:
    case kKernelSegmentScatter: {
      SpecConstants sc = commonConstants(c, t.workgroupSize, t.keysPerThread, t.stagingRounds);
      sc.segmented = VKSORT_SEGMENTED_TILES;
      return sc;
    }
    case kKernelPortableReduce:
    case kKernelPortableScanSums:
    case kKernelPortableDownsweep: {
      SpecConstants sc = commonConstants(c, c.scanWorkgroupSize, 1);
      sc.scanItems = c.scanItems;
      sc.scanStep = k - kKernelPortableReduce;
      return sc;
    }
    default:  // the portable count and scatter kernels
      return commonConstants(c, t.workgroupSize, t.keysPerThread, t.stagingRounds);
  }
}

// The item words a tile kernel's sWork holds per key (tile_sort.glsl,
// UNPADDED_TILE_WORDS): keys and values together where the one-workgroup
// kernel keeps them between passes, one word where 64-bit items go a word
// at a time, else the larger of the key and value sizes.
uint32_t tileItemWords(const SpecConstants& sc) {
  if (sc.oneWorkgroup && sc.tileInShared) return sc.keyWords + sc.valueWords;
  if (sc.oneWordStaging) return 1;
  return sc.keyWords > sc.valueWords ? sc.keyWords : sc.valueWords;
}

// The shared memory that tuning.cpp's formulas give a kernel (0 for the
// histogram and the portable count and scan kernels, whose shared arrays are
// small and do not follow the tile).
uint64_t kernelSharedBytes(Kernel k, const SpecConstants& sc) {
  if (isChainedKernel(k)) k = unchainedKernel(k);
  if (k >= kKernelBitonic && k < kKernelPortableCount)
    return bitonicSharedBytes(sc.wgSize * sc.keysPerThread, sc.wgSize, sc.sgSize, sc.keyWords, !sc.noIndex);
  // The networks of lanes stay in their subgroup: one element of each
  // array, and their staging.
  if (k == kKernelSegmentMicro || k == kKernelSegmentTiny || k == kKernelSegmentHalf || k == kKernelSegmentSubgroup)
    return bitonicSharedBytes(1, sc.wgSize, sc.sgSize, sc.keyWords, true) +
           (sc.segmentStage ? segmentStageBytes(sc.wgSize, sc.sgSize, sc.keysPerThread) : 0);
  if (k == kKernelSegmentSmall)
    return bitonicSharedBytes(sc.wgSize * sc.keysPerThread, sc.wgSize, sc.sgSize, sc.keyWords, true);
  const uint32_t rounds = sc.oneWorkgroup && sc.tileInShared ? 1 : sc.stagingRounds;
  const uint32_t staged = (sc.keysPerThread + rounds - 1) / rounds;
  switch (k) {
    case kKernelOnesweep:
    case kKernelMidsizeOnesweep:
    case kKernelMidsizeOnesweepHalf:
    case kKernelOneWorkgroup:
    case kKernelWideOneWorkgroup: return onesweepSharedBytes(sc.wgSize, staged, sc.sgSize, tileItemWords(sc));
    case kKernelSegmentOnesweep:
    case kKernelSegmentMedium:
      return onesweepSharedBytes(sc.wgSize, staged, sc.sgSize, tileItemWords(sc)) +
             segmentOnesweepExtraSharedBytes(k == kKernelSegmentMedium, sc.keyWords);
    case kKernelPortableScatter:
    case kKernelSegmentScatter:
      return portableSharedBytes(sc.wgSize, staged, sc.sgSize, tileItemWords(sc), sc.radixBits);
    default: return 0;
  }
}

#undef VKSORT_SPV

}  // namespace

bool hasKernel(const Config& c, Kernel k) {
  const bool onesweep = c.algorithm == VKSORT_ALGORITHM_ONESWEEP;
  // A reorder kernel and its chained twin, each where some count takes it
  // (planSort): lowest and highest counts of the kernel's path.
  if ((k >= kKernelOnesweep && k <= kKernelMidsizeOnesweepHalf) || k == kKernelSegmentOnesweep || isChainedKernel(k)) {
    const Kernel base = isChainedKernel(k) ? unchainedKernel(k) : k;
    uint32_t lowest = 0, highest = VKSORT_MAX_COUNT;
    if (base == kKernelMidsizeOnesweep || base == kKernelMidsizeOnesweepHalf) {
      lowest = c.hasOneWorkgroup() ? c.t.oneWorkgroupMaxCount : 0;
      highest = base == kKernelMidsizeOnesweep ? c.t.midsizeMaxCount : c.midsizeHalfMaxCount();
    } else if (base == kKernelOnesweep) {
      lowest = c.hasMidsize() ? c.t.midsizeMaxCount : 0;
    } else {
      lowest = c.segmentMediumMax();
    }
    const bool some = isChainedKernel(k) ? c.chains(lowest + 1) : !c.chains(highest);
    if (!some) return false;
    k = base;
  }
  if (k >= kKernelBitonic && k < kKernelBitonicKeys) return c.bitonic.workgroupSize[k - kKernelBitonic] != 0;
  if (k >= kKernelBitonicKeys && k < kKernelPortableCount)
    return c.bitonicKeys.workgroupSize[k - kKernelBitonicKeys] != 0;
  switch (k) {
    case kKernelHistogram:
    case kKernelOnesweep:
    case kKernelOneWorkgroup: return onesweep;
    case kKernelMidsizeOnesweep: return onesweep && c.hasMidsize();
    case kKernelMidsizeOnesweepHalf: return onesweep && c.hasMidsizeHalf();
    case kKernelWideOneWorkgroup: return onesweep && c.hasWideOneWorkgroup();
    // Segmented sorts: their large segments Onesweep's way, or the portable
    // algorithm's (count, the portable scan, scatter).
    case kKernelSegmentBins:
    case kKernelSegmentMicro:
    case kKernelSegmentTiny:
    case kKernelSegmentSubgroup: return c.segmented;
    case kKernelSegmentHalf: return c.hasSegmentHalf();
    case kKernelSegmentSmall: return c.segmented && c.segmentSmallWorkgroup != 0;
    case kKernelSegmentHistogram:
    case kKernelSegmentBuckets:
    case kKernelSegmentOnesweep: return c.segmented && onesweep;
    case kKernelSegmentMedium: return c.segmented && onesweep && c.segmentMediumMax() > c.segmentSmallMax();
    case kKernelSegmentCount:
    case kKernelSegmentScatter: return c.segmented && !onesweep;
    case kKernelCount: return false;
    default: return !onesweep;  // the portable kernels
  }
}

uint32_t listKernels(const Config& c, Pipelines* pipelines, KernelBuild kernels[kMaxKernels]) {
  uint32_t count = 0;
  for (uint32_t k = 0; k < kKernelCount; ++k)
    if (hasKernel(c, Kernel(k))) {
      const Spirv spirv = kernelSpirv(c, Kernel(k));
      const SpecConstants sc = kernelConstants(c, Kernel(k));
      kernels[count++] = {kernelName(Kernel(k)), spirv.code, spirv.bytes, sc, kernelSharedBytes(Kernel(k), sc),
                          &pipelines->kernel[k]};
    }
  return count;
}

VksortResult createPipelines(VksortSorter s, VkPipelineCache cache) {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(VksortPush)};
  VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  lci.pushConstantRangeCount = 1;
  lci.pPushConstantRanges = &range;
  VkResult vr = s->fn.createPipelineLayout(s->device, &lci, s->allocator, &s->pipelines.layout);
  if (vr != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreatePipelineLayout failed: VkResult %d", vr);
  KernelBuild kernels[kMaxKernels];
  const uint32_t count = listKernels(s->config, &s->pipelines, kernels);
  VksortResult r = VKSORT_SUCCESS;
  for (uint32_t i = 0; i < count && r == VKSORT_SUCCESS; ++i)
    r = createPipeline(s, cache, kernels[i].code, kernels[i].codeBytes, kernels[i].constants, kernels[i].name,
                       kernels[i].pipeline);
  return r;
}

void destroyPipelines(VksortSorter s) {
  Pipelines& p = s->pipelines;
  for (VkPipeline pipeline : p.kernel)
    if (pipeline) s->fn.destroyPipeline(s->device, pipeline, s->allocator);
  if (p.layout) s->fn.destroyPipelineLayout(s->device, p.layout, s->allocator);
  p = Pipelines{};
}

const char* kernelName(Kernel k) {
  static const char* const names[kKernelCount] = {"histogram",
                                                  "onesweep",
                                                  "mid-size onesweep",
                                                  "mid-size onesweep, half tiles",
                                                  "one workgroup",
                                                  "wide one workgroup",
                                                  "bitonic",
                                                  "bitonic",
                                                  "bitonic",
                                                  "bitonic keys-only",
                                                  "bitonic keys-only",
                                                  "bitonic keys-only",
                                                  "portable count",
                                                  "portable reduce",
                                                  "portable scan of the block sums",
                                                  "portable downsweep",
                                                  "portable scatter",
                                                  "segment bins",
                                                  "micro segments",
                                                  "tiny segments",
                                                  "half-subgroup segments",
                                                  "subgroup segments",
                                                  "small segments",
                                                  "segmented count",
                                                  "segmented scatter",
                                                  "segment histogram",
                                                  "segmented onesweep",
                                                  "medium segments",
                                                  "two-digit bucket lists",
                                                  "onesweep, chained passes",
                                                  "mid-size onesweep, chained passes",
                                                  "mid-size onesweep, half tiles, chained passes",
                                                  "segmented onesweep, chained passes"};
  return k < kKernelCount ? names[k] : "none";
}

}  // namespace vksort

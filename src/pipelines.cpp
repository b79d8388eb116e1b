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

namespace vksort {

namespace {

static_assert(sizeof(VksortPush) == 128, "push constants must match the GLSL std430 layout");

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
#undef VKSORT_CHECK_ID
static_assert(sizeof(SpecConstants) == 4 * VKSORT_SC_COUNT, "one field per specialization constant");

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

// onesweep.comp as the one-workgroup kernel (wide: twice the invocations,
// only where keys and values stay in shared memory between passes).
SpecConstants oneWorkgroupConstants(const Config& c, bool wide) {
  SpecConstants sc = onesweepConstants(c, (wide ? 2 : 1) * c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread, 1, 1);
  sc.oneWorkgroup = 1;
  sc.tileInShared = wide || c.oneWorkgroupInShared;
  if (sc.tileInShared) sc.oneWordStaging = 0;  // the tile in shared memory keeps both words
  return sc;
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

#define VKSORT_SPV(name) vksort_##name##_spv, sizeof vksort_##name##_spv

// The item words a tile kernel's sWork holds per key (tile_sort.glsl,
// UNPADDED_TILE_WORDS): keys and values together where the one-workgroup
// kernel keeps them between passes, one word where 64-bit items go a word
// at a time, else the larger of the key and value sizes.
uint32_t tileItemWords(const SpecConstants& sc) {
  if (sc.oneWorkgroup && sc.tileInShared) return sc.keyWords + sc.valueWords;
  if (sc.oneWordStaging) return 1;
  return sc.keyWords > sc.valueWords ? sc.keyWords : sc.valueWords;
}

// Appends kernels to a list, each with tuning.cpp's count of its shared
// memory.
struct KernelList {
  Kernel* kernels;
  uint32_t count;
  void add(const char* name, const uint32_t* code, size_t codeBytes, const SpecConstants& sc, uint64_t sharedBytes,
           VkPipeline* pipeline) {
    kernels[count++] = {name, code, codeBytes, sc, sharedBytes, pipeline};
  }
  // onesweep.comp, in any of its shapes.
  void onesweep(const char* name, const SpecConstants& sc, VkPipeline* pipeline) {
    const uint32_t rounds = sc.oneWorkgroup && sc.tileInShared ? 1 : sc.stagingRounds;
    add(name, VKSORT_SPV(onesweep), sc,
        onesweepSharedBytes(sc.wgSize, (sc.keysPerThread + rounds - 1) / rounds, sc.sgSize, tileItemWords(sc)),
        pipeline);
  }
};

// One set of bitonic.comp kernels, with the index or without it (bitonic
// keys-only), from the module built for the sorter's algorithm (Onesweep's
// sorters have 64-bit integers; the portable one's build needs none).
void listBitonic(const Config& c, const BitonicKernels& set, bool noIndex, VkPipeline* out, KernelList* list) {
  for (uint32_t k = 0; k < 3 && set.workgroupSize[k]; ++k) {
    SpecConstants sc = commonConstants(c, set.workgroupSize[k], set.keysPerThread[k]);
    sc.noIndex = noIndex;
    const char* name = noIndex ? "bitonic keys-only" : "bitonic";
    const uint64_t shared =
        bitonicSharedBytes(sc.wgSize * sc.keysPerThread, sc.wgSize, sc.sgSize, sc.keyWords, !noIndex);
    if (c.algorithm == VKSORT_ALGORITHM_ONESWEEP)
      list->add(name, VKSORT_SPV(bitonic), sc, shared, &out[k]);
    else
      list->add(name, VKSORT_SPV(bitonic_portable), sc, shared, &out[k]);
  }
}

void listPortable(const Config& c, Pipelines* p, KernelList* list) {
  const SpecConstants tile = commonConstants(c, c.t.workgroupSize, c.t.keysPerThread, c.t.stagingRounds);
  list->add("portable count", VKSORT_SPV(portable_count), tile, 0, &p->portableCount);
  for (uint32_t step = 0; step < 3; ++step) {
    SpecConstants sc = commonConstants(c, c.scanWorkgroupSize, 1);
    sc.scanItems = c.scanItems;
    sc.scanStep = step;
    list->add("portable scan", VKSORT_SPV(portable_scan), sc, 0, &p->portableScan[step]);
  }
  const uint32_t staged = (tile.keysPerThread + tile.stagingRounds - 1) / tile.stagingRounds;
  list->add("portable scatter", VKSORT_SPV(portable_scatter), tile,
            portableSharedBytes(tile.wgSize, staged, tile.sgSize, tileItemWords(tile), tile.radixBits),
            &p->portableScatter);
}

void listOnesweep(const Config& c, Pipelines* p, KernelList* list) {
  const VksortTuning& t = c.t;
  list->add("histogram", VKSORT_SPV(histogram), commonConstants(c, c.histogramWorkgroupSize, 1), 0, &p->histogram);
  list->onesweep("onesweep", onesweepConstants(c, t.workgroupSize, t.keysPerThread, t.stagingRounds, t.lookbackLanes),
                 &p->onesweep);
  // The mid-size path's look-backs walk with one lane (vksort_advanced.h).
  if (c.hasMidsize())
    list->onesweep("mid-size onesweep", onesweepConstants(c, t.oneWorkgroupSize, t.oneWorkgroupKeysPerThread, 1, 1),
                   &p->midsizeOnesweep);
  list->onesweep("one workgroup", oneWorkgroupConstants(c, false), &p->oneWorkgroup);
  if (c.hasWideOneWorkgroup())
    list->onesweep("wide one workgroup", oneWorkgroupConstants(c, true), &p->wideOneWorkgroup);
}

#undef VKSORT_SPV

}  // namespace

uint32_t listKernels(const Config& c, Pipelines* pipelines, Kernel kernels[kMaxKernels]) {
  // Only the chosen algorithm's kernels; the bitonic paths serve both.
  KernelList list{kernels, 0};
  if (c.algorithm == VKSORT_ALGORITHM_PORTABLE)
    listPortable(c, pipelines, &list);
  else
    listOnesweep(c, pipelines, &list);
  listBitonic(c, c.bitonic, false, pipelines->bitonic, &list);
  listBitonic(c, c.bitonicKeys, true, pipelines->bitonicKeys, &list);
  return list.count;
}

VksortResult createPipelines(VksortSorter s, VkPipelineCache cache) {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(VksortPush)};
  VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  lci.pushConstantRangeCount = 1;
  lci.pPushConstantRanges = &range;
  VkResult vr = s->fn.createPipelineLayout(s->device, &lci, s->allocator, &s->pipelines.layout);
  if (vr != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreatePipelineLayout failed: VkResult %d", vr);
  Kernel kernels[kMaxKernels];
  const uint32_t count = listKernels(s->config, &s->pipelines, kernels);
  VksortResult r = VKSORT_SUCCESS;
  for (uint32_t i = 0; i < count && r == VKSORT_SUCCESS; ++i)
    r = createPipeline(s, cache, kernels[i].code, kernels[i].codeBytes, kernels[i].constants, kernels[i].name,
                       kernels[i].pipeline);
  return r;
}

void destroyPipelines(VksortSorter s) {
  Pipelines& p = s->pipelines;
  const VkPipeline all[] = {p.histogram,        p.onesweep,        p.midsizeOnesweep, p.oneWorkgroup,
                            p.wideOneWorkgroup, p.bitonic[0],      p.bitonic[1],      p.bitonic[2],
                            p.bitonicKeys[0],   p.bitonicKeys[1],  p.bitonicKeys[2],  p.portableCount,
                            p.portableScan[0],  p.portableScan[1], p.portableScan[2], p.portableScatter};
  for (VkPipeline pipeline : all)
    if (pipeline) s->fn.destroyPipeline(s->device, pipeline, s->allocator);
  if (p.layout) s->fn.destroyPipelineLayout(s->device, p.layout, s->allocator);
  p = Pipelines{};
}

}  // namespace vksort

// What the dispatcher's files share. Data flows one way:
//   vksort.cpp (entry points)
//     -> device.cpp (what the device has and the caller enabled)
//     -> tuning.cpp (a Config: the kernels' shapes for this device and key type)
//     -> pipelines.cpp (one pipeline per kernel variant the Config needs)
//     -> plan.cpp (planSort: a Plan for one sort; no Vulkan calls)
//     -> record.cpp (recordPlan: the dispatches and barriers)
//     -> shaders/*.comp
#ifndef VKSORT_INTERNAL_H
#define VKSORT_INTERNAL_H

#include <stdint.h>

#include "push.h"
#include "spec_constants.h"
#include "testing.h"
#include "vksort/vksort_advanced.h"

namespace vksort {

// Errors: a per-thread message, like errno, so that concurrent recording on
// one sorter needs no lock. fail() sets it and returns code.
VksortResult fail(VksortResult code, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void clearError();
const char* lastError();

// Reads a C enum field as the integer a C caller may have put there: an
// out-of-range value must be reported, and loading it as the C++ enum type
// would be undefined behaviour.
uint32_t enumValue(const void* field);

// ---------------------------------------------------------------------------
// device.cpp
// ---------------------------------------------------------------------------
struct InstanceFunctions {
  PFN_vkGetPhysicalDeviceProperties2 getPhysicalDeviceProperties2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 getPhysicalDeviceFeatures2 = nullptr;
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
  PFN_vkEnumerateDeviceExtensionProperties enumerateDeviceExtensionProperties = nullptr;
};

struct DeviceFunctions {
  PFN_vkCreateShaderModule createShaderModule;
  PFN_vkDestroyShaderModule destroyShaderModule;
  PFN_vkCreatePipelineLayout createPipelineLayout;
  PFN_vkDestroyPipelineLayout destroyPipelineLayout;
  PFN_vkCreateComputePipelines createComputePipelines;
  PFN_vkDestroyPipeline destroyPipeline;
  PFN_vkGetBufferDeviceAddress getBufferDeviceAddress;
  PFN_vkCmdBindPipeline cmdBindPipeline;
  PFN_vkCmdPushConstants cmdPushConstants;
  PFN_vkCmdDispatch cmdDispatch;
  PFN_vkCmdDispatchIndirect cmdDispatchIndirect;
  PFN_vkCmdPipelineBarrier cmdPipelineBarrier;
  PFN_vkCmdFillBuffer cmdFillBuffer;
  PFN_vkCmdWriteTimestamp cmdWriteTimestamp;
  // VK_EXT_debug_utils, loaded only when VksortCreateInfo::debugLabels is set.
  PFN_vkCmdBeginDebugUtilsLabelEXT cmdBeginDebugUtilsLabel;
  PFN_vkCmdEndDebugUtilsLabelEXT cmdEndDebugUtilsLabel;
};

// The device features vksort may need (which ones, by algorithm:
// device.cpp, requiredFeatures).
enum Feature {
  kBufferDeviceAddress,
  kSubgroupSizeControl,
  kComputeFullSubgroups,
  kShaderInt64,
  kShaderBufferInt64Atomics,
  kVulkanMemoryModel,
  kVulkanMemoryModelDeviceScope,
  kFeatureCount
};

struct FeatureSet {
  bool has[kFeatureCount];
};

// What vksort reads of a physical device. Below Vulkan 1.3, props13 holds
// the subgroup size control extension's properties.
struct DeviceInfo {
  uint32_t apiVersion = 0;  // the lower of the instance's (as the caller says) and the device's
  bool subgroupSizeControlExtension = false;
  FeatureSet supported{};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceVulkan11Properties props11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties props12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan13Properties props13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceSubgroupSizeControlProperties sizeControlProps{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlFeatures sizeControlFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
};

VksortResult loadInstanceFunctions(VkInstance instance, PFN_vkGetInstanceProcAddr gipa, InstanceFunctions* f);
VksortResult loadDeviceFunctions(VkDevice device, PFN_vkGetDeviceProcAddr gdpa, DeviceFunctions* f);
// apiVersion: the instance's, as the caller gives it (0 = Vulkan 1.2).
void queryDevice(const InstanceFunctions& fn, VkPhysicalDevice pd, uint32_t apiVersion, DeviceInfo* info);
// Whether compute pipelines can require the device's subgroupSize
// (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo).
bool subgroupSizeIsPinnable(const DeviceInfo& info);
// Whether every kernel runs at the subgroup size it is built for: the size
// can be pinned, or the device has only one. Elsewhere (MoltenVK, where Metal
// picks a SIMD width per pipeline and AMD and Intel Macs report a range) a
// kernel might run at another size, lose lanes and index its per-subgroup
// arrays out of range, so checkSupport refuses the device.
bool subgroupSizeIsKnown(const DeviceInfo& info);
// Whether the device has every feature and property the algorithm needs; the
// message lists what it lacks.
VksortResult checkSupport(const DeviceInfo& info, VksortAlgorithm algorithm);
// What the caller enabled on its device (features, and the subgroup size
// control extension below Vulkan 1.3).
FeatureSet enabledFeatures(const DeviceInfo& info, const VkDeviceCreateInfo& ci);
// Whether the caller enabled every feature the algorithm needs.
VksortResult checkEnabled(const FeatureSet& enabled, VksortAlgorithm algorithm);
// Whether the driver is known to give running workgroups forward progress,
// which Onesweep's look-back needs (the table is in vksort.h, at
// VksortAlgorithm). Unknown drivers get no.
bool driverHasForwardProgress(VkDriverId driver);
// Resolves AUTO: Onesweep where the driver gives forward progress and the
// device has and enabled what Onesweep needs, else the portable algorithm.
VksortAlgorithm chooseAlgorithm(const DeviceInfo& info, VksortAlgorithm requested, const FeatureSet& enabled);
void fillRequirements(const DeviceInfo& info, VksortAlgorithm algorithm, VksortDeviceRequirements* req);
VksortResult enableRequiredFeatures(const VksortDeviceRequirements& req, VkPhysicalDeviceFeatures2* features2);

// ---------------------------------------------------------------------------
// tuning.cpp: the Config of a sorter
// ---------------------------------------------------------------------------
// A set of bitonic.comp kernels by capacity: kernel c sorts up to
// workgroupSize[c] x keysPerThread[c] keys, half as many as kernel c - 1;
// workgroup size 0 = no kernel.
struct BitonicKernels {
  uint32_t workgroupSize[3];
  uint32_t keysPerThread[3];
};

// Everything a sorter decides at creation, as plain values: which algorithm,
// the kernels' shapes for this device and key type. No Vulkan handles, so
// that planSort can be tested without a GPU.
struct Config {
  // What is sorted.
  uint32_t keyWords;    // 1: 32-bit keys, 2: 64-bit keys
  uint32_t keyKind;     // KEY_KIND_* of common.glsl: 0 unsigned, 1 signed, 2 float
  uint32_t valueWords;  // 0: keys only, 1: 32-bit values (and argsort), 2: 64-bit values
  bool valueIndex;      // argsort
  // The device.
  uint32_t subgroupSize;
  bool pinSubgroupSize;  // pass VkPipelineShaderStageRequiredSubgroupSizeCreateInfo
  bool statusRmw;        // status ring through read-modify-write atomics only (status_ring.glsl)
  uint32_t maxShared;    // maxComputeSharedMemorySize
  uint32_t maxWorkgroupSize;
  uint32_t maxDispatchX;  // maxComputeWorkGroupCount[0]
  // Every workgroup size is a multiple of this: the subgroup size, or where
  // it cannot be pinned, the largest the device may run.
  uint32_t workgroupGranule;
  // The algorithm (AUTO resolved) and its digit width.
  VksortAlgorithm algorithm;
  uint32_t radixBits;
  // The tuning, defaults resolved and overrides applied; paths that are off
  // hold VKSORT_TUNING_OFF.
  VksortTuning t;
  VksortTestingHooks hooks;         // resolved: spinBudget > 0
  uint32_t histogramWorkgroupSize;  // 256, or less where the device allows fewer invocations
  uint32_t scanWorkgroupSize;       // the portable scan's
  uint32_t scanItems;               // table entries per scan invocation
  bool oneWorkgroupInShared;        // the one-workgroup kernel keeps keys and values in shared memory
  BitonicKernels bitonic;           // with the index: up to bitonicMaxCount, and half
  BitonicKernels bitonicKeys;       // without it: up to bitonicKeysMaxCount, half and a quarter

  uint32_t tileKeys() const { return t.workgroupSize * t.keysPerThread; }
  uint32_t oneWorkgroupKeys() const { return t.oneWorkgroupSize * t.oneWorkgroupKeysPerThread; }
  bool hasWideOneWorkgroup() const { return t.oneWorkgroupMaxCount > oneWorkgroupKeys(); }
  bool hasMidsize() const { return t.midsizeMaxCount != VKSORT_TUNING_OFF; }
  uint32_t keyBits() const { return 32 * keyWords; }
  uint32_t keyBytes() const { return 4 * keyWords; }
  uint32_t valueBytes() const { return 4 * valueWords; }
};

// Resolves the create info (key and value types, tuning) for a device and
// an algorithm (never AUTO) into a Config, checking every field.
VksortResult chooseConfig(const DeviceInfo& info, const VksortCreateInfo& ci, VksortAlgorithm algorithm,
                          const VksortTestingHooks* hooks, Config* config);
// Shared memory, in bytes, of onesweep.comp, portable_scatter.comp and
// bitonic.comp in a shape: the formulas that keep every tuning inside the
// device's limits, which mirror the kernels' shared declarations.
// itemWords: the 32-bit words the tile holds per key (tileSharedBytes in
// tuning.cpp says which).
uint64_t onesweepSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg, uint32_t itemWords);
uint64_t portableSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg, uint32_t itemWords, uint32_t radixBits);
uint64_t bitonicSharedBytes(uint32_t capacity, uint32_t wg, uint32_t sg, uint32_t keyWords, bool index);
// Whether a tile of this shape, staged in stagingRounds rounds, stages
// 64-bit keys and values through shared memory a word at a time
// (tile_sort.glsl, ONE_WORD_STAGING).
bool stageOneWord(const Config& c, uint32_t workgroupSize, uint32_t keysPerThread, uint32_t stagingRounds);

// ---------------------------------------------------------------------------
// plan.cpp: one sort, as a value
// ---------------------------------------------------------------------------
constexpr VkDeviceSize kTempAlignment = 16;

// The portable algorithm's table scan: kScanBlock table entries per block,
// the same on every device, so that temp memory is too.
constexpr uint32_t kScanBlock = 2048;

// The temp bytes a sort of up to count keys needs.
VkDeviceSize tempBytes(const Config& c, uint32_t count);

struct Plan {
  VksortSortPlan summary;        // what vksortGetSortPlan reports
  uint32_t kernel;               // bitonic paths: which kernel of the set (capacity >> kernel)
  uint32_t histogramWorkgroups;  // Onesweep paths
  bool headIndirect;             // Onesweep paths: the one-workgroup kernel heads a sort with an indirect count
  uint32_t scanBlocks;           // portable: blocks of the table scan
  uint32_t tileGrid[2];          // portable: workgroups in x and y for the tiles
  uint32_t blockGrid[2];         // portable: and for the scan blocks
  VkDeviceSize tempBytes;        // what temp must hold
  VksortPush push;               // every field but the device addresses
  uint32_t storeXor[4];          // the last pass's key mapping (push.storeXor is per pass)
};

// Plans a sort: checks count and bit range, picks the path, the passes and
// the shapes, and fills the push constants. Makes no Vulkan calls.
VksortResult planSort(const Config& c, const VksortSortInfo& info, Plan* plan);
// Checks the sort's buffer ranges against the plan: sizes, alignment,
// overlaps.
VksortResult checkRanges(const Config& c, const VksortSortInfo& info, const Plan& plan);

// ---------------------------------------------------------------------------
// pipelines.cpp
// ---------------------------------------------------------------------------
struct Pipelines {
  VkPipelineLayout layout;
  VkPipeline histogram;
  VkPipeline onesweep;
  VkPipeline midsizeOnesweep;   // onesweep.comp in the one-workgroup tile shape
  VkPipeline oneWorkgroup;      // onesweep.comp with ONE_WORKGROUP
  VkPipeline wideOneWorkgroup;  // the same, twice as wide
  VkPipeline bitonic[3];        // [c]: up to bitonicMaxCount >> c ([2] unused)
  VkPipeline bitonicKeys[3];    // [c]: up to bitonicKeysMaxCount >> c
  VkPipeline portableCount;
  VkPipeline portableScan[3];  // reduce, scan of the block sums, downsweep
  VkPipeline portableScatter;
};

}  // namespace vksort

// The sorter: immutable after creation.
struct VksortSorter_T {
  VkDevice device = VK_NULL_HANDLE;
  const VkAllocationCallbacks* allocator = nullptr;
  VkAllocationCallbacks allocatorCopy{};
  vksort::DeviceFunctions fn{};
  vksort::Config config{};
  vksort::Pipelines pipelines{};
};

namespace vksort {

// Every specialization constant, one 32-bit field per ID of
// spec_constants.h, in ID order (pipelines.cpp checks each offset). Each
// kernel reads the ones it declares.
struct SpecConstants {
  uint32_t wgSize;
  uint32_t sgSize;
  uint32_t keysPerThread;
  uint32_t keyWords;
  uint32_t keyKind;
  uint32_t valueWords;
  uint32_t valueIndex;
  uint32_t oneWordStaging;
  uint32_t radixBits;
  uint32_t scanStep;
  uint32_t ringSlots;
  uint32_t lookback;
  uint32_t tailBits;
  uint32_t statusRmw;
  uint32_t spinBudget;
  uint32_t publishDelay;
  uint32_t lookbackLanes;
  uint32_t oneWorkgroup;
  uint32_t tileInShared;
  uint32_t noIndex;
  uint32_t scanItems;
  uint32_t stagingRounds;
  uint32_t wideBallot;
};

// One pipeline a sorter creates: its kernel's embedded SPIR-V, its
// specialization constants, the shared memory that tuning.cpp's formulas
// give it (0 for the histogram and the portable count and scan, whose
// shared arrays are small and do not follow the tile), and where in
// Pipelines it goes. tests/test_device_models.cpp checks each against the
// SPIR-V specialized with its constants.
struct Kernel {
  const char* name;
  const uint32_t* code;
  size_t codeBytes;
  SpecConstants constants;
  uint64_t sharedBytes;
  VkPipeline* pipeline;
};
constexpr uint32_t kMaxKernels = 16;

// The kernels a Config needs, in the order they are created; returns how
// many. Makes no Vulkan calls.
uint32_t listKernels(const Config& c, Pipelines* pipelines, Kernel kernels[kMaxKernels]);
VksortResult createPipelines(VksortSorter s, VkPipelineCache cache);
void destroyPipelines(VksortSorter s);

// ---------------------------------------------------------------------------
// record.cpp
// ---------------------------------------------------------------------------
void recordPlan(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, const Plan& plan);

}  // namespace vksort

#endif

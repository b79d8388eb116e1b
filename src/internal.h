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

// Segmented sorts: the micro class's keys per invocation (its largest
// segment), and the tiny class's keys per lane.
constexpr uint32_t kSegmentMicroKeys = 16;
constexpr uint32_t kSegmentTinyKeys = 8;
// Segmented sorts on Onesweep sorters: the medium class's largest segment
// (docs/tuning.md).
constexpr uint32_t kSegmentMediumKeys = 4096;

// Everything a sorter decides at creation, as plain values: which algorithm,
// the kernels' shapes for this device and key type. No Vulkan handles, so
// that planSort can be tested without a GPU.
struct Config {
  // What is sorted.
  uint32_t keyWords;    // 1: 32-bit keys, 2: 64-bit keys
  uint32_t keyKind;     // VKSORT_KEY_KIND_* (spec_constants.h)
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
  uint32_t midsizeLookbackLanes;    // the mid-size tiles' lookbackLanes
  bool oneWorkgroupInShared;        // the one-workgroup kernel keeps keys and values in shared memory
  BitonicKernels bitonic;           // with the index: up to bitonicMaxCount, and half
  BitonicKernels bitonicKeys;       // without it: up to bitonicKeysMaxCount, half and a quarter
  // Segmented sorts (VksortCreateInfo::segmented): the bins kernel's
  // workgroup; the bitonic kernels of lanes, segmentGroup subgroups per
  // workgroup: micro (one invocation, kSegmentMicroKeys keys), tiny
  // (segmentTinyLanes lanes of kSegmentTinyKeys keys), half-subgroup (half
  // the subgroup's lanes) and subgroup (the subgroup), both with
  // segmentSubgroupKeys keys per lane; the small class's (one
  // workgroup; 0: none); and the medium class's largest segment (Onesweep
  // sorters: one workgroup's radix passes in the one-workgroup kernel's
  // shape; 0: none), and whether it keeps the segment in shared memory
  // between passes (where the segment is one tile and fits).
  bool segmented;
  uint32_t segmentBinsWorkgroup;
  uint32_t segmentGroup;
  uint32_t segmentTinyLanes;
  uint32_t segmentSubgroupKeys;
  uint32_t segmentSmallWorkgroup;
  uint32_t segmentSmallKeys;
  uint32_t segmentMediumKeys;
  bool segmentMediumInShared;

  uint32_t tileKeys() const { return t.workgroupSize * t.keysPerThread; }
  uint32_t oneWorkgroupKeys() const { return t.oneWorkgroupSize * t.oneWorkgroupKeysPerThread; }
  // The one-workgroup paths (VKSORT_TUNING_OFF: none; the one-workgroup
  // kernel still heads Onesweep sorts with an indirect count).
  bool hasOneWorkgroup() const { return t.oneWorkgroupMaxCount != VKSORT_TUNING_OFF; }
  bool hasWideOneWorkgroup() const { return hasOneWorkgroup() && t.oneWorkgroupMaxCount > oneWorkgroupKeys(); }
  bool hasMidsize() const { return t.midsizeMaxCount != VKSORT_TUNING_OFF; }
  // The mid-size path's tiles of half the keys per invocation, for counts up
  // to half of midsizeMaxCount and at most 2^18 (docs/tuning.md).
  bool hasMidsizeHalf() const { return hasMidsize() && t.oneWorkgroupKeysPerThread >= 2; }
  uint32_t midsizeHalfMaxCount() const {
    return !hasMidsizeHalf() ? 0 : t.midsizeMaxCount / 2 < (1u << 18) ? t.midsizeMaxCount / 2 : 1u << 18;
  }
  // Whether a Onesweep sort of `count` keys (at record time) chains its
  // passes in one dispatch.
  bool chains(uint32_t count) const { return t.chainedMaxCount != VKSORT_TUNING_OFF && count <= t.chainedMaxCount; }
  // The classes' largest segments, each at least the one before.
  uint32_t segmentMicroMax() const { return kSegmentMicroKeys; }
  uint32_t segmentTinyMax() const { return segmentTinyLanes * kSegmentTinyKeys; }
  uint32_t segmentSubgroupMax() const { return subgroupSize * segmentSubgroupKeys; }
  // Where half the subgroup's lanes hold no more than the tiny class's
  // lanes (subgroups of up to 8 lanes), the half-subgroup class is empty.
  uint32_t segmentHalfLanes() const { return subgroupSize / 2; }
  uint32_t segmentHalfMax() const {
    const uint32_t half = segmentHalfLanes() * segmentSubgroupKeys;
    return half > segmentTinyMax() ? half : segmentTinyMax();
  }
  bool hasSegmentHalf() const { return segmented && segmentHalfMax() > segmentTinyMax(); }
  uint32_t segmentSmallMax() const {
    const uint32_t small = segmentSmallWorkgroup * segmentSmallKeys;
    return small > segmentSubgroupMax() ? small : segmentSubgroupMax();
  }
  uint32_t segmentMediumMax() const {
    return segmentMediumKeys > segmentSmallMax() ? segmentMediumKeys : segmentSmallMax();
  }
  // Whether a segmented sort of `count` keys in `passes` passes may split
  // its large segments by their top digit: on Onesweep sorters, where the
  // passes have a dispatch each (the segment histogram kernel splits them).
  // A segment splits where each bucket holds at most segmentBucketMax()
  // keys, which the kernels of lanes sort (docs/tuning.md).
  bool segmentSplits(uint32_t count, uint32_t passes) const {
    return segmented && algorithm == VKSORT_ALGORITHM_ONESWEEP && passes >= 2 && !chains(count);
  }
  uint32_t segmentBucketMax() const { return segmentSubgroupMax(); }
  // Whether large segments may also split on their top two digits: where
  // they split and have at least four passes (segment_list.glsl,
  // splitTwoMin: the least keys of such a segment).
  uint32_t segmentSplitTwoMin() const { return VKSORT_RADIX * (segmentMediumMax() + 1); }
  bool segmentSplitsTwo(uint32_t count, uint32_t passes) const {
    return segmentSplits(count, passes) && passes >= 4 && count >= segmentSplitTwoMin();
  }
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
// The shared memory that onesweep.comp built with VKSORT_SEGMENT_TILES adds
// to its shape's: each pass's digit positions in the medium segments'
// kernel (ONE_WORKGROUP), one word in the large segments'.
uint64_t segmentOnesweepExtraSharedBytes(bool medium, uint32_t keyWords);
uint64_t bitonicSharedBytes(uint32_t capacity, uint32_t wg, uint32_t sg, uint32_t keyWords, bool index);
uint64_t segmentStageBytes(uint32_t wg, uint32_t sg, uint32_t kpt);
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

// The kernels a sorter may have, one pipeline each (Pipelines::kernel).
enum Kernel : uint8_t {
  kKernelHistogram,                         // histogram.comp
  kKernelOnesweep,                          // onesweep.comp in the tile shape
  kKernelMidsizeOnesweep,                   // onesweep.comp in the one-workgroup tile shape
  kKernelMidsizeOnesweepHalf,               // the same with half the keys per invocation
  kKernelOneWorkgroup,                      // onesweep.comp with ONE_WORKGROUP
  kKernelWideOneWorkgroup,                  // the same, twice as wide
  kKernelBitonic,                           // bitonic.comp, up to bitonicMaxCount keys; + c: up to bitonicMaxCount >> c
  kKernelBitonicKeys = kKernelBitonic + 3,  // bitonic keys-only; + c: up to bitonicKeysMaxCount >> c
  kKernelPortableCount = kKernelBitonicKeys + 3,
  kKernelPortableReduce,     // portable_scan.comp, SCAN_STEP 0: the blocks' sums
  kKernelPortableScanSums,   // SCAN_STEP 1: the scan of the block sums
  kKernelPortableDownsweep,  // SCAN_STEP 2: each block's scan, from its sum's prefix
  kKernelPortableScatter,
  kKernelSegmentBins,       // segment_bins.comp
  kKernelSegmentMicro,      // bitonic.comp, VKSORT_SEGMENTED_LANES
  kKernelSegmentTiny,       // bitonic.comp, VKSORT_SEGMENTED_LANES
  kKernelSegmentHalf,       // bitonic.comp, VKSORT_SEGMENTED_LANES
  kKernelSegmentSubgroup,   // bitonic.comp, VKSORT_SEGMENTED_LANES
  kKernelSegmentSmall,      // bitonic.comp, VKSORT_SEGMENTED_WORKGROUP
  kKernelSegmentCount,      // portable_count.comp, VKSORT_SEGMENTED_TILES
  kKernelSegmentScatter,    // portable_scatter.comp built with VKSORT_SEGMENT_TILES
  kKernelSegmentHistogram,  // histogram.comp built with VKSORT_SEGMENT_TILES
  kKernelSegmentOnesweep,   // onesweep.comp built with VKSORT_SEGMENT_TILES
  kKernelSegmentMedium,     // the same module, ONE_WORKGROUP: a workgroup's passes over one segment
  kKernelSegmentBuckets,    // segment_buckets.comp: finds and lists the two-digit buckets
  // The four reorder kernels above with every pass in one dispatch
  // (onesweep.comp, CHAINED), in the same order: chainedKernel.
  kKernelOnesweepChained,
  kKernelMidsizeOnesweepChained,
  kKernelMidsizeOnesweepHalfChained,
  kKernelSegmentOnesweepChained,
  kKernelCount
};
// The name of a kernel, as pipelines are named in error messages.
const char* kernelName(Kernel k);
// A reorder kernel's twin with every pass in one dispatch, and back.
inline Kernel chainedKernel(Kernel k) {
  return k == kKernelSegmentOnesweep ? kKernelSegmentOnesweepChained
                                     : Kernel(k - kKernelOnesweep + kKernelOnesweepChained);
}
inline Kernel unchainedKernel(Kernel k) {
  return k == kKernelSegmentOnesweepChained ? kKernelSegmentOnesweep
                                            : Kernel(k - kKernelOnesweepChained + kKernelOnesweep);
}
inline bool isChainedKernel(Kernel k) { return k >= kKernelOnesweepChained && k < kKernelCount; }

// One command of a sort, as recordPlan records it into the caller's
// command buffer.
enum CommandType : uint8_t {
  kCmdTimestamp,         // vkCmdWriteTimestamp: query firstTimestampQuery + query (0 at the top, 1 at the bottom)
  kCmdBeginLabel,        // vkCmdBeginDebugUtilsLabelEXT "vksort <path> <label>" (labelName), " p/passes" for a pass
  kCmdEndLabel,          // vkCmdEndDebugUtilsLabelEXT
  kCmdBarrier,           // vkCmdPipelineBarrier with one VkMemoryBarrier
  kCmdFillHeader,        // vkCmdFillBuffer: zeroes `fill.size` bytes of temp from `fill.offset`
  kCmdDispatch,          // vkCmdDispatch(groups[0], groups[1], 1) of `kernel`
  kCmdDispatchIndirect,  // vkCmdDispatchIndirect of `kernel`, the command at `indirectOffset` bytes into temp
};

// What a labelled group of commands does (VksortCreateInfo::debugLabels);
// the labels from kLabelPass on belong to one pass.
enum Label : uint8_t {
  kLabelSort,
  kLabelOneDispatch,  // a sort with an indirect count: the one-dispatch routes' kernels
  kLabelClear,
  kLabelHistogram,
  kLabelBins,
  kLabelMicro,
  kLabelTiny,
  kLabelHalf,
  kLabelSubgroup,
  kLabelSmall,
  kLabelMedium,
  kLabelBuckets,          // the class kernels over the buckets of split segments
  kLabelTwoDigitBuckets,  // the same over the buckets of segments split on two digits
  kLabelPasses,           // Onesweep's reorder dispatch: every pass
  kLabelPass,
  kLabelCount,
  kLabelScan,
  kLabelScatter
};
// The label's words after "vksort <path>" ("" for kLabelSort); passes are
// numbered from 1.
const char* labelName(Label l);

// The push constants of a dispatch, from Plan::push and the buffers.
enum PushKind : uint8_t {
  kPushPass,         // digit pass `pass`: reads keys[pass % 2] (and values), writes the other buffer
  kPushChained,      // every pass in one dispatch: pass p reads keys[p % 2] and writes the other buffer
  kPushOneDispatch,  // reads keys, writes buffer `pass` (0 keys, 1 alt; the one-workgroup kernel then ping-pongs)
  kPushSegmentBins,  // segment_bins.comp: keysIn is the segment offsets' address
  kPushBuckets,      // the class kernels over split segments' buckets: read alt, write buffer `pass`
  kPushSplitTwo,     // the class kernels over the two-digit buckets: read keys, write buffer `pass`
  kPushFindBuckets,  // segment_buckets.comp: reads keys (pass 1's output)
};

struct Command {
  CommandType type;
  Kernel kernel;  // dispatches
  PushKind push;  // dispatches
  Label label;    // kCmdBeginLabel
  uint8_t pass;   // dispatches and labels of a pass: the pass; kPushOneDispatch: the output buffer
  // Dispatches: recorded with no barrier from the compute stage after the
  // dispatch before it, its alternative: only one of them sorts. The routes
  // of a Onesweep sort with an indirect count (VKSORT_FLAG_LIVE_ROUTE), and
  // a segmented sort's reorder chains.
  bool alternative;
  union {
    // kCmdDispatch: workgroups in x and y. Onesweep's tile dispatches are
    // recorded as several of at most maxComputeWorkGroupCount[0] workgroups
    // each, with no barrier between them: their workgroups take tiles from
    // an atomic counter, so they form one grid.
    uint32_t groups[2];
    VkDeviceSize indirectOffset;  // kCmdDispatchIndirect: bytes from the start of temp
    uint32_t query;               // kCmdTimestamp
    struct {                      // kCmdFillHeader
      VkDeviceSize offset, size;
    } fill;
    struct {  // kCmdBarrier
      VkPipelineStageFlags srcStage, dstStage;
      VkAccessFlags srcAccess, dstAccess;
    } barrier;
  };
};

// The most commands a sort records: the portable algorithm with 1-bit digits
// on 64-bit keys (64 passes of three labelled groups, five barriers and five
// dispatches), after a segmented sort's clearing, bins and class dispatches
// (at most 22 commands), and the two timestamps.
constexpr uint32_t kMaxCommands = 64 * 16 + 24;

struct Plan {
  VksortSortPlan summary;             // what vksortGetSortPlan reports
  VksortSegmentedSortPlan segmented;  // segmented sorts: what vksortGetSegmentedSortPlan reports
  VkDeviceSize tempBytes;             // what temp must hold
  VksortPush push;                    // every field but the device addresses
  uint32_t storeXor[4];               // the last pass's key mapping (push.storeXor is per pass)
  // Segmented sorts that may split large segments (kPushBuckets): bytes
  // from the segments' area to the buckets' area, and the buckets' capacity.
  VkDeviceSize splitShift;
  uint32_t splitBuckets;
  // The same for the two-digit buckets' area (kPushSplitTwo).
  VkDeviceSize splitTwoShift;
  uint32_t splitTwoBuckets;
  // Everything recordPlan records, in order.
  uint32_t commandCount;
  Command commands[kMaxCommands];
};

// Plans a sort: checks count and bit range, picks the path, the passes and
// the shapes, and fills the push constants. Makes no Vulkan calls.
VksortResult planSort(const Config& c, const VksortSortInfo& info, Plan* plan);
// Checks the sort's buffer ranges against the plan: sizes, alignment,
// overlaps.
VksortResult checkRanges(const Config& c, const VksortSortInfo& info, const Plan& plan);

// Segmented sorts. The most tiles the large segments of count keys may have
// (see vksort.h), the temp bytes for up to count keys in up to `segments`
// segments (of `passes` passes: Onesweep's histograms), and where the
// segments' area starts in temp (push.h).
uint32_t segmentMaxTiles(const Config& c, uint32_t count);
VkDeviceSize segmentedTempBytes(const Config& c, uint32_t count, uint32_t segments, uint32_t passes);
VkDeviceSize segmentAreaOffset(const Config& c, uint32_t maxTiles);
// Plans a segmented sort (summary.path VKSORT_PATH_SEGMENTED) and checks
// its ranges.
VksortResult planSegmentedSort(const Config& c, const VksortSegmentedSortInfo& info, Plan* plan);
VksortResult checkSegmentedRanges(const Config& c, const VksortSegmentedSortInfo& info, const Plan& plan);

// ---------------------------------------------------------------------------
// pipelines.cpp
// ---------------------------------------------------------------------------
struct Pipelines {
  VkPipelineLayout layout;
  VkPipeline kernel[kKernelCount];  // the sorter's kernels; VK_NULL_HANDLE where it has none
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
  uint32_t segmented;
  uint32_t segmentTinyMax;
  uint32_t segmentSmallMax;
  uint32_t segmentGroup;
  uint32_t segmentMicroMax;
  uint32_t segmentSubgroupMax;
  uint32_t segmentLanes;
  uint32_t segmentClass;
  uint32_t chained;
  uint32_t midsizeMaxCount;
  uint32_t midsizeHalfMaxCount;
  uint32_t route;
  uint32_t segmentStage;
  uint32_t bitonicKeysMaxCount;
  uint32_t bitonicMaxCount;
  uint32_t oneWorkgroupMaxCount;
  uint32_t chainedMaxCount;
  uint32_t segmentMediumMax;
  uint32_t segmentSplitMax;
  uint32_t midsizeHalfTileKeys;
  uint32_t midsizeTileKeys;
  uint32_t tileKeys;
  uint32_t segmentHalfMax;
};

// One pipeline a sorter creates: its kernel's embedded SPIR-V, its
// specialization constants, the shared memory that tuning.cpp's formulas
// give it (0 for the histogram and the portable count and scan, whose
// shared arrays are small and do not follow the tile), and where in
// Pipelines it goes. tests/test_device_models.cpp checks each against the
// SPIR-V specialized with its constants.
struct KernelBuild {
  const char* name;
  const uint32_t* code;
  size_t codeBytes;
  SpecConstants constants;
  uint64_t sharedBytes;
  VkPipeline* pipeline;
};
constexpr uint32_t kMaxKernels = kKernelCount;

// The kernels a Config needs, in the order they are created; returns how
// many. Makes no Vulkan calls.
uint32_t listKernels(const Config& c, Pipelines* pipelines, KernelBuild kernels[kMaxKernels]);
// Whether a sorter of this Config has a kernel (the paths its tuning turns
// on, of its algorithm). No Vulkan calls.
bool hasKernel(const Config& c, Kernel k);
// A pipeline for every kernel the sorter has.
VksortResult createPipelines(VksortSorter s, VkPipelineCache cache);
void destroyPipelines(VksortSorter s);

// ---------------------------------------------------------------------------
// record.cpp
// ---------------------------------------------------------------------------
// segmentOffsets: a segmented sort's offsets (kPushSegmentBins), else null.
void recordPlan(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, const Plan& plan,
                const VksortBufferRange* segmentOffsets = nullptr);

}  // namespace vksort

#endif

// vksort: GPU radix sort recorded into your Vulkan command buffers.
//
// This header is the manual. vksort records an LSD radix sort (Onesweep with
// decoupled look-back over a constant-size circular status buffer) into a
// VkCommandBuffer that you own. It never submits, waits, or allocates memory
// while recording; it creates its pipelines once, when the sorter is created.
//
// Typical use:
//
//   VkPhysicalDeviceVulkan12Features f12 = {...}; VkPhysicalDeviceVulkan13Features f13 = {...};
//   VkPhysicalDeviceFeatures2 f2 = {...};
//   vksortEnableRequiredFeatures(&f2, &f12, &f13);   // before vkCreateDevice
//   ... vkCreateDevice(physicalDevice, &deviceCreateInfo, ...) ...
//
//   VksortCreateInfo ci = {};
//   ci.instance = instance; ci.physicalDevice = physicalDevice; ci.device = device;
//   ci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr;  // the loader's, or volk's
//   ci.pDeviceCreateInfo = &deviceCreateInfo;            // tells vksort what you enabled
//   VksortSorter sorter;
//   if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) puts(vksortGetLastError());
//
//   VksortMemoryRequirements req;
//   vksortGetMemoryRequirements(sorter, maxCount, &req);  // create the alt and temp buffers
//
//   VksortSortInfo si = {};
//   si.count = n; si.keys = {keysBuf, 0, n * 4}; si.alt = {altBuf, 0, req.altSize};
//   si.temp = {tempBuf, 0, req.tempSize};
//   VksortResultBuffer where;
//   vksortRecordSort(sorter, cmd, &si, &where);  // sorted keys end up in si.keys or si.alt
//
// Keys: 32-bit unsigned integers, ascending. The sort is stable.
//
// Barrier contract (what the caller owes):
//  - Before the sort: every earlier write to the keys buffer must be made
//    available and visible to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with
//    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, and every earlier
//    access (read or write) to the alt and temp ranges must have completed
//    before VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT.
//    This includes an earlier vksort sort that used the same temp range.
//  - After the sort: the result range (keys or alt, see VksortResultBuffer)
//    was last written by VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with
//    VK_ACCESS_SHADER_WRITE_BIT. Put a barrier from there to your consumer.
//    The other range (and temp) holds scratch data; wait on the same stage
//    before reusing them.
//  - vksort records its own barriers between its dispatches. It uses
//    vkCmdFillBuffer (transfer stage) on the temp range, then compute
//    dispatches. It binds its own compute pipeline and push constants: after
//    vksortRecordSort the compute pipeline binding and the push-constant
//    contents are undefined. No descriptor sets are used or disturbed.
//
// Threading: a VksortSorter is immutable after creation. Any number of threads
// may call vksortGetMemoryRequirements and vksortRecordSort on one sorter at
// the same time, each into its own command buffer (the usual Vulkan rule for
// command buffers and pools applies). Create and destroy are not thread-safe
// with respect to other calls on the same sorter. vksortGetLastError is
// per thread.
//
// Device requirements: a Vulkan 1.3 device and instance (apiVersion >= 1.3),
// with these features enabled at device creation (vksortEnableRequiredFeatures
// sets exactly these):
//  - VkPhysicalDeviceFeatures::shaderInt64
//  - VkPhysicalDeviceVulkan12Features::bufferDeviceAddress
//  - VkPhysicalDeviceVulkan12Features::shaderBufferInt64Atomics
//  - VkPhysicalDeviceVulkan12Features::vulkanMemoryModel
//  - VkPhysicalDeviceVulkan12Features::vulkanMemoryModelDeviceScope
//  - VkPhysicalDeviceVulkan13Features::subgroupSizeControl
//  - VkPhysicalDeviceVulkan13Features::computeFullSubgroups
// and these properties: subgroup size between 4 and 128; subgroup operations
// BASIC, BALLOT, SHUFFLE and ARITHMETIC in the compute stage; at least 16 KiB
// of compute shared memory. vksortCheckDeviceSupport tells whether a physical
// device qualifies before you create a VkDevice.
//
// Onesweep's look-back lets one workgroup wait for another that started
// earlier, which needs the forward progress that desktop drivers (NVIDIA,
// AMD, Intel) and lavapipe give to running workgroups.
#ifndef VKSORT_VKSORT_H
#define VKSORT_VKSORT_H

#include <stdint.h>
#include <vulkan/vulkan.h>  // types and PFN_ typedefs only: vksort calls no prototype

#ifdef __cplusplus
extern "C" {
#endif

#define VKSORT_VERSION_MAJOR 0
#define VKSORT_VERSION_MINOR 1
#define VKSORT_VERSION_PATCH 0

// The largest count vksort sorts: 2^30 keys.
#define VKSORT_MAX_COUNT (1u << 30)

// Every call returns one of these. On anything but VKSORT_SUCCESS the call has
// recorded nothing and changed nothing, and vksortGetLastError() describes
// what was wrong.
typedef enum VksortResult {
  VKSORT_SUCCESS = 0,
  VKSORT_ERROR_INVALID_ARGUMENT = -1,      // a null pointer or handle, or a field out of range
  VKSORT_ERROR_FEATURE_NOT_ENABLED = -2,   // a required device feature was not enabled
  VKSORT_ERROR_DEVICE_NOT_SUPPORTED = -3,  // the physical device lacks a required feature or property
  VKSORT_ERROR_BUFFER_TOO_SMALL = -4,      // a buffer range is smaller than the sort needs
  VKSORT_ERROR_MISALIGNED = -5,            // a buffer offset breaks its alignment rule
  VKSORT_ERROR_COUNT_TOO_LARGE = -6,       // count > VKSORT_MAX_COUNT (or > the maxCount asked for)
  VKSORT_ERROR_OUT_OF_HOST_MEMORY = -7,    // an allocation at sorter creation failed
  VKSORT_ERROR_VULKAN = -8                 // a Vulkan call failed at sorter creation (the message names it)
} VksortResult;

// A readable description of the last error on the calling thread (empty if
// the last call succeeded). The pointer stays valid until the next vksort call
// on this thread.
const char* vksortGetLastError(void);

// The name of a result code, e.g. "VKSORT_ERROR_BUFFER_TOO_SMALL".
const char* vksortResultName(VksortResult result);

typedef struct VksortSorter_T* VksortSorter;

// Advanced: override the kernels' shape. Zero fields mean "the tuned default
// for this device". Tests use a tiny ring to force wrap-around; benchmarks use
// it to compare shapes. Rules (checked at creation):
//   workgroupSize a multiple of the subgroup size, at most 1024;
//   tailGroup a power of two; ringSlots >= lookback + tailGroup; lookback >= 1;
//   ringSlots <= 65536; lookback <= 4096; histogramWorkgroups >= 64;
//   the tile (workgroupSize x keysPerThread keys) and the per-subgroup
//   histograms fit in the device's shared memory.
typedef struct VksortTuning {
  uint32_t workgroupSize;        // invocations per reorder workgroup
  uint32_t keysPerThread;        // keys each invocation ranks
  uint32_t ringSlots;            // tiles in the circular status buffer (N_table)
  uint32_t lookback;             // farthest tile a look-back reads (L_lookback < N_table)
  uint32_t tailGroup;            // tiles that may retire out of order (2^TAIL_BITS); 1 = in order
  uint32_t histogramWorkgroups;  // upper bound on persistent histogram workgroups
  // Polling rounds (8 polls each) one invocation may spend waiting on other
  // workgroups in one pass before it stops waiting and computes what it
  // needs itself (default 16384). Waiting decides speed, never the result.
  uint32_t spinBudget;
  // Fault injection, for tests: each tile holds back its status for up to
  // this many polling rounds (varying by tile) before publishing. 0 = off.
  uint32_t faultPublishDelay;
} VksortTuning;

typedef struct VksortCreateInfo {
  VkInstance instance;  // the instance physicalDevice came from
  VkPhysicalDevice physicalDevice;
  VkDevice device;
  // Function loading: vksort is built with VK_NO_PROTOTYPES and loads what it
  // needs through these. Pass the loader's vkGetInstanceProcAddr, or volk's
  // (after volkInitialize). pfnGetDeviceProcAddr is optional: if null it is
  // loaded through pfnGetInstanceProcAddr.
  PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr pfnGetDeviceProcAddr;
  // The VkDeviceCreateInfo the device was created with. Only its pNext chain
  // (VkPhysicalDeviceFeatures2, VkPhysicalDeviceVulkan12Features,
  // VkPhysicalDeviceVulkan13Features or the matching per-feature structs) and
  // pEnabledFeatures are read, during vksortCreateSorter only, to check that
  // the required features were enabled. Required.
  const VkDeviceCreateInfo* pDeviceCreateInfo;
  VkPipelineCache pipelineCache;                      // optional
  const VkAllocationCallbacks* pAllocationCallbacks;  // optional; used for host and Vulkan allocations
  const VksortTuning* pTuning;                        // optional; see VksortTuning
} VksortCreateInfo;

// Checks whether a physical device can run vksort. On failure the message
// lists every missing feature or property.
VksortResult vksortCheckDeviceSupport(VkInstance instance, VkPhysicalDevice physicalDevice,
                                      PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr);

// Sets (never clears) the feature bits vksort needs in the structs you chain
// into VkDeviceCreateInfo. Any pointer may be null to skip that struct.
void vksortEnableRequiredFeatures(VkPhysicalDeviceFeatures2* features2, VkPhysicalDeviceVulkan12Features* features12,
                                  VkPhysicalDeviceVulkan13Features* features13);

// Creates the pipelines. This is the only call that allocates (through
// pAllocationCallbacks) and the only one that may be slow.
VksortResult vksortCreateSorter(const VksortCreateInfo* pCreateInfo, VksortSorter* pSorter);

// The shape the sorter was created with (defaults resolved, overrides
// applied). tileKeys = workgroupSize * keysPerThread keys per reorder tile.
VksortResult vksortGetTuning(VksortSorter sorter, VksortTuning* pTuning);

// Destroys the sorter. The caller must make sure no command buffer recorded
// with it is still pending. A null sorter is ignored.
void vksortDestroySorter(VksortSorter sorter);

// What the caller must provide for sorts of up to maxCount keys.
//  - keys: the caller's data, maxCount * 4 bytes.
//  - alt: the ping-pong keys buffer, maxCount * 4 bytes.
//  - temp: constant size, independent of maxCount: the global histograms,
//    counters and the circular status buffer (about 1.5 MiB by default).
// Every buffer must be created with the listed usage flags and bound to memory
// allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
// (VkMemoryAllocateFlagsInfo), since vksort reaches them by device address.
// Offsets passed to vksortRecordSort must be multiples of the alignments.
typedef struct VksortMemoryRequirements {
  VkDeviceSize keysSize;
  VkDeviceSize keysAlignment;
  VkBufferUsageFlags keysUsage;
  VkDeviceSize altSize;
  VkDeviceSize altAlignment;
  VkBufferUsageFlags altUsage;
  VkDeviceSize tempSize;
  VkDeviceSize tempAlignment;
  VkBufferUsageFlags tempUsage;
} VksortMemoryRequirements;

VksortResult vksortGetMemoryRequirements(VksortSorter sorter, uint32_t maxCount,
                                         VksortMemoryRequirements* pRequirements);

// A range of a buffer. size must be given explicitly (not VK_WHOLE_SIZE):
// vksort checks it and never touches a byte outside [offset, offset + size).
typedef struct VksortBufferRange {
  VkBuffer buffer;
  VkDeviceSize offset;
  VkDeviceSize size;
} VksortBufferRange;

typedef struct VksortSortInfo {
  uint32_t count;          // number of keys, 0 ... VKSORT_MAX_COUNT
  VksortBufferRange keys;  // the keys to sort, at least count * 4 bytes
  VksortBufferRange alt;   // the ping-pong buffer, at least count * 4 bytes
  VksortBufferRange temp;  // at least VksortMemoryRequirements::tempSize bytes
} VksortSortInfo;

// Where the sorted keys are after the recorded commands execute. It depends
// only on what is known at record time (the number of passes), never on the
// data.
typedef enum VksortResultBuffer { VKSORT_RESULT_IN_KEYS = 0, VKSORT_RESULT_IN_ALT = 1 } VksortResultBuffer;

// Records the sort into commandBuffer (which must be in the recording state
// and belong to a queue family with compute support). On success
// *pResultBuffer says which range holds the sorted keys. Nothing is
// submitted, waited on or allocated. On error nothing is recorded.
VksortResult vksortRecordSort(VksortSorter sorter, VkCommandBuffer commandBuffer, const VksortSortInfo* pSortInfo,
                              VksortResultBuffer* pResultBuffer);

#ifdef __cplusplus
}
#endif

#endif

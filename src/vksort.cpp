// vksort's entry points: argument checks, then device.cpp, tuning.cpp and
// pipelines.cpp at creation, plan.cpp and record.cpp per sort (internal.h
// shows the flow).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "internal.h"

namespace vksort {

namespace {
thread_local char tLastError[2048];  // the longest: checkSupport's full list after a 255-byte device name
}  // namespace

VksortResult fail(VksortResult code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(tLastError, sizeof tLastError, fmt, args);
  va_end(args);
  return code;
}

void clearError() { tLastError[0] = '\0'; }

const char* lastError() { return tLastError; }

uint32_t enumValue(const void* field) {
  int32_t v;
  std::memcpy(&v, field, sizeof v);
  return uint32_t(v);
}

namespace {

VksortResult createSorter(const VksortCreateInfo* ci, const VksortTestingHooks* hooks, VksortSorter* pSorter) {
  clearError();
  if (!pSorter) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pSorter is null");
  *pSorter = nullptr;
  if (!ci) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pCreateInfo is null");
  if (!ci->instance || !ci->physicalDevice || !ci->device)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance, physicalDevice and device must not be null");
  if (!ci->pDeviceCreateInfo)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "pDeviceCreateInfo is null; pass the VkDeviceCreateInfo the device was created with");

  static_assert(sizeof(VksortAlgorithm) == 4, "C enums are 32-bit");
  const uint32_t requested = enumValue(&ci->algorithm);
  if (requested > VKSORT_ALGORITHM_PORTABLE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "algorithm %u is not a VksortAlgorithm", requested);

  InstanceFunctions ifn;
  VksortResult r = loadInstanceFunctions(ci->instance, ci->pfnGetInstanceProcAddr, &ifn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(ifn, ci->physicalDevice, ci->apiVersion, &info);
  const FeatureSet enabled = enabledFeatures(info, *ci->pDeviceCreateInfo);
  const VksortAlgorithm algorithm = chooseAlgorithm(info, VksortAlgorithm(requested), enabled);
  if ((r = checkSupport(info, algorithm)) != VKSORT_SUCCESS) return r;
  if ((r = checkEnabled(enabled, algorithm)) != VKSORT_SUCCESS) return r;
  Config config;
  if ((r = chooseConfig(info, *ci, algorithm, hooks, &config)) != VKSORT_SUCCESS) return r;

  void* mem = ci->pAllocationCallbacks
                  ? ci->pAllocationCallbacks->pfnAllocation(ci->pAllocationCallbacks->pUserData, sizeof(VksortSorter_T),
                                                            alignof(VksortSorter_T), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                  : std::malloc(sizeof(VksortSorter_T));
  if (!mem) return fail(VKSORT_ERROR_OUT_OF_HOST_MEMORY, "allocating the sorter failed");
  VksortSorter s = new (mem) VksortSorter_T();
  s->device = ci->device;
  if (ci->pAllocationCallbacks) {
    s->allocatorCopy = *ci->pAllocationCallbacks;
    s->allocator = &s->allocatorCopy;
  }
  s->config = config;

  PFN_vkGetDeviceProcAddr gdpa = ci->pfnGetDeviceProcAddr ? ci->pfnGetDeviceProcAddr : ifn.getDeviceProcAddr;
  r = loadDeviceFunctions(ci->device, gdpa, &s->fn);
  if (r == VKSORT_SUCCESS && ci->debugLabels) {
    PFN_vkGetInstanceProcAddr gipa = ci->pfnGetInstanceProcAddr;
    s->fn.cmdBeginDebugUtilsLabel =
        reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(gipa(ci->instance, "vkCmdBeginDebugUtilsLabelEXT"));
    s->fn.cmdEndDebugUtilsLabel =
        reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(gipa(ci->instance, "vkCmdEndDebugUtilsLabelEXT"));
    if (!s->fn.cmdBeginDebugUtilsLabel || !s->fn.cmdEndDebugUtilsLabel)
      r = fail(VKSORT_ERROR_INVALID_ARGUMENT,
               "debugLabels is set but vkCmdBeginDebugUtilsLabelEXT was not found: enable VK_EXT_debug_utils on the "
               "instance");
  }
  if (r == VKSORT_SUCCESS) r = createPipelines(s, ci->pipelineCache);
  if (r != VKSORT_SUCCESS) {
    vksortDestroySorter(s);
    return r;
  }
  *pSorter = s;
  return VKSORT_SUCCESS;
}

}  // namespace

}  // namespace vksort

using namespace vksort;

extern "C" {

const char* vksortGetLastError(void) { return lastError(); }

// The enums are read as integers: a C caller may pass any value, and loading
// an out-of-range one as the C++ enum type is undefined behaviour.
const char* vksortResultName(VksortResult result) {
  switch (int32_t(enumValue(&result))) {
    case VKSORT_SUCCESS: return "VKSORT_SUCCESS";
    case VKSORT_ERROR_INVALID_ARGUMENT: return "VKSORT_ERROR_INVALID_ARGUMENT";
    case VKSORT_ERROR_FEATURE_NOT_ENABLED: return "VKSORT_ERROR_FEATURE_NOT_ENABLED";
    case VKSORT_ERROR_DEVICE_NOT_SUPPORTED: return "VKSORT_ERROR_DEVICE_NOT_SUPPORTED";
    case VKSORT_ERROR_BUFFER_TOO_SMALL: return "VKSORT_ERROR_BUFFER_TOO_SMALL";
    case VKSORT_ERROR_MISALIGNED: return "VKSORT_ERROR_MISALIGNED";
    case VKSORT_ERROR_COUNT_TOO_LARGE: return "VKSORT_ERROR_COUNT_TOO_LARGE";
    case VKSORT_ERROR_OUT_OF_HOST_MEMORY: return "VKSORT_ERROR_OUT_OF_HOST_MEMORY";
    case VKSORT_ERROR_VULKAN: return "VKSORT_ERROR_VULKAN";
  }
  return "VKSORT_ERROR_UNKNOWN";
}

const char* vksortPathName(VksortPath path) {
  static_assert(sizeof(VksortResult) == 4 && sizeof(VksortPath) == 4, "C enums are 32-bit");
  switch (enumValue(&path)) {
    case VKSORT_PATH_NONE: return "none";
    case VKSORT_PATH_BITONIC_KEYS: return "bitonic keys-only";
    case VKSORT_PATH_BITONIC: return "bitonic";
    case VKSORT_PATH_ONE_WORKGROUP: return "one workgroup";
    case VKSORT_PATH_WIDE_ONE_WORKGROUP: return "wide one workgroup";
    case VKSORT_PATH_MIDSIZE_ONESWEEP: return "mid-size onesweep";
    case VKSORT_PATH_ONESWEEP: return "onesweep";
    case VKSORT_PATH_PORTABLE: return "portable";
    case VKSORT_PATH_SEGMENTED: return "segmented";
  }
  return "unknown";
}

VksortResult vksortCheckDeviceSupport(VkInstance instance, VkPhysicalDevice physicalDevice,
                                      PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr, uint32_t apiVersion,
                                      VksortAlgorithm algorithm, VksortDeviceRequirements* pRequirements) {
  clearError();
  if (!instance || !physicalDevice)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance and physicalDevice must not be null");
  const uint32_t requested = enumValue(&algorithm);
  if (requested > VKSORT_ALGORITHM_PORTABLE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "algorithm %u is not a VksortAlgorithm", requested);
  InstanceFunctions fn;
  VksortResult r = loadInstanceFunctions(instance, pfnGetInstanceProcAddr, &fn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(fn, physicalDevice, apiVersion, &info);
  // AUTO, for a device that will enable everything this one has.
  const VksortAlgorithm chosen = chooseAlgorithm(info, VksortAlgorithm(requested), info.supported);
  if ((r = checkSupport(info, chosen)) != VKSORT_SUCCESS) return r;
  if (pRequirements) fillRequirements(info, chosen, pRequirements);
  return VKSORT_SUCCESS;
}

VksortResult vksortEnableRequiredFeatures(const VksortDeviceRequirements* pRequirements,
                                          VkPhysicalDeviceFeatures2* pFeatures2) {
  clearError();
  if (!pRequirements || !pFeatures2)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pRequirements and pFeatures2 must not be null");
  return enableRequiredFeatures(*pRequirements, pFeatures2);
}

VksortResult vksortCreateSorter(const VksortCreateInfo* pCreateInfo, VksortSorter* pSorter) {
  return createSorter(pCreateInfo, nullptr, pSorter);
}

VksortResult vksortTestingCreateSorter(const VksortCreateInfo* pCreateInfo, const VksortTestingHooks* pHooks,
                                       VksortSorter* pSorter) {
  return createSorter(pCreateInfo, pHooks, pSorter);
}

VksortResult vksortGetTuning(VksortSorter s, VksortTuning* pTuning) {
  clearError();
  if (!s || !pTuning) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pTuning must not be null");
  *pTuning = s->config.t;
  return VKSORT_SUCCESS;
}

VksortResult vksortGetAlgorithm(VksortSorter s, VksortAlgorithm* pAlgorithm, uint32_t* pRadixBits) {
  clearError();
  if (!s || !pAlgorithm) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pAlgorithm must not be null");
  *pAlgorithm = s->config.algorithm;
  if (pRadixBits) *pRadixBits = s->config.radixBits;
  return VKSORT_SUCCESS;
}

void vksortDestroySorter(VksortSorter s) {
  if (!s) return;
  destroyPipelines(s);
  VkAllocationCallbacks cb = s->allocatorCopy;
  const bool custom = s->allocator != nullptr;
  s->~VksortSorter_T();
  if (custom)
    cb.pfnFree(cb.pUserData, s);
  else
    std::free(s);
}

VksortResult vksortGetMemoryRequirements(VksortSorter s, uint32_t maxCount, VksortMemoryRequirements* req) {
  clearError();
  if (!s || !req) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pRequirements must not be null");
  if (maxCount > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "maxCount %u is larger than VKSORT_MAX_COUNT (%u)", maxCount,
                VKSORT_MAX_COUNT);
  const Config& c = s->config;
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  *req = VksortMemoryRequirements{};
  req->keysSize = VkDeviceSize(maxCount) * c.keyBytes();
  req->keysAlignment = c.keyBytes();
  req->keysUsage = storage;
  req->altSize = req->keysSize;
  req->altAlignment = req->keysAlignment;
  req->altUsage = storage;
  if (c.valueWords) {
    req->valuesSize = VkDeviceSize(maxCount) * c.valueBytes();
    req->valuesAlignment = c.valueBytes();
    req->valuesUsage = storage;
  }
  req->tempSize = tempBytes(c, maxCount);
  req->tempAlignment = kTempAlignment;
  req->tempUsage = storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  req->countSize = 4;
  req->countAlignment = 4;
  req->countUsage = storage;
  return VKSORT_SUCCESS;
}

VksortResult vksortGetSortPlan(VksortSorter s, const VksortSortInfo* pSortInfo, VksortSortPlan* pPlan) {
  clearError();
  if (!s || !pSortInfo || !pPlan)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, pSortInfo and pPlan must not be null");
  Plan plan;
  VksortResult r = planSort(s->config, *pSortInfo, &plan);
  if (r == VKSORT_SUCCESS) *pPlan = plan.summary;
  return r;
}

VksortResult vksortRecordSort(VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo* info,
                              VksortResultBuffer* pResultBuffer) {
  clearError();
  if (!s || !cmd || !info || !pResultBuffer)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, commandBuffer, pSortInfo and pResultBuffer must not be null");
  Plan plan;
  VksortResult r = planSort(s->config, *info, &plan);
  if (r == VKSORT_SUCCESS) r = checkRanges(s->config, *info, plan);
  if (r != VKSORT_SUCCESS) return r;
  *pResultBuffer = plan.summary.resultBuffer;
  recordPlan(s, cmd, *info, plan);
  return VKSORT_SUCCESS;
}

VksortResult vksortGetSegmentedMemoryRequirements(VksortSorter s, uint32_t maxCount, uint32_t maxSegments,
                                                  VksortMemoryRequirements* req) {
  VksortResult r = vksortGetMemoryRequirements(s, maxCount, req);
  if (r != VKSORT_SUCCESS) return r;
  if (!s->config.segmented)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "the sorter was created without segmented sorts (VksortCreateInfo::segmented)");
  if (maxSegments > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "maxSegments %u is larger than VKSORT_MAX_COUNT (%u)", maxSegments,
                VKSORT_MAX_COUNT);
  if ((uint64_t(segmentMaxTiles(s->config, maxCount)) << s->config.radixBits) >= (uint64_t(1) << 31))
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE,
                "maxCount %u is too large for segmented sorts with tiles of %u keys (the large segments' tile "
                "table would exceed 2^31 entries)",
                maxCount, s->config.tileKeys());
  // Histograms for the most passes of the key type (a bit range needs fewer).
  req->tempSize = segmentedTempBytes(s->config, maxCount, maxSegments,
                                     (s->config.keyBits() + s->config.radixBits - 1) / s->config.radixBits);
  return VKSORT_SUCCESS;
}

VksortResult vksortGetSegmentedSortPlan(VksortSorter s, const VksortSegmentedSortInfo* pSortInfo,
                                        VksortSegmentedSortPlan* pPlan) {
  clearError();
  if (!s || !pSortInfo || !pPlan)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, pSortInfo and pPlan must not be null");
  Plan plan;
  VksortResult r = planSegmentedSort(s->config, *pSortInfo, &plan);
  if (r == VKSORT_SUCCESS) *pPlan = plan.segmented;
  return r;
}

VksortResult vksortTestingTwoDigitSplits(VksortSorter s, const VksortSegmentedSortInfo* pSortInfo,
                                         VkDeviceSize* pOffset) {
  clearError();
  if (!s || !pSortInfo || !pOffset)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, pSortInfo and pOffset must not be null");
  Plan plan;
  VksortResult r = planSegmentedSort(s->config, *pSortInfo, &plan);
  if (r != VKSORT_SUCCESS) return r;
  *pOffset = plan.splitTwoBuckets ? segmentAreaOffset(s->config, segmentMaxTiles(s->config, pSortInfo->sort.count)) +
                                        plan.splitTwoShift + 4 * VKSORT_SEG_SPLIT_COUNT
                                  : VK_WHOLE_SIZE;
  return VKSORT_SUCCESS;
}

VksortResult vksortRecordSegmentedSort(VksortSorter s, VkCommandBuffer cmd, const VksortSegmentedSortInfo* info,
                                       VksortResultBuffer* pResultBuffer) {
  clearError();
  if (!s || !cmd || !info || !pResultBuffer)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, commandBuffer, pSortInfo and pResultBuffer must not be null");
  Plan plan;
  VksortResult r = planSegmentedSort(s->config, *info, &plan);
  if (r == VKSORT_SUCCESS) r = checkSegmentedRanges(s->config, *info, plan);
  if (r != VKSORT_SUCCESS) return r;
  *pResultBuffer = plan.segmented.resultBuffer;
  // The bins kernel reads the segment count where a plain sort's kernels
  // read the key count.
  VksortSortInfo sort = info->sort;
  sort.countBuffer = info->segmentCountBuffer;
  recordPlan(s, cmd, sort, plan, &info->segmentOffsets);
  return VKSORT_SUCCESS;
}

}  // extern "C"

// vksort dispatcher: checks the device and the caller's arguments, plans a
// sort (tile count, passes, workgroup counts) and records it. Data flows one
// way: API call -> plan -> recorded dispatches and barriers -> shaders.
#include "vksort/vksort.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "push.h"
#include "vksort_histogram_spv.h"
#include "vksort_onesweep_spv.h"

namespace {

// ---------------------------------------------------------------------------
// Errors: a per-thread message, like errno, so that concurrent recording on
// one sorter needs no lock.
// ---------------------------------------------------------------------------
thread_local char tLastError[512];

VksortResult fail(VksortResult code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(tLastError, sizeof tLastError, fmt, args);
  va_end(args);
  return code;
}

void clearError() { tLastError[0] = '\0'; }

static_assert(sizeof(VksortPush) == 40, "push constants must match the GLSL std430 layout");

constexpr uint32_t kPasses = 4;  // 32-bit keys, 8-bit digits
constexpr VkDeviceSize kKeyBytes = 4;
constexpr VkDeviceSize kKeysAlignment = 4;
constexpr VkDeviceSize kTempAlignment = 16;
constexpr uint32_t kHistogramWorkgroupSize = 256;
constexpr uint32_t kHistogramKeysPerInvocation = 16;  // before adding another persistent workgroup
constexpr uint32_t kHistogramMaxLoop = 2048;          // grid-stride steps per invocation, at most

// ---------------------------------------------------------------------------
// Function loading (the library is built with VK_NO_PROTOTYPES).
// ---------------------------------------------------------------------------
struct InstanceFunctions {
  PFN_vkGetPhysicalDeviceProperties2 getPhysicalDeviceProperties2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 getPhysicalDeviceFeatures2 = nullptr;
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
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
  PFN_vkCmdPipelineBarrier cmdPipelineBarrier;
  PFN_vkCmdFillBuffer cmdFillBuffer;
};

VksortResult loadInstanceFunctions(VkInstance instance, PFN_vkGetInstanceProcAddr gipa, InstanceFunctions* f) {
  if (!gipa) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pfnGetInstanceProcAddr is null");
  f->getPhysicalDeviceProperties2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(gipa(instance, "vkGetPhysicalDeviceProperties2"));
  f->getPhysicalDeviceFeatures2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(gipa(instance, "vkGetPhysicalDeviceFeatures2"));
  f->getDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(gipa(instance, "vkGetDeviceProcAddr"));
  if (!f->getPhysicalDeviceProperties2 || !f->getPhysicalDeviceFeatures2 || !f->getDeviceProcAddr)
    return fail(
        VKSORT_ERROR_DEVICE_NOT_SUPPORTED,
        "vkGetPhysicalDeviceProperties2/Features2 not found: the instance must be created with apiVersion >= 1.3");
  return VKSORT_SUCCESS;
}

VksortResult loadDeviceFunctions(VkDevice device, PFN_vkGetDeviceProcAddr gdpa, DeviceFunctions* f) {
  struct Entry {
    const char* name;
    PFN_vkVoidFunction* slot;
  };
  const Entry entries[] = {
      {"vkCreateShaderModule", reinterpret_cast<PFN_vkVoidFunction*>(&f->createShaderModule)},
      {"vkDestroyShaderModule", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyShaderModule)},
      {"vkCreatePipelineLayout", reinterpret_cast<PFN_vkVoidFunction*>(&f->createPipelineLayout)},
      {"vkDestroyPipelineLayout", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyPipelineLayout)},
      {"vkCreateComputePipelines", reinterpret_cast<PFN_vkVoidFunction*>(&f->createComputePipelines)},
      {"vkDestroyPipeline", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyPipeline)},
      {"vkGetBufferDeviceAddress", reinterpret_cast<PFN_vkVoidFunction*>(&f->getBufferDeviceAddress)},
      {"vkCmdBindPipeline", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdBindPipeline)},
      {"vkCmdPushConstants", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdPushConstants)},
      {"vkCmdDispatch", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdDispatch)},
      {"vkCmdPipelineBarrier", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdPipelineBarrier)},
      {"vkCmdFillBuffer", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdFillBuffer)},
  };
  for (const Entry& e : entries) {
    *e.slot = gdpa(device, e.name);
    if (!*e.slot) return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device function %s not found", e.name);
  }
  return VKSORT_SUCCESS;
}

// ---------------------------------------------------------------------------
// Device capabilities.
// ---------------------------------------------------------------------------
struct DeviceInfo {
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceVulkan11Properties props11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties props12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan13Properties props13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
};

// The required feature bits, in one place: the support check, the enabled
// check and vksortEnableRequiredFeatures all walk this list.
struct FeatureSet {
  bool shaderInt64 = false;
  bool bufferDeviceAddress = false;
  bool shaderBufferInt64Atomics = false;
  bool vulkanMemoryModel = false;
  bool vulkanMemoryModelDeviceScope = false;
  bool subgroupSizeControl = false;
  bool computeFullSubgroups = false;
};

template <typename Fn>
void forEachRequiredFeature(FeatureSet& s, Fn fn) {
  fn("VkPhysicalDeviceFeatures::shaderInt64", s.shaderInt64);
  fn("VkPhysicalDeviceVulkan12Features::bufferDeviceAddress", s.bufferDeviceAddress);
  fn("VkPhysicalDeviceVulkan12Features::shaderBufferInt64Atomics", s.shaderBufferInt64Atomics);
  fn("VkPhysicalDeviceVulkan12Features::vulkanMemoryModel", s.vulkanMemoryModel);
  fn("VkPhysicalDeviceVulkan12Features::vulkanMemoryModelDeviceScope", s.vulkanMemoryModelDeviceScope);
  fn("VkPhysicalDeviceVulkan13Features::subgroupSizeControl", s.subgroupSizeControl);
  fn("VkPhysicalDeviceVulkan13Features::computeFullSubgroups", s.computeFullSubgroups);
}

FeatureSet featuresOf(const VkPhysicalDeviceFeatures& f, const VkPhysicalDeviceVulkan12Features& f12,
                      const VkPhysicalDeviceVulkan13Features& f13) {
  FeatureSet s;
  s.shaderInt64 = f.shaderInt64;
  s.bufferDeviceAddress = f12.bufferDeviceAddress;
  s.shaderBufferInt64Atomics = f12.shaderBufferInt64Atomics;
  s.vulkanMemoryModel = f12.vulkanMemoryModel;
  s.vulkanMemoryModelDeviceScope = f12.vulkanMemoryModelDeviceScope;
  s.subgroupSizeControl = f13.subgroupSizeControl;
  s.computeFullSubgroups = f13.computeFullSubgroups;
  return s;
}

// Reads what the caller enabled from its VkDeviceCreateInfo: the core
// structs or the per-extension structs that carry the same bits.
FeatureSet enabledFeatures(const VkDeviceCreateInfo& ci) {
  FeatureSet s;
  if (ci.pEnabledFeatures) s.shaderInt64 = ci.pEnabledFeatures->shaderInt64;
  for (auto* p = static_cast<const VkBaseInStructure*>(ci.pNext); p; p = p->pNext) {
    switch (p->sType) {
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
        s.shaderInt64 |= reinterpret_cast<const VkPhysicalDeviceFeatures2*>(p)->features.shaderInt64 != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(p);
        s.bufferDeviceAddress |= f->bufferDeviceAddress != 0;
        s.shaderBufferInt64Atomics |= f->shaderBufferInt64Atomics != 0;
        s.vulkanMemoryModel |= f->vulkanMemoryModel != 0;
        s.vulkanMemoryModelDeviceScope |= f->vulkanMemoryModelDeviceScope != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan13Features*>(p);
        s.subgroupSizeControl |= f->subgroupSizeControl != 0;
        s.computeFullSubgroups |= f->computeFullSubgroups != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
        s.bufferDeviceAddress |=
            reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(p)->bufferDeviceAddress != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES:
        s.shaderBufferInt64Atomics |=
            reinterpret_cast<const VkPhysicalDeviceShaderAtomicInt64Features*>(p)->shaderBufferInt64Atomics != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkanMemoryModelFeatures*>(p);
        s.vulkanMemoryModel |= f->vulkanMemoryModel != 0;
        s.vulkanMemoryModelDeviceScope |= f->vulkanMemoryModelDeviceScope != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceSubgroupSizeControlFeatures*>(p);
        s.subgroupSizeControl |= f->subgroupSizeControl != 0;
        s.computeFullSubgroups |= f->computeFullSubgroups != 0;
        break;
      }
      default: break;
    }
  }
  return s;
}

constexpr VkSubgroupFeatureFlags kRequiredSubgroupOps = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                                        VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                                        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
constexpr uint32_t kMinSharedMemory = 16 * 1024;

void queryDevice(const InstanceFunctions& fn, VkPhysicalDevice pd, DeviceInfo* info) {
  info->props.pNext = &info->props11;
  info->props11.pNext = &info->props12;
  info->props12.pNext = &info->props13;
  fn.getPhysicalDeviceProperties2(pd, &info->props);
  info->features.pNext = &info->features12;
  info->features12.pNext = &info->features13;
  fn.getPhysicalDeviceFeatures2(pd, &info->features);
}

// Appends "a, b, c" style lists into a fixed buffer.
struct List {
  char text[400] = {};
  int items = 0;
  void add(const char* item) {
    size_t len = std::strlen(text);
    std::snprintf(text + len, sizeof text - len, "%s%s", items++ ? ", " : "", item);
  }
};

VksortResult checkSupport(const DeviceInfo& info) {
  List missing;
  if (info.props.properties.apiVersion < VK_API_VERSION_1_3) missing.add("Vulkan 1.3");
  FeatureSet supported = featuresOf(info.features.features, info.features12, info.features13);
  forEachRequiredFeature(supported, [&](const char* name, bool& have) {
    if (!have) missing.add(name);
  });
  const uint32_t sg = info.props11.subgroupSize;
  if (sg < 4 || sg > 128 || (sg & (sg - 1)) != 0) missing.add("a subgroup size between 4 and 128");
  if (!(info.props11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) missing.add("subgroups in compute");
  if ((info.props11.subgroupSupportedOperations & kRequiredSubgroupOps) != kRequiredSubgroupOps)
    missing.add("subgroup operations BASIC, BALLOT, SHUFFLE and ARITHMETIC");
  if (info.props.properties.limits.maxComputeSharedMemorySize < kMinSharedMemory)
    missing.add("16 KiB of compute shared memory");
  if (missing.items)
    return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device '%s' cannot run vksort; it lacks: %s",
                info.props.properties.deviceName, missing.text);
  return VKSORT_SUCCESS;
}

// ---------------------------------------------------------------------------
// Tuning: the kernels' shape for a device, as specialization constants.
// ---------------------------------------------------------------------------
struct Shape {
  uint32_t subgroupSize;
  bool statusRmw;        // status ring through read-modify-write atomics only (see status_ring.glsl)
  bool pinSubgroupSize;  // pass VkPipelineShaderStageRequiredSubgroupSizeCreateInfo
  VksortTuning t;
  uint32_t tileKeys() const { return t.workgroupSize * t.keysPerThread; }
};

// Shared memory of onesweep.comp, in bytes, for a shape (mirrors its shared
// declarations: sWork, sDigitBase, sTile, sScan, sScanTotals, and the
// look-back's sLookPrefix, sLookCount, sLookMissing).
uint32_t onesweepSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg) {
  const uint32_t subgroups = wg / sg;
  const uint32_t tile = wg * kpt, hist = subgroups * VKSORT_RADIX;
  const uint32_t words =
      (tile > hist ? tile : hist) + VKSORT_RADIX + 1 + VKSORT_RADIX + subgroups + 2 * VKSORT_RADIX + 2;
  return words * 4;
}

VksortResult chooseShape(const DeviceInfo& info, const VksortTuning* user, Shape* s) {
  const VkPhysicalDeviceLimits& lim = info.props.properties.limits;
  s->subgroupSize = info.props11.subgroupSize;
  s->pinSubgroupSize = (info.props13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                       s->subgroupSize >= info.props13.minSubgroupSize &&
                       s->subgroupSize <= info.props13.maxSubgroupSize;
  // A precaution on lavapipe: ring accesses as read-modify-write atomics only
  // (see status_ring.glsl and the README's driver notes).
  s->statusRmw = info.props12.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  const uint32_t sg = s->subgroupSize;
  // Defaults. Up to 16 subgroups keeps the per-subgroup histograms at 16 KiB.
  // 20 keys per invocation: on the H100 a 512 x 20 tile beat 512 x 15, 256 x 15,
  // 256 x 30 and 1024 x 8 (samples/bench/results). Ring: 768 tiles x 256 digits x 8 bytes = 1.5 MiB, enough
  // for every tile in flight on a large GPU plus the look-back window.
  VksortTuning d{};
  d.workgroupSize = sg * 16 < 512 ? sg * 16 : 512;
  uint32_t maxWg = lim.maxComputeWorkGroupInvocations;
  if (s->pinSubgroupSize && info.props13.maxComputeWorkgroupSubgroups * sg < maxWg)
    maxWg = info.props13.maxComputeWorkgroupSubgroups * sg;
  while (d.workgroupSize > maxWg) d.workgroupSize /= 2;
  d.keysPerThread = 20;
  while (d.keysPerThread > 1 &&
         onesweepSharedBytes(d.workgroupSize, d.keysPerThread, sg) > lim.maxComputeSharedMemorySize)
    --d.keysPerThread;
  d.ringSlots = 768;
  d.lookback = 32;
  d.tailGroup = 32;
  d.histogramWorkgroups = 1024;
  d.spinBudget = 16384;
  d.faultPublishDelay = 0;

  s->t = d;
  if (user) {
    if (user->workgroupSize) s->t.workgroupSize = user->workgroupSize;
    if (user->keysPerThread) s->t.keysPerThread = user->keysPerThread;
    if (user->ringSlots) s->t.ringSlots = user->ringSlots;
    if (user->lookback) s->t.lookback = user->lookback;
    if (user->tailGroup) s->t.tailGroup = user->tailGroup;
    if (user->histogramWorkgroups) s->t.histogramWorkgroups = user->histogramWorkgroups;
    if (user->spinBudget) s->t.spinBudget = user->spinBudget;
    s->t.faultPublishDelay = user->faultPublishDelay;
  }
  const VksortTuning& t = s->t;
  if (t.workgroupSize % sg != 0 || t.workgroupSize > maxWg)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: workgroupSize %u must be a multiple of the subgroup size %u and at most %u", t.workgroupSize,
                sg, maxWg);
  if ((t.tailGroup & (t.tailGroup - 1)) != 0 || t.tailGroup > (1u << 16) || t.lookback < 1 ||
      t.ringSlots < t.lookback + t.tailGroup)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: need tailGroup a power of two, lookback >= 1 and ringSlots (%u) >= lookback (%u) + "
                "tailGroup (%u)",
                t.ringSlots, t.lookback, t.tailGroup);
  if (t.ringSlots > (1u << 16) || t.lookback > 4096)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: ringSlots %u > 65536 or lookback %u > 4096", t.ringSlots,
                t.lookback);
  if (onesweepSharedBytes(t.workgroupSize, t.keysPerThread, sg) > lim.maxComputeSharedMemorySize)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: a tile of %u x %u keys needs %u bytes of shared memory; the device has %u", t.workgroupSize,
                t.keysPerThread, onesweepSharedBytes(t.workgroupSize, t.keysPerThread, sg),
                lim.maxComputeSharedMemorySize);
  if (t.histogramWorkgroups < 64 || t.histogramWorkgroups > lim.maxComputeWorkGroupCount[0])
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: histogramWorkgroups %u out of range", t.histogramWorkgroups);
  return VKSORT_SUCCESS;
}

VkDeviceSize tempBytes(const Shape& s) {
  return VKSORT_TEMP_RING_OFFSET + VkDeviceSize(s.t.ringSlots) * VKSORT_RADIX * sizeof(uint64_t);
}

}  // namespace

struct VksortSorter_T {
  VkDevice device = VK_NULL_HANDLE;
  const VkAllocationCallbacks* allocator = nullptr;
  VkAllocationCallbacks allocatorCopy{};
  DeviceFunctions fn{};
  Shape shape{};
  uint32_t maxDispatchX = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline histogram = VK_NULL_HANDLE;
  VkPipeline onesweep = VK_NULL_HANDLE;
};

namespace {

void destroyObjects(VksortSorter s) {
  if (s->histogram) s->fn.destroyPipeline(s->device, s->histogram, s->allocator);
  if (s->onesweep) s->fn.destroyPipeline(s->device, s->onesweep, s->allocator);
  if (s->layout) s->fn.destroyPipelineLayout(s->device, s->layout, s->allocator);
}

VksortResult createPipeline(VksortSorter s, VkPipelineCache cache, const uint32_t* code, size_t codeBytes,
                            const uint32_t* constants, uint32_t constantCount, const char* name, VkPipeline* out) {
  VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mci.codeSize = codeBytes;
  mci.pCode = code;
  VkShaderModule module;
  VkResult r = s->fn.createShaderModule(s->device, &mci, s->allocator, &module);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateShaderModule(%s) failed: VkResult %d", name, r);

  VkSpecializationMapEntry entries[16];
  for (uint32_t i = 0; i < constantCount; ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{constantCount, entries, constantCount * 4, constants};

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  required.requiredSubgroupSize = s->shape.subgroupSize;
  VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  // The kernels size shared memory and masks by SG_SIZE, so every subgroup
  // must be full and of exactly that size.
  pci.stage.pNext = s->shape.pinSubgroupSize ? &required : nullptr;
  pci.stage.flags = VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pci.stage.module = module;
  pci.stage.pName = "main";
  pci.stage.pSpecializationInfo = &spec;
  pci.layout = s->layout;
  r = s->fn.createComputePipelines(s->device, cache, 1, &pci, s->allocator, out);
  s->fn.destroyShaderModule(s->device, module, s->allocator);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateComputePipelines(%s) failed: VkResult %d", name, r);
  return VKSORT_SUCCESS;
}

VksortResult checkRange(const char* name, const VksortBufferRange& r, VkDeviceSize needed, VkDeviceSize alignment) {
  if (r.buffer == VK_NULL_HANDLE) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.buffer is VK_NULL_HANDLE", name);
  if (r.size == VK_WHOLE_SIZE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.size is VK_WHOLE_SIZE; give the size of the range", name);
  if (r.offset % alignment != 0)
    return fail(VKSORT_ERROR_MISALIGNED, "%s.offset %llu is not a multiple of %llu", name, (unsigned long long)r.offset,
                (unsigned long long)alignment);
  if (r.size < needed)
    return fail(VKSORT_ERROR_BUFFER_TOO_SMALL, "%s.size is %llu bytes; this sort needs %llu", name,
                (unsigned long long)r.size, (unsigned long long)needed);
  return VKSORT_SUCCESS;
}

bool overlaps(const VksortBufferRange& a, const VksortBufferRange& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

void computeBarrier(const VksortSorter s, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = srcAccess;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  s->fn.cmdPipelineBarrier(cmd, srcStage, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

// Workgroups in one sort dispatch take their tile from an atomic counter, so a
// grid larger than maxComputeWorkGroupCount[0] can be split into several
// dispatches with no barrier between them.
void dispatchTiles(const VksortSorter s, VkCommandBuffer cmd, uint32_t workgroups) {
  while (workgroups > 0) {
    const uint32_t n = workgroups < s->maxDispatchX ? workgroups : s->maxDispatchX;
    s->fn.cmdDispatch(cmd, n, 1, 1);
    workgroups -= n;
  }
}

VkDeviceAddress addressOf(const VksortSorter s, const VksortBufferRange& r) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = r.buffer;
  return s->fn.getBufferDeviceAddress(s->device, &info) + r.offset;
}

}  // namespace

extern "C" {

const char* vksortGetLastError(void) { return tLastError; }

const char* vksortResultName(VksortResult result) {
  switch (result) {
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

VksortResult vksortCheckDeviceSupport(VkInstance instance, VkPhysicalDevice physicalDevice,
                                      PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr) {
  clearError();
  if (!instance || !physicalDevice)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance and physicalDevice must not be null");
  InstanceFunctions fn;
  VksortResult r = loadInstanceFunctions(instance, pfnGetInstanceProcAddr, &fn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(fn, physicalDevice, &info);
  return checkSupport(info);
}

void vksortEnableRequiredFeatures(VkPhysicalDeviceFeatures2* features2, VkPhysicalDeviceVulkan12Features* features12,
                                  VkPhysicalDeviceVulkan13Features* features13) {
  if (features2) features2->features.shaderInt64 = VK_TRUE;
  if (features12) {
    features12->bufferDeviceAddress = VK_TRUE;
    features12->shaderBufferInt64Atomics = VK_TRUE;
    features12->vulkanMemoryModel = VK_TRUE;
    features12->vulkanMemoryModelDeviceScope = VK_TRUE;
  }
  if (features13) {
    features13->subgroupSizeControl = VK_TRUE;
    features13->computeFullSubgroups = VK_TRUE;
  }
}

VksortResult vksortCreateSorter(const VksortCreateInfo* ci, VksortSorter* pSorter) {
  clearError();
  if (!pSorter) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pSorter is null");
  *pSorter = nullptr;
  if (!ci) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pCreateInfo is null");
  if (!ci->instance || !ci->physicalDevice || !ci->device)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance, physicalDevice and device must not be null");
  if (!ci->pDeviceCreateInfo)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "pDeviceCreateInfo is null; pass the VkDeviceCreateInfo the device was created with");

  InstanceFunctions ifn;
  VksortResult r = loadInstanceFunctions(ci->instance, ci->pfnGetInstanceProcAddr, &ifn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(ifn, ci->physicalDevice, &info);
  if ((r = checkSupport(info)) != VKSORT_SUCCESS) return r;

  FeatureSet enabled = enabledFeatures(*ci->pDeviceCreateInfo);
  List missing;
  forEachRequiredFeature(enabled, [&](const char* name, bool& on) {
    if (!on) missing.add(name);
  });
  if (missing.items)
    return fail(VKSORT_ERROR_FEATURE_NOT_ENABLED,
                "the device was created without features vksort needs: %s (vksortEnableRequiredFeatures sets them)",
                missing.text);

  Shape shape;
  if ((r = chooseShape(info, ci->pTuning, &shape)) != VKSORT_SUCCESS) return r;

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
  s->shape = shape;
  s->maxDispatchX = info.props.properties.limits.maxComputeWorkGroupCount[0];

  PFN_vkGetDeviceProcAddr gdpa = ci->pfnGetDeviceProcAddr ? ci->pfnGetDeviceProcAddr : ifn.getDeviceProcAddr;
  r = loadDeviceFunctions(ci->device, gdpa, &s->fn);
  if (r == VKSORT_SUCCESS) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(VksortPush)};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    VkResult vr = s->fn.createPipelineLayout(s->device, &lci, s->allocator, &s->layout);
    if (vr != VK_SUCCESS) r = fail(VKSORT_ERROR_VULKAN, "vkCreatePipelineLayout failed: VkResult %d", vr);
  }
  if (r == VKSORT_SUCCESS) {
    const uint32_t hc[] = {kHistogramWorkgroupSize, shape.subgroupSize};
    r = createPipeline(s, ci->pipelineCache, vksort_histogram_spv, sizeof vksort_histogram_spv, hc, 2, "histogram",
                       &s->histogram);
  }
  if (r == VKSORT_SUCCESS) {
    const VksortTuning& t = shape.t;
    uint32_t tailBits = 0;
    while ((1u << tailBits) < t.tailGroup) ++tailBits;
    const uint32_t oc[] = {t.workgroupSize, shape.subgroupSize,        t.keysPerThread, t.ringSlots,        t.lookback,
                           tailBits,        shape.statusRmw ? 1u : 0u, t.spinBudget,    t.faultPublishDelay};
    r = createPipeline(s, ci->pipelineCache, vksort_onesweep_spv, sizeof vksort_onesweep_spv, oc, 9, "onesweep",
                       &s->onesweep);
  }
  if (r != VKSORT_SUCCESS) {
    vksortDestroySorter(s);
    return r;
  }
  *pSorter = s;
  return VKSORT_SUCCESS;
}

VksortResult vksortGetTuning(VksortSorter s, VksortTuning* pTuning) {
  clearError();
  if (!s || !pTuning) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pTuning must not be null");
  *pTuning = s->shape.t;
  return VKSORT_SUCCESS;
}

void vksortDestroySorter(VksortSorter s) {
  if (!s) return;
  destroyObjects(s);
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
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  req->keysSize = VkDeviceSize(maxCount) * kKeyBytes;
  req->keysAlignment = kKeysAlignment;
  req->keysUsage = storage;
  req->altSize = req->keysSize;
  req->altAlignment = kKeysAlignment;
  req->altUsage = storage;
  req->tempSize = tempBytes(s->shape);
  req->tempAlignment = kTempAlignment;
  req->tempUsage = storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  return VKSORT_SUCCESS;
}

VksortResult vksortRecordSort(VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo* info,
                              VksortResultBuffer* pResultBuffer) {
  clearError();
  if (!s || !cmd || !info || !pResultBuffer)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, commandBuffer, pSortInfo and pResultBuffer must not be null");
  if (info->count > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "count %u is larger than VKSORT_MAX_COUNT (%u)", info->count,
                VKSORT_MAX_COUNT);
  const VkDeviceSize keyBytes = VkDeviceSize(info->count) * kKeyBytes;
  VksortResult r;
  if ((r = checkRange("keys", info->keys, keyBytes, kKeysAlignment)) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("alt", info->alt, keyBytes, kKeysAlignment)) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("temp", info->temp, tempBytes(s->shape), kTempAlignment)) != VKSORT_SUCCESS) return r;
  if (overlaps(info->keys, info->alt) || overlaps(info->keys, info->temp) || overlaps(info->alt, info->temp))
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "the keys, alt and temp ranges must not overlap");

  // Four passes move the keys keys -> alt -> keys -> alt -> keys.
  *pResultBuffer = VKSORT_RESULT_IN_KEYS;
  if (info->count <= 1) return VKSORT_SUCCESS;  // already sorted; nothing to record

  const Shape& shape = s->shape;
  const uint32_t tile = shape.tileKeys();
  const uint32_t numTiles = (info->count + tile - 1) / tile;
  const uint32_t perWorkgroup = kHistogramWorkgroupSize * kHistogramKeysPerInvocation;
  uint32_t histWorkgroups = (info->count + perWorkgroup - 1) / perWorkgroup;
  if (histWorkgroups > shape.t.histogramWorkgroups) histWorkgroups = shape.t.histogramWorkgroups;
  // Never more than kHistogramMaxLoop grid-stride steps per invocation: llvmpipe
  // ends a shader's loops after 65535 iterations in all (status_ring.glsl).
  const uint32_t minWorkgroups =
      uint32_t((uint64_t(info->count) + uint64_t(kHistogramWorkgroupSize) * kHistogramMaxLoop - 1) /
               (uint64_t(kHistogramWorkgroupSize) * kHistogramMaxLoop));
  if (histWorkgroups < minWorkgroups) histWorkgroups = minWorkgroups;
  const VkDeviceAddress keys = addressOf(s, info->keys);
  const VkDeviceAddress alt = addressOf(s, info->alt);

  VksortPush push{};
  push.temp = addressOf(s, info->temp);
  push.count = info->count;
  push.passes = kPasses;

  // The header (histograms and counters) starts at zero for every sort.
  s->fn.cmdFillBuffer(cmd, info->temp.buffer, info->temp.offset, VKSORT_TEMP_HEADER_BYTES, 0);
  computeBarrier(s, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);

  push.keysIn = keys;
  push.numTiles = numTiles < shape.t.ringSlots ? numTiles : shape.t.ringSlots;  // ring slots to clear
  s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->histogram);
  s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  s->fn.cmdDispatch(cmd, histWorkgroups, 1, 1);

  s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->onesweep);
  push.numTiles = numTiles;
  for (uint32_t pass = 0; pass < kPasses; ++pass) {
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    push.pass = pass;
    push.keysIn = pass % 2 == 0 ? keys : alt;
    push.keysOut = pass % 2 == 0 ? alt : keys;
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    dispatchTiles(s, cmd, numTiles);
  }
  return VKSORT_SUCCESS;
}

}  // extern "C"

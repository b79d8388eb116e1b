// Device capabilities: function loading, the features and properties vksort
// needs, and whether the caller enabled them.
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace vksort {

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
      {"vkCmdWriteTimestamp", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdWriteTimestamp)},
  };
  for (const Entry& e : entries) {
    *e.slot = gdpa(device, e.name);
    if (!*e.slot) return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device function %s not found", e.name);
  }
  return VKSORT_SUCCESS;
}

void queryDevice(const InstanceFunctions& fn, VkPhysicalDevice pd, DeviceInfo* info) {
  info->props.pNext = &info->props11;
  info->props11.pNext = &info->props12;
  info->props12.pNext = &info->props13;
  fn.getPhysicalDeviceProperties2(pd, &info->props);
  info->features.pNext = &info->features12;
  info->features12.pNext = &info->features13;
  fn.getPhysicalDeviceFeatures2(pd, &info->features);
}

namespace {

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

// Appends "a, b, c" style lists into a fixed buffer.
struct List {
  char text[400] = {};
  int items = 0;
  void add(const char* item) {
    size_t len = std::strlen(text);
    std::snprintf(text + len, sizeof text - len, "%s%s", items++ ? ", " : "", item);
  }
};

}  // namespace

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

VksortResult checkEnabled(const VkDeviceCreateInfo& ci) {
  FeatureSet enabled = enabledFeatures(ci);
  List missing;
  forEachRequiredFeature(enabled, [&](const char* name, bool& on) {
    if (!on) missing.add(name);
  });
  if (missing.items)
    return fail(VKSORT_ERROR_FEATURE_NOT_ENABLED,
                "the device was created without features vksort needs: %s (vksortEnableRequiredFeatures sets them)",
                missing.text);
  return VKSORT_SUCCESS;
}

bool driverHasForwardProgress(VkDriverId driver) {
  switch (driver) {
    case VK_DRIVER_ID_NVIDIA_PROPRIETARY:
    case VK_DRIVER_ID_AMD_PROPRIETARY:
    case VK_DRIVER_ID_AMD_OPEN_SOURCE:
    case VK_DRIVER_ID_MESA_RADV:
    case VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS:
    case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA:
    case VK_DRIVER_ID_MESA_LLVMPIPE: return true;
    default: return false;
  }
}

void enableRequiredFeatures(VkPhysicalDeviceFeatures2* features2, VkPhysicalDeviceVulkan12Features* features12,
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

}  // namespace vksort

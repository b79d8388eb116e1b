// Device capabilities: function loading, the features and properties each
// algorithm needs, whether the device has them and the caller enabled them,
// and the choice of algorithm.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
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
  f->enumerateDeviceExtensionProperties = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
      gipa(instance, "vkEnumerateDeviceExtensionProperties"));
  if (!f->getPhysicalDeviceProperties2 || !f->getPhysicalDeviceFeatures2 || !f->getDeviceProcAddr ||
      !f->enumerateDeviceExtensionProperties)
    return fail(
        VKSORT_ERROR_DEVICE_NOT_SUPPORTED,
        "vkGetPhysicalDeviceProperties2/Features2 not found: the instance must be created with apiVersion >= 1.2");
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
      {"vkCmdDispatchIndirect", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdDispatchIndirect)},
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

namespace {

// Major and minor version only.
uint32_t versionOf(uint32_t v) { return VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0); }

// Each feature bit vksort may need, in every struct that carries it: the
// query of what the device has, the check of what the caller enabled and
// vksortEnableRequiredFeatures all walk a pNext chain with this table.
struct FeatureSlot {
  VkStructureType sType;
  Feature feature;
  size_t offset;  // of the VkBool32 in the struct
};

#define VKSORT_SLOT(type, sType, member, feature) \
  { sType, feature, offsetof(type, member) }
const FeatureSlot kSlots[] = {
    VKSORT_SLOT(VkPhysicalDeviceFeatures2, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, features.shaderInt64,
                kShaderInt64),
    VKSORT_SLOT(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                bufferDeviceAddress, kBufferDeviceAddress),
    VKSORT_SLOT(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                shaderBufferInt64Atomics, kShaderBufferInt64Atomics),
    VKSORT_SLOT(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                vulkanMemoryModel, kVulkanMemoryModel),
    VKSORT_SLOT(VkPhysicalDeviceVulkan12Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                vulkanMemoryModelDeviceScope, kVulkanMemoryModelDeviceScope),
    VKSORT_SLOT(VkPhysicalDeviceVulkan13Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                subgroupSizeControl, kSubgroupSizeControl),
    VKSORT_SLOT(VkPhysicalDeviceVulkan13Features, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                computeFullSubgroups, kComputeFullSubgroups),
    VKSORT_SLOT(VkPhysicalDeviceBufferDeviceAddressFeatures,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES, bufferDeviceAddress,
                kBufferDeviceAddress),
    VKSORT_SLOT(VkPhysicalDeviceShaderAtomicInt64Features,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES, shaderBufferInt64Atomics,
                kShaderBufferInt64Atomics),
    VKSORT_SLOT(VkPhysicalDeviceVulkanMemoryModelFeatures,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES, vulkanMemoryModel, kVulkanMemoryModel),
    VKSORT_SLOT(VkPhysicalDeviceVulkanMemoryModelFeatures,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES, vulkanMemoryModelDeviceScope,
                kVulkanMemoryModelDeviceScope),
    VKSORT_SLOT(VkPhysicalDeviceSubgroupSizeControlFeatures,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES, subgroupSizeControl,
                kSubgroupSizeControl),
    VKSORT_SLOT(VkPhysicalDeviceSubgroupSizeControlFeatures,
                VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES, computeFullSubgroups,
                kComputeFullSubgroups),
};
#undef VKSORT_SLOT

const char* const kFeatureNames[kFeatureCount] = {
    "bufferDeviceAddress (Vulkan 1.2)",
    "subgroupSizeControl (Vulkan 1.3 or VK_EXT_subgroup_size_control)",
    "computeFullSubgroups (Vulkan 1.3 or VK_EXT_subgroup_size_control)",
    "shaderInt64 (VkPhysicalDeviceFeatures)",
    "shaderBufferInt64Atomics (Vulkan 1.2)",
    "vulkanMemoryModel (Vulkan 1.2)",
    "vulkanMemoryModelDeviceScope (Vulkan 1.2)",
};

// The features each algorithm needs. The portable kernels and the bitonic
// kernel reach buffers through two-word addresses and use no 64-bit
// integers, atomics or memory model (shaders/common.glsl); Onesweep's status
// ring is 64-bit atomics under the Vulkan memory model. Onesweep's kernels
// use no device scope, but a device with vulkanMemoryModel and without
// vulkanMemoryModelDeviceScope may run no shader with device scope at all,
// and GLSL's atomics default to it: so Onesweep asks for both, and engines'
// own shaders keep working.
FeatureSet requiredFeatures(VksortAlgorithm algorithm) {
  FeatureSet s{};
  s.has[kBufferDeviceAddress] = s.has[kSubgroupSizeControl] = s.has[kComputeFullSubgroups] = true;
  if (algorithm == VKSORT_ALGORITHM_ONESWEEP)
    s.has[kShaderInt64] = s.has[kShaderBufferInt64Atomics] = s.has[kVulkanMemoryModel] =
        s.has[kVulkanMemoryModelDeviceScope] = true;
  return s;
}

// The feature bits set in the structs of a pNext chain.
FeatureSet featuresIn(const void* chain) {
  FeatureSet s{};
  for (auto* p = static_cast<const VkBaseInStructure*>(chain); p; p = p->pNext)
    for (const FeatureSlot& slot : kSlots)
      if (slot.sType == p->sType) {
        VkBool32 on;
        std::memcpy(&on, reinterpret_cast<const char*>(p) + slot.offset, sizeof on);
        s.has[slot.feature] = s.has[slot.feature] || on;
      }
  return s;
}

constexpr VkSubgroupFeatureFlags kRequiredSubgroupOps = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                                        VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                                        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
constexpr uint32_t kMinSharedMemory = 16 * 1024;
const char* const kSubgroupSizeControlExtension = "VK_EXT_subgroup_size_control";

// Appends "a, b, c" style lists into a fixed buffer, large enough for every
// item at once (tests/test_device_models.cpp checks the longest message).
struct List {
  char text[1024] = {};
  int items = 0;
  void add(const char* item) {
    size_t len = std::strlen(text);
    std::snprintf(text + len, sizeof text - len, "%s%s", items++ ? ", " : "", item);
  }
};

const char* algorithmName(VksortAlgorithm a) { return a == VKSORT_ALGORITHM_ONESWEEP ? "Onesweep" : "portable"; }

// The features an algorithm needs that `have` lacks, added to a list.
void listMissingFeatures(const FeatureSet& have, VksortAlgorithm algorithm, List* missing) {
  const FeatureSet need = requiredFeatures(algorithm);
  for (int f = 0; f < kFeatureCount; ++f)
    if (need.has[f] && !have.has[f]) missing->add(kFeatureNames[f]);
}

// What the device lacks for an algorithm, as a list; none for a device that
// can run it.
// Below Vulkan 1.2 vksort queries nothing else (queryDevice), so the
// version is all it reports.
void listMissing(const DeviceInfo& info, VksortAlgorithm algorithm, List* missing) {
  if (info.apiVersion < VK_API_VERSION_1_2) {
    missing->add("Vulkan 1.2 (of the instance and the device)");
    return;
  }
  const bool sizeControl = info.apiVersion >= VK_API_VERSION_1_3 || info.subgroupSizeControlExtension;
  if (!sizeControl) missing->add("VK_EXT_subgroup_size_control (or Vulkan 1.3)");
  listMissingFeatures(info.supported, algorithm, missing);
  const uint32_t sg = info.props11.subgroupSize;
  if (sg < 4 || sg > 128 || (sg & (sg - 1)) != 0) missing->add("a subgroup size between 4 and 128");
  if (sizeControl && !subgroupSizeIsKnown(info))
    missing->add(
        "a subgroup size that compute pipelines can require, or only one size (requiredSubgroupSizeStages lacks "
        "compute and minSubgroupSize < maxSubgroupSize: the driver may run a kernel at another size than the one "
        "it was built for)");
  if (!(info.props11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) missing->add("subgroups in compute");
  if ((info.props11.subgroupSupportedOperations & kRequiredSubgroupOps) != kRequiredSubgroupOps)
    missing->add("subgroup operations BASIC, BALLOT, SHUFFLE and ARITHMETIC");
  if (info.props.properties.limits.maxComputeSharedMemorySize < kMinSharedMemory)
    missing->add("16 KiB of compute shared memory");
}

bool hasExtension(const VkDeviceCreateInfo& ci, const char* name) {
  for (uint32_t i = 0; i < ci.enabledExtensionCount; ++i)
    if (std::strcmp(ci.ppEnabledExtensionNames[i], name) == 0) return true;
  return false;
}

}  // namespace

bool subgroupSizeIsPinnable(const DeviceInfo& info) {
  const uint32_t sg = info.props11.subgroupSize;
  return (info.props13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
         sg >= info.props13.minSubgroupSize && sg <= info.props13.maxSubgroupSize;
}

bool subgroupSizeIsKnown(const DeviceInfo& info) {
  const uint32_t sg = info.props11.subgroupSize;
  return subgroupSizeIsPinnable(info) || (info.props13.minSubgroupSize == sg && info.props13.maxSubgroupSize == sg);
}

void queryDevice(const InstanceFunctions& fn, VkPhysicalDevice pd, uint32_t apiVersion, DeviceInfo* info) {
  // The device's version first: the structs of a version or extension may be
  // chained only where the instance and the device both have it.
  VkPhysicalDeviceProperties2 version{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  fn.getPhysicalDeviceProperties2(pd, &version);
  const uint32_t asked = versionOf(apiVersion ? apiVersion : VK_API_VERSION_1_2);  // 0: the floor, always valid
  const uint32_t device = versionOf(version.properties.apiVersion);
  info->apiVersion = asked < device ? asked : device;
  if (info->apiVersion < VK_API_VERSION_1_2) {
    info->props = version;
    return;
  }
  if (info->apiVersion < VK_API_VERSION_1_3) {
    // Below 1.3, subgroup size control comes from its extension.
    uint32_t count = 0;
    fn.enumerateDeviceExtensionProperties(pd, nullptr, &count, nullptr);
    auto* extensions = static_cast<VkExtensionProperties*>(std::malloc(sizeof(VkExtensionProperties) * (count + 1)));
    if (extensions && fn.enumerateDeviceExtensionProperties(pd, nullptr, &count, extensions) >= VK_SUCCESS)
      for (uint32_t i = 0; i < count; ++i)
        if (std::strcmp(extensions[i].extensionName, kSubgroupSizeControlExtension) == 0)
          info->subgroupSizeControlExtension = true;
    std::free(extensions);
  }
  info->props.pNext = &info->props11;
  info->props11.pNext = &info->props12;
  info->features.pNext = &info->features12;
  const bool v13 = info->apiVersion >= VK_API_VERSION_1_3;
  if (v13) {
    info->props12.pNext = &info->props13;
    info->features12.pNext = &info->features13;
  } else if (info->subgroupSizeControlExtension) {
    info->props12.pNext = &info->sizeControlProps;
    info->features12.pNext = &info->sizeControlFeatures;
  }
  fn.getPhysicalDeviceProperties2(pd, &info->props);
  fn.getPhysicalDeviceFeatures2(pd, &info->features);
  if (!v13) {  // the extension's properties, where Vulkan 1.3's would be
    info->props13.minSubgroupSize = info->sizeControlProps.minSubgroupSize;
    info->props13.maxSubgroupSize = info->sizeControlProps.maxSubgroupSize;
    info->props13.maxComputeWorkgroupSubgroups = info->sizeControlProps.maxComputeWorkgroupSubgroups;
    info->props13.requiredSubgroupSizeStages = info->sizeControlProps.requiredSubgroupSizeStages;
  }
  info->supported = featuresIn(&info->features);
}

VksortResult checkSupport(const DeviceInfo& info, VksortAlgorithm algorithm) {
  List missing;
  listMissing(info, algorithm, &missing);
  if (missing.items)
    return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device '%s' cannot run vksort's %s algorithm; it lacks: %s",
                info.props.properties.deviceName, algorithmName(algorithm), missing.text);
  return VKSORT_SUCCESS;
}

FeatureSet enabledFeatures(const DeviceInfo& info, const VkDeviceCreateInfo& ci) {
  FeatureSet s = featuresIn(ci.pNext);
  if (ci.pEnabledFeatures && ci.pEnabledFeatures->shaderInt64) s.has[kShaderInt64] = true;
  // Below Vulkan 1.3 the subgroup size control comes with its extension. A
  // VkPhysicalDeviceVulkan13Features in the chain enables it too, also where
  // vksort reads the device as Vulkan 1.2 (apiVersion 0): only a Vulkan 1.3
  // device accepts that struct.
  if (info.apiVersion < VK_API_VERSION_1_3 && !hasExtension(ci, kSubgroupSizeControlExtension)) {
    bool core13[2] = {false, false};
    for (auto* p = static_cast<const VkBaseInStructure*>(ci.pNext); p; p = p->pNext)
      if (p->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES) {
        const auto* f13 = reinterpret_cast<const VkPhysicalDeviceVulkan13Features*>(p);
        core13[0] = core13[0] || f13->subgroupSizeControl;
        core13[1] = core13[1] || f13->computeFullSubgroups;
      }
    s.has[kSubgroupSizeControl] = core13[0];
    s.has[kComputeFullSubgroups] = core13[1];
  }
  return s;
}

VksortResult checkEnabled(const FeatureSet& enabled, VksortAlgorithm algorithm) {
  List missing;
  listMissingFeatures(enabled, algorithm, &missing);
  if (missing.items)
    return fail(VKSORT_ERROR_FEATURE_NOT_ENABLED,
                "the device was created without features vksort's %s algorithm needs: %s "
                "(vksortCheckDeviceSupport lists them; vksortEnableRequiredFeatures sets them)",
                algorithmName(algorithm), missing.text);
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

VksortAlgorithm chooseAlgorithm(const DeviceInfo& info, VksortAlgorithm requested, const FeatureSet& enabled) {
  if (requested != VKSORT_ALGORITHM_AUTO) return requested;
  List missing;
  listMissing(info, VKSORT_ALGORITHM_ONESWEEP, &missing);
  listMissingFeatures(enabled, VKSORT_ALGORITHM_ONESWEEP, &missing);
  return driverHasForwardProgress(info.props12.driverID) && !missing.items ? VKSORT_ALGORITHM_ONESWEEP
                                                                           : VKSORT_ALGORITHM_PORTABLE;
}

void fillRequirements(const DeviceInfo& info, VksortAlgorithm algorithm, VksortDeviceRequirements* req) {
  *req = VksortDeviceRequirements{};
  req->algorithm = algorithm;
  req->apiVersion = VK_API_VERSION_1_2;
  if (info.apiVersion < VK_API_VERSION_1_3) req->extensionNames[req->extensionCount++] = kSubgroupSizeControlExtension;
  const FeatureSet need = requiredFeatures(algorithm);
  req->bufferDeviceAddress = need.has[kBufferDeviceAddress];
  req->subgroupSizeControl = need.has[kSubgroupSizeControl];
  req->computeFullSubgroups = need.has[kComputeFullSubgroups];
  req->shaderInt64 = need.has[kShaderInt64];
  req->shaderBufferInt64Atomics = need.has[kShaderBufferInt64Atomics];
  req->vulkanMemoryModel = need.has[kVulkanMemoryModel];
  req->vulkanMemoryModelDeviceScope = need.has[kVulkanMemoryModelDeviceScope];
}

VksortResult enableRequiredFeatures(const VksortDeviceRequirements& req, VkPhysicalDeviceFeatures2* features2) {
  const bool need[kFeatureCount] = {req.bufferDeviceAddress != 0,         req.subgroupSizeControl != 0,
                                    req.computeFullSubgroups != 0,        req.shaderInt64 != 0,
                                    req.shaderBufferInt64Atomics != 0,    req.vulkanMemoryModel != 0,
                                    req.vulkanMemoryModelDeviceScope != 0};
  // Find a struct for every feature first: on failure nothing is changed.
  bool carried[kFeatureCount] = {};
  for (auto* p = reinterpret_cast<VkBaseOutStructure*>(features2); p; p = p->pNext)
    for (const FeatureSlot& slot : kSlots)
      if (slot.sType == p->sType) carried[slot.feature] = true;
  List missing;
  for (int f = 0; f < kFeatureCount; ++f)
    if (need[f] && !carried[f]) missing.add(kFeatureNames[f]);
  if (missing.items)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "no struct in the features2 chain carries %s: chain VkPhysicalDeviceVulkan12Features and "
                "VkPhysicalDeviceVulkan13Features (or VkPhysicalDeviceSubgroupSizeControlFeatures below Vulkan 1.3)",
                missing.text);
  for (auto* p = reinterpret_cast<VkBaseOutStructure*>(features2); p; p = p->pNext)
    for (const FeatureSlot& slot : kSlots)
      if (slot.sType == p->sType && need[slot.feature]) {
        const VkBool32 on = VK_TRUE;
        std::memcpy(reinterpret_cast<char*>(p) + slot.offset, &on, sizeof on);
      }
  return VKSORT_SUCCESS;
}

}  // namespace vksort

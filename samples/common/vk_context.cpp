#include "vk_context.h"

#include <vksort/vksort.h>

#include <cstdio>
#include <cstring>

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  static_cast<VkContext*>(user)->onValidationMessage(data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

bool hasLayer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

int deviceRank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    default: return 3;
  }
}

}  // namespace

void VkContext::onValidationMessage(const char* text) {
  std::lock_guard<std::mutex> lock(messagesMutex_);
  messages_.emplace_back(text);
}

std::vector<std::string> VkContext::takeValidationMessages() {
  std::lock_guard<std::mutex> lock(messagesMutex_);
  std::vector<std::string> out;
  out.swap(messages_);
  return out;
}

std::string VkContext::driverDescription() const {
  return std::string(driverProperties.driverName) + " " + driverProperties.driverInfo;
}

bool VkContext::init(const VkContextOptions& options, std::string* error) {
  if (volkInitialize() != VK_SUCCESS) {
    *error = "no Vulkan loader found (install libvulkan1)";
    return false;
  }
  const bool validation = options.validation && hasLayer("VK_LAYER_KHRONOS_validation");
  if (options.validation && !validation) {
    *error = "VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)";
    return false;
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vksort";
  app.apiVersion = apiVersion = options.apiVersion;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkValidationFeatureEnableEXT syncFeature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT vf{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  mci.pfnUserCallback = debugCallback;
  mci.pUserData = this;
  if (validation) {
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
    ici.pNext = &mci;  // also catches messages from vkCreateInstance itself
    if (options.syncValidation) {
      vf.enabledValidationFeatureCount = 1;
      vf.pEnabledValidationFeatures = &syncFeature;
      vf.pNext = &mci;
      ici.pNext = &vf;
    }
  }
  VkResult r = vkCreateInstance(&ici, nullptr, &instance);
  if (r != VK_SUCCESS) {
    *error = "vkCreateInstance failed: " + std::to_string(r);
    return false;
  }
  volkLoadInstanceOnly(instance);
  if (validation) vkCreateDebugUtilsMessengerEXT(instance, &mci, nullptr, &messenger_);

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  int best = -1, bestRank = 99;
  std::string reasons;
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devices[i], &p);
    if (options.deviceIndex >= 0 && int(i) != options.deviceIndex) continue;
    if (vksortCheckDeviceSupport(instance, devices[i], vkGetInstanceProcAddr, apiVersion, options.algorithm, nullptr) !=
        VKSORT_SUCCESS) {
      reasons += std::string("\n  ") + vksortGetLastError();
      continue;
    }
    if (deviceRank(p.deviceType) < bestRank) {
      best = int(i);
      bestRank = deviceRank(p.deviceType);
    }
  }
  if (best < 0) {
    *error = "no Vulkan device can run vksort" + reasons;
    return false;
  }
  physicalDevice = devices[size_t(best)];
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &driverProperties;
  vkGetPhysicalDeviceProperties2(physicalDevice, &p2);
  properties = p2.properties;

  uint32_t qn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &qn, nullptr);
  std::vector<VkQueueFamilyProperties> qf(qn);
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &qn, qf.data());
  queueFamily = UINT32_MAX;
  for (uint32_t i = 0; i < qn; ++i)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queueFamily = i;
      timestampValidBits = qf[i].timestampValidBits;
      break;
    }
  if (queueFamily == UINT32_MAX) {
    *error = "the device has no compute queue";
    return false;
  }

  // Exactly the features and extensions vksort asks for; below Vulkan 1.3
  // subgroup size control comes from its extension's struct.
  vksortCheckDeviceSupport(instance, physicalDevice, vkGetInstanceProcAddr, apiVersion, options.algorithm,
                           &requirements);
  features2_.pNext = &features12_;
  features12_.pNext = apiVersion >= VK_API_VERSION_1_3 ? static_cast<void*>(&features13_) : &sizeControl_;
  if (vksortEnableRequiredFeatures(&requirements, &features2_) != VKSORT_SUCCESS) {
    *error = vksortGetLastError();
    return false;
  }
  deviceCreateInfo.enabledExtensionCount = requirements.extensionCount;
  deviceCreateInfo.ppEnabledExtensionNames = requirements.extensionNames;
  queueInfo_.queueFamilyIndex = queueFamily;
  queueInfo_.queueCount = 1;
  queueInfo_.pQueuePriorities = &queuePriority_;
  deviceCreateInfo.pNext = &features2_;
  deviceCreateInfo.queueCreateInfoCount = 1;
  deviceCreateInfo.pQueueCreateInfos = &queueInfo_;
  r = vkCreateDevice(physicalDevice, &deviceCreateInfo, nullptr, &device);
  if (r != VK_SUCCESS) {
    *error = "vkCreateDevice failed: " + std::to_string(r);
    return false;
  }
  volkLoadDevice(device);
  vkGetDeviceQueue(device, queueFamily, 0, &queue);

  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT | VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = queueFamily;
  vkCreateCommandPool(device, &pci, nullptr, &commandPool);
  return true;
}

VkContext::~VkContext() {
  if (device) {
    vkDeviceWaitIdle(device);
    vkDestroyCommandPool(device, commandPool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance, messenger_, nullptr);
  if (instance) vkDestroyInstance(instance, nullptr);
}

GpuBuffer VkContext::createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible) {
  GpuBuffer b;
  b.size = size;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size ? size : 4;
  bci.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (vkCreateBuffer(device, &bci, nullptr, &b.buffer) != VK_SUCCESS) {
    std::fprintf(stderr, "vkCreateBuffer(%llu bytes) failed\n", (unsigned long long)size);
    std::exit(1);
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(physicalDevice, &mp);
  VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  if (hostVisible) want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
    if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
      type = i;
      break;
    }
  if (type == UINT32_MAX) {
    std::fprintf(stderr, "no memory type for a %s buffer\n", hostVisible ? "host-visible" : "device-local");
    std::exit(1);
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  if (vkAllocateMemory(device, &mai, nullptr, &b.memory) != VK_SUCCESS) {
    std::fprintf(stderr, "vkAllocateMemory(%llu bytes) failed\n", (unsigned long long)req.size);
    std::exit(1);
  }
  vkBindBufferMemory(device, b.buffer, b.memory, 0);
  if (hostVisible) vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  return b;
}

void VkContext::destroyBuffer(GpuBuffer& b) {
  if (b.buffer) vkDestroyBuffer(device, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(device, b.memory, nullptr);
  b = GpuBuffer{};
}

VkCommandBuffer VkContext::beginCommands() {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = commandPool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  vkAllocateCommandBuffers(device, &ai, &cmd);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cmd, &bi);
  return cmd;
}

bool VkContext::submitAndWait(VkCommandBuffer cmd, uint64_t timeoutNs, std::string* error) {
  vkEndCommandBuffer(cmd);
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  vkCreateFence(device, &fci, nullptr, &fence);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  VkResult r = vkQueueSubmit(queue, 1, &si, fence);
  if (r == VK_SUCCESS) r = vkWaitForFences(device, 1, &fence, VK_TRUE, timeoutNs);
  if (r != VK_SUCCESS) {
    *error = r == VK_TIMEOUT ? "fence wait timed out: the sort hung" : "submit/wait failed: " + std::to_string(r);
    return false;  // leave the fence and command buffer: the device may still own them
  }
  vkDestroyFence(device, fence, nullptr);
  vkFreeCommandBuffers(device, commandPool, 1, &cmd);
  return true;
}

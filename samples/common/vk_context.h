// A small Vulkan harness shared by the samples and the tests: instance (with
// the Khronos validation layer on request), device selection, a device with
// the features vksort needs, buffers with device addresses, and submission
// with a fence timeout. Functions are loaded with volk.
#pragma once

#include <vksort/vksort.h>
#include <volk.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

struct VkContextOptions {
  bool validation = false;      // enable VK_LAYER_KHRONOS_validation and count its messages
  bool syncValidation = false;  // also enable synchronization validation
  int deviceIndex = -1;         // -1: the first supported discrete GPU, else integrated, else any
  // The instance's Vulkan version: 1.3, or 1.2 to create the device as a
  // Vulkan 1.2 device (subgroup size control through its extension).
  uint32_t apiVersion = VK_API_VERSION_1_3;
  // The device gets exactly the features vksort needs for this algorithm
  // (AUTO: everything the device can give Onesweep, else the portable floor).
  VksortAlgorithm algorithm = VKSORT_ALGORITHM_AUTO;
};

struct GpuBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;  // non-null for host-visible buffers
};

class VkContext {
 public:
  VkContext() = default;
  VkContext(const VkContext&) = delete;
  VkContext& operator=(const VkContext&) = delete;
  ~VkContext();

  // Returns false (with *error set) if no usable device exists.
  bool init(const VkContextOptions& options, std::string* error);

  // usage gets SHADER_DEVICE_ADDRESS added; memory is device-local unless
  // hostVisible (then host-visible and coherent, mapped).
  GpuBuffer createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible);
  void destroyBuffer(GpuBuffer& b);

  VkCommandBuffer beginCommands();
  // Ends, submits and waits with a timeout. Returns false on a timeout or
  // error; after a timeout the device cannot be trusted and the caller should
  // fail and exit.
  bool submitAndWait(VkCommandBuffer cmd, uint64_t timeoutNs, std::string* error);

  // Validation messages (warnings and errors) seen since the last call.
  std::vector<std::string> takeValidationMessages();

  std::string deviceName() const { return properties.deviceName; }
  std::string driverDescription() const;

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceDriverProperties driverProperties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  uint32_t timestampValidBits = 0;

  // Kept alive so vksortCreateSorter can read the enabled features.
  VkDeviceCreateInfo deviceCreateInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  uint32_t apiVersion = VK_API_VERSION_1_3;  // the instance's (VksortCreateInfo::apiVersion)
  VksortDeviceRequirements requirements{};   // what the device was created with

  // Called by the debug messenger.
  void onValidationMessage(const char* text);

 private:
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDeviceFeatures2 features2_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features features12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features features13_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceSubgroupSizeControlFeatures sizeControl_{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkDeviceQueueCreateInfo queueInfo_{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  float queuePriority_ = 1.0f;
  std::mutex messagesMutex_;
  std::vector<std::string> messages_;
};

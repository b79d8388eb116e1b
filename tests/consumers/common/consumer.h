// What every consumer project does once it has found vksort: create an
// instance and a device on the first device vksort supports, enabling exactly
// what vksortEnableRequiredFeatures sets; create a sorter with a pipeline cache
// and counting allocation callbacks; sort a few thousand random u32 keys; check
// that the result is sorted and a permutation of the input.
//
// Include <vulkan/vulkan.h> (loader prototypes) or <volk.h> first: the code
// below calls vkCreateInstance and friends by their usual names, which are
// either the loader's functions or volk's pointers. (vksort.h defines
// VK_NO_PROTOTYPES when it is the first to include vulkan.h.) No exceptions,
// no RTTI: the prototypes consumer builds with -fno-exceptions -fno-rtti.
#pragma once

#include <vksort/vksort.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

namespace consumer {

constexpr uint32_t kKeyCount = 6007;  // a few tiles on any device, not a multiple of a tile
constexpr uint64_t kFenceTimeoutNs = 30ull * 1000 * 1000 * 1000;

// Hooks for a loader such as volk, which must load function pointers after
// the instance and the device exist.
struct Hooks {
  void (*instanceCreated)(VkInstance) = nullptr;
  void (*deviceCreated)(VkDevice) = nullptr;
  // Also hand vksort a vkGetDeviceProcAddr (the route "the caller's
  // vkGetDeviceProcAddr"); otherwise vksort loads it itself.
  bool passDeviceProcAddr = false;
};

// VkAllocationCallbacks that count their calls, to show that vksort passes
// them on. Each block keeps its size and malloc pointer just before it, so
// that any alignment and reallocation work.
struct CountingAllocator {
  uint32_t allocations = 0, reallocations = 0, frees = 0;
  int64_t live = 0;

  struct Header {
    void* base;
    size_t size;
  };

  static void* allocate(void* user, size_t size, size_t alignment, VkSystemAllocationScope) {
    auto* self = static_cast<CountingAllocator*>(user);
    ++self->allocations;
    return self->raw(size, alignment);
  }
  static void* reallocate(void* user, void* original, size_t size, size_t alignment, VkSystemAllocationScope) {
    auto* self = static_cast<CountingAllocator*>(user);
    ++self->reallocations;
    if (!original) return self->raw(size, alignment);
    if (size == 0) {
      self->release(original);
      return nullptr;
    }
    void* p = self->raw(size, alignment);
    if (!p) return nullptr;  // the original stays valid, as the spec requires
    std::memcpy(p, original, std::min(size, headerOf(original)->size));
    self->release(original);
    return p;
  }
  static void deallocate(void* user, void* memory) {
    auto* self = static_cast<CountingAllocator*>(user);
    ++self->frees;
    if (memory) self->release(memory);
  }

  VkAllocationCallbacks callbacks() {
    VkAllocationCallbacks cb{};
    cb.pUserData = this;
    cb.pfnAllocation = allocate;
    cb.pfnReallocation = reallocate;
    cb.pfnFree = deallocate;
    return cb;
  }

 private:
  static Header* headerOf(void* p) { return static_cast<Header*>(p) - 1; }
  void* raw(size_t size, size_t alignment) {
    if (size == 0) return nullptr;
    const size_t align = std::max(alignment, alignof(Header));
    char* base = static_cast<char*>(std::malloc(size + align + sizeof(Header)));
    if (!base) return nullptr;
    const uintptr_t start = reinterpret_cast<uintptr_t>(base) + sizeof(Header);
    const uintptr_t aligned = (start + align - 1) & ~uintptr_t(align - 1);
    Header* h = reinterpret_cast<Header*>(aligned) - 1;
    h->base = base;
    h->size = size;
    ++live;
    return reinterpret_cast<void*>(aligned);
  }
  void release(void* p) {
    std::free(headerOf(p)->base);
    --live;
  }
};

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

inline int failed(const char* route, const char* what) {
  std::fprintf(stderr, "vksort consumer %s: FAILED: %s\n", route, what);
  return 1;
}

// A buffer with a device address (vksort's rule), in host-visible coherent
// memory when hostVisible (then mapped), else in any memory type.
inline bool createBuffer(VkPhysicalDevice gpu, VkDevice device, VkDeviceSize size, VkBufferUsageFlags usage,
                         bool hostVisible, Buffer* out) {
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (vkCreateBuffer(device, &bci, nullptr, &out->buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, out->buffer, &req);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(gpu, &mp);
  const VkMemoryPropertyFlags want =
      hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0;
  uint32_t type = 0;
  while (type < mp.memoryTypeCount &&
         !((req.memoryTypeBits & (1u << type)) && (mp.memoryTypes[type].propertyFlags & want) == want))
    ++type;
  if (type == mp.memoryTypeCount) return false;
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  if (vkAllocateMemory(device, &mai, nullptr, &out->memory) != VK_SUCCESS) return false;
  if (vkBindBufferMemory(device, out->buffer, out->memory, 0) != VK_SUCCESS) return false;
  return !hostVisible || vkMapMemory(device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped) == VK_SUCCESS;
}

inline void destroyBuffer(VkDevice device, Buffer& b) {
  vkDestroyBuffer(device, b.buffer, nullptr);
  vkFreeMemory(device, b.memory, nullptr);
  b = Buffer{};
}

// Runs the whole check. Returns the process exit code: 0 when the keys came
// back sorted and the allocation callbacks were used and balanced.
inline int run(const char* route, PFN_vkGetInstanceProcAddr getInstanceProcAddr, Hooks hooks = {}) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = route;
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) return failed(route, "vkCreateInstance");
  if (hooks.instanceCreated) hooks.instanceCreated(instance);

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> gpus(count);
  vkEnumeratePhysicalDevices(instance, &count, gpus.data());
  VkPhysicalDevice gpu = VK_NULL_HANDLE;
  VksortDeviceRequirements need{};
  for (VkPhysicalDevice candidate : gpus)
    if (vksortCheckDeviceSupport(instance, candidate, getInstanceProcAddr, app.apiVersion, VKSORT_ALGORITHM_AUTO,
                                 &need) == VKSORT_SUCCESS) {
      gpu = candidate;
      break;
    }
  if (!gpu) return failed(route, count ? vksortGetLastError() : "no Vulkan device");
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gpu, &props);

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(gpu, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(gpu, &familyCount, families.data());
  uint32_t family = 0;
  while (family < familyCount && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  if (family == familyCount) return failed(route, "no compute queue");

  // Exactly the features vksort asks for, nothing else.
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f12.pNext = &f13;
  f2.pNext = &f12;
  if (vksortEnableRequiredFeatures(&need, &f2) != VKSORT_SUCCESS) return failed(route, vksortGetLastError());
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = need.extensionCount;
  dci.ppEnabledExtensionNames = need.extensionNames;
  VkDevice device;
  if (vkCreateDevice(gpu, &dci, nullptr, &device) != VK_SUCCESS) return failed(route, "vkCreateDevice");
  if (hooks.deviceCreated) hooks.deviceCreated(device);
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  VkPipelineCacheCreateInfo pcci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VkPipelineCache cache;
  if (vkCreatePipelineCache(device, &pcci, nullptr, &cache) != VK_SUCCESS)
    return failed(route, "vkCreatePipelineCache");
  CountingAllocator counter;
  const VkAllocationCallbacks callbacks = counter.callbacks();

  VksortCreateInfo ci{};
  ci.instance = instance;
  ci.physicalDevice = gpu;
  ci.device = device;
  ci.pfnGetInstanceProcAddr = getInstanceProcAddr;
  if (hooks.passDeviceProcAddr) ci.pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
  ci.pDeviceCreateInfo = &dci;
  ci.pipelineCache = cache;
  ci.pAllocationCallbacks = &callbacks;
  VksortSorter sorter;
  if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) return failed(route, vksortGetLastError());

  VksortMemoryRequirements req;
  if (vksortGetMemoryRequirements(sorter, kKeyCount, &req) != VKSORT_SUCCESS)
    return failed(route, vksortGetLastError());
  Buffer keys, alt, temp;
  if (!createBuffer(gpu, device, req.keysSize, req.keysUsage, true, &keys) ||
      !createBuffer(gpu, device, req.altSize, req.altUsage, true, &alt) ||
      !createBuffer(gpu, device, req.tempSize, req.tempUsage, false, &temp))
    return failed(route, "creating the buffers");

  std::vector<uint32_t> input(kKeyCount);
  std::mt19937 rng(7);
  for (uint32_t& k : input) k = uint32_t(rng());
  std::memcpy(keys.mapped, input.data(), input.size() * sizeof(uint32_t));

  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = family;
  VkCommandPool pool;
  if (vkCreateCommandPool(device, &cpci, nullptr, &pool) != VK_SUCCESS) return failed(route, "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  if (vkAllocateCommandBuffers(device, &cbai, &cmd) != VK_SUCCESS) return failed(route, "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cmd, &begin);

  // The host wrote the keys before the submission, which makes them visible:
  // no barrier is owed before the sort. After it, the result range was last
  // written by compute shaders.
  VksortSortInfo si{};
  si.count = kKeyCount;
  si.keys = {keys.buffer, 0, req.keysSize};
  si.alt = {alt.buffer, 0, req.altSize};
  si.temp = {temp.buffer, 0, req.tempSize};
  VksortResultBuffer where;
  if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) return failed(route, vksortGetLastError());
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
  vkEndCommandBuffer(cmd);

  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  vkCreateFence(device, &fci, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  if (vkQueueSubmit(queue, 1, &submit, fence) != VK_SUCCESS) return failed(route, "vkQueueSubmit");
  const VkResult wait = vkWaitForFences(device, 1, &fence, VK_TRUE, kFenceTimeoutNs);
  if (wait != VK_SUCCESS) {
    failed(route, wait == VK_TIMEOUT ? "the fence wait timed out: the sort hung" : "vkWaitForFences");
    std::_Exit(1);  // the device may still be running: skip the teardown
  }

  const uint32_t* got = static_cast<const uint32_t*>(where == VKSORT_RESULT_IN_KEYS ? keys.mapped : alt.mapped);
  std::vector<uint32_t> expected = input;
  std::sort(expected.begin(), expected.end());
  const bool sorted = std::is_sorted(got, got + kKeyCount);
  const bool same = std::equal(expected.begin(), expected.end(), got);  // sorted and a permutation of the input

  vksortDestroySorter(sorter);
  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  for (Buffer* b : {&keys, &alt, &temp}) destroyBuffer(device, *b);
  vkDestroyPipelineCache(device, cache, nullptr);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);

  if (!sorted) return failed(route, "the result is not sorted");
  if (!same) return failed(route, "the result is sorted but not a permutation of the input");
  if (counter.allocations == 0) return failed(route, "vksort never called the allocation callbacks");
  if (counter.live != 0) return failed(route, "allocations through the callbacks were not all freed");
  std::printf(
      "vksort consumer %s: sorted %u keys on %s; allocation callbacks: %u allocations, %u reallocations, %u frees\n",
      route, kKeyCount, props.deviceName, counter.allocations, counter.reallocations, counter.frees);
  return 0;
}

}  // namespace consumer

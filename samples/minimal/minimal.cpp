// vksort_minimal: the smallest complete use of vksort, in plain Vulkan with the
// loader's prototypes (no harness). One command buffer holds: a compute pass
// that generates keys, the barrier vksort asks for, the sort, the barrier after
// it, and a compute pass that checks the order on the GPU. Then one submit, a
// fence wait with a timeout, and a check on the CPU.
//   vksort_minimal [count]     (default 1000000; at most 16M: one key per invocation)
#include <vksort/vksort.h>
#include <vulkan/vulkan.h>  // before vksort.h, so that the loader's prototypes are declared

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "minimal_check_spv.h"
#include "minimal_generate_spv.h"

#define CHECK(call)                                                            \
  do {                                                                         \
    VkResult r_ = (call);                                                      \
    if (r_ != VK_SUCCESS) return std::printf("FAIL: %s = %d\n", #call, r_), 1; \
  } while (0)

struct Buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceAddress address;
  void* mapped;
};

static uint32_t mix32(uint32_t x) {  // the same hash as generate.comp
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return x;
}

int main(int argc, char** argv) {
  const uint32_t n = argc > 1 ? uint32_t(std::strtoul(argv[1], nullptr, 0)) : 1000000u, seed = 12345u;
  if (n < 1 || n > 65535u * 256u) return std::printf("FAIL: count must be 1 ... %u\n", 65535u * 256u), 1;

  // Instance and the first physical device that can run vksort.
  VkApplicationInfo app{
      VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "vksort_minimal", 1, nullptr, 0, VK_API_VERSION_1_3};
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, nullptr, 0, &app};
  VkInstance instance;
  CHECK(vkCreateInstance(&ici, nullptr, &instance));
  uint32_t gpuCount = 16;
  VkPhysicalDevice gpus[16], gpu = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(instance, &gpuCount, gpus);
  VksortDeviceRequirements need;  // the features and extensions to enable for vksort
  for (uint32_t i = 0; i < gpuCount && !gpu; ++i)
    if (vksortCheckDeviceSupport(instance, gpus[i], vkGetInstanceProcAddr, app.apiVersion, VKSORT_ALGORITHM_AUTO,
                                 &need) == VKSORT_SUCCESS)
      gpu = gpus[i];
  if (!gpu) return std::printf("FAIL: no device can run vksort: %s\n", vksortGetLastError()), 1;
  uint32_t family = 0, familyCount = 16;
  VkQueueFamilyProperties families[16];
  vkGetPhysicalDeviceQueueFamilyProperties(gpu, &familyCount, families);
  while (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;  // Vulkan guarantees one exists

  // A device with exactly the features vksort needs (add your own to the same structs).
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  if (vksortEnableRequiredFeatures(&need, &f2) != VKSORT_SUCCESS)
    return std::printf("FAIL: %s\n", vksortGetLastError()), 1;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2, 0, 1, &qci};
  dci.enabledExtensionCount = need.extensionCount, dci.ppEnabledExtensionNames = need.extensionNames;
  VkDevice device;
  CHECK(vkCreateDevice(gpu, &dci, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  VksortCreateInfo sci{};  // keyType U32 and valueType NONE are the defaults
  sci.instance = instance, sci.physicalDevice = gpu, sci.device = device;
  sci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr, sci.pDeviceCreateInfo = &dci;
  sci.apiVersion = app.apiVersion;
  VksortSorter sorter;
  if (vksortCreateSorter(&sci, &sorter) != VKSORT_SUCCESS) return std::printf("FAIL: %s\n", vksortGetLastError()), 1;
  VksortMemoryRequirements req;
  if (vksortGetMemoryRequirements(sorter, n, &req) != VKSORT_SUCCESS)
    return std::printf("FAIL: %s\n", vksortGetLastError()), 1;

  // Buffers with the usage flags vksort lists, in memory allocated with the device-address flag.
  VkPhysicalDeviceMemoryProperties memProps;
  vkGetPhysicalDeviceMemoryProperties(gpu, &memProps);
  auto makeBuffer = [&](VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want, Buffer* b) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, size,
                           usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT};
    CHECK(vkCreateBuffer(device, &bci, nullptr, &b->buffer));
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(device, b->buffer, &mr);
    uint32_t type = 0;
    while (type < memProps.memoryTypeCount &&
           (!(mr.memoryTypeBits & (1u << type)) || (memProps.memoryTypes[type].propertyFlags & want) != want))
      ++type;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, nullptr,
                                    VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags, mr.size, type};
    CHECK(vkAllocateMemory(device, &mai, nullptr, &b->memory));
    CHECK(vkBindBufferMemory(device, b->buffer, b->memory, 0));
    VkBufferDeviceAddressInfo bdai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, b->buffer};
    b->address = vkGetBufferDeviceAddress(device, &bdai);
    b->mapped = nullptr;
    if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) CHECK(vkMapMemory(device, b->memory, 0, size, 0, &b->mapped));
    return 0;
  };
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  Buffer keys, alt, temp, readback, result;
  if (makeBuffer(req.keysSize, req.keysUsage | xfer, local, &keys) ||
      makeBuffer(req.altSize, req.altUsage | xfer, local, &alt) ||
      makeBuffer(req.tempSize, req.tempUsage, local, &temp) ||
      makeBuffer(req.keysSize, VK_BUFFER_USAGE_TRANSFER_DST_BIT, host, &readback) ||
      makeBuffer(8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host, &result))
    return 1;

  // Two compute pipelines, both with only push constants (buffers by device address).
  struct Push {
    VkDeviceAddress keys, result;
    uint32_t count, seed;
  };
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 0, nullptr, 1, &range};
  VkPipelineLayout layout;
  CHECK(vkCreatePipelineLayout(device, &plci, nullptr, &layout));
  VkPipeline generate, check;
  for (auto [code, size, pipeline] : {std::make_tuple(minimal_generate_spv, sizeof minimal_generate_spv, &generate),
                                      std::make_tuple(minimal_check_spv, sizeof minimal_check_spv, &check)}) {
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, size, code};
    VkShaderModule module;
    CHECK(vkCreateShaderModule(device, &smci, nullptr, &module));
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main"};
    cpci.layout = layout;
    CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, nullptr, pipeline));
    vkDestroyShaderModule(device, module, nullptr);
  }

  // One command buffer: generate -> barrier -> sort -> barrier -> check -> copy for the CPU.
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr, 0, family};
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(device, &cpci, nullptr, &pool));
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                   VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(device, &cbai, &cmd));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                                 VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  CHECK(vkBeginCommandBuffer(cmd, &begin));
  auto barrier = [&](VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                     VkAccessFlags dstAccess) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, srcAccess, dstAccess};
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
  };
  const uint32_t groups = (n + 255) / 256;
  Push push{keys.address, result.address, n, seed};
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, generate);
  vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, groups, 1, 1);

  // vksort.h, "Before the sort": earlier writes to the keys must be available and visible to
  // COMPUTE_SHADER with SHADER_READ | SHADER_WRITE, and earlier accesses to alt and temp must have
  // completed before COMPUTE_SHADER | TRANSFER. Here alt and temp are fresh; in a loop, the previous
  // sort's compute writes to them are covered by this same barrier, and vksort orders its own
  // clearing of temp (a transfer) after them.
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  VksortSortInfo si{};
  si.count = n;
  si.keys = {keys.buffer, 0, req.keysSize};
  si.alt = {alt.buffer, 0, req.altSize};
  si.temp = {temp.buffer, 0, req.tempSize};
  VksortResultBuffer where;  // known now, at record time: 4 passes for 32-bit keys put the result in keys
  if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS)
    return std::printf("FAIL: %s\n", vksortGetLastError()), 1;
  const Buffer& sorted = where == VKSORT_RESULT_IN_KEYS ? keys : alt;

  // vksort.h, "After the sort": the result range was last written by COMPUTE_SHADER with
  // SHADER_WRITE; put a barrier from there to the consumers: our check pass (a compute shader) and the
  // copy for the CPU (transfer). vksort left the compute pipeline binding and the push constants
  // undefined, so bind and push again.
  barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  push.keys = sorted.address;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, check);
  vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, groups, 1, 1);
  VkBufferCopy copy{0, 0, req.keysSize};  // reads only, like the check pass: no barrier between them
  vkCmdCopyBuffer(cmd, sorted.buffer, readback.buffer, 1, &copy);

  // Make the copy and the check pass's atomics visible to the host, which reads them after the fence.
  barrier(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  CHECK(vkEndCommandBuffer(cmd));

  // Submit and wait, with a timeout: a hung GPU must not hang the program.
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  CHECK(vkCreateFence(device, &fci, nullptr, &fence));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 0, nullptr, nullptr, 1, &cmd};
  CHECK(vkQueueSubmit(queue, 1, &submit, fence));
  CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, 30ull * 1000 * 1000 * 1000));

  // The CPU check: the same keys, sorted by std::sort, and the GPU's own verdict.
  std::vector<uint32_t> expected(n);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += expected[i] = mix32(i ^ seed);
  std::sort(expected.begin(), expected.end());
  const uint32_t* got = static_cast<const uint32_t*>(readback.mapped);
  const uint32_t* gpuCheck = static_cast<const uint32_t*>(result.mapped);
  const bool ok = std::equal(expected.begin(), expected.end(), got) && gpuCheck[0] == 0 && gpuCheck[1] == sum;
  std::printf("%s: %u keys sorted (GPU check: %u out of order, sum %s)\n", ok ? "PASS" : "FAIL", n, gpuCheck[0],
              gpuCheck[1] == sum ? "matches" : "differs");

  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  vkDestroyPipeline(device, generate, nullptr);
  vkDestroyPipeline(device, check, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  for (Buffer* b : {&keys, &alt, &temp, &readback, &result}) {
    vkDestroyBuffer(device, b->buffer, nullptr);
    vkFreeMemory(device, b->memory, nullptr);
  }
  vksortDestroySorter(sorter);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
  return ok ? 0 : 1;
}

// Vulkan occupancy probe (occupancy_probe.comp): how many workgroups of each
// size and shared-memory footprint are resident at once on one SM. Build and
// run: see ../README.md.
#include <volk.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include "probe_spv.h"  // xxd -i probe.spv
#define CK(x)                                 \
  do {                                        \
    VkResult r_ = (x);                        \
    if (r_ != VK_SUCCESS) {                   \
      std::printf("%s failed: %d\n", #x, r_); \
      return 1;                               \
    }                                         \
  } while (0)
int main() {
  CK(volkInitialize());
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance inst;
  CK(vkCreateInstance(&ici, nullptr, &inst));
  volkLoadInstance(inst);
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(inst, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  vkEnumeratePhysicalDevices(inst, &n, pds.data());
  VkPhysicalDevice pd = pds[0];
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceDriverProperties drv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  drv.pNext = &smp;
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &drv;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  std::printf("device %s, driver %s %s, SMs %u, warps per SM %u, maxComputeSharedMemorySize %u\n",
              p2.properties.deviceName, drv.driverName, drv.driverInfo, smp.shaderSMCount, smp.shaderWarpsPerSM,
              p2.properties.limits.maxComputeSharedMemorySize);
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV smf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV};
  smf.shaderSMBuiltins = VK_TRUE;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  f12.pNext = &smf;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.features.shaderInt64 = VK_TRUE;
  f2.pNext = &f12;
  uint32_t qf = 0;
  {
    uint32_t c = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &c, nullptr);
    std::vector<VkQueueFamilyProperties> q(c);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &c, q.data());
    while (!(q[qf].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++qf;
  }
  float prio = 1;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = qf;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  const char* ext[] = {"VK_NV_shader_sm_builtins"};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = ext;
  VkDevice dev;
  CK(vkCreateDevice(pd, &dci, nullptr, &dev));
  volkLoadDevice(dev);
  VkQueue queue;
  vkGetDeviceQueue(dev, qf, 0, &queue);

  const VkDeviceSize bytes = 4 * 2049;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  bci.usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  VkBuffer buf;
  CK(vkCreateBuffer(dev, &bci, nullptr, &buf));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(dev, buf, &mr);
  VkPhysicalDeviceMemoryProperties mp;
  vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  uint32_t mt = 0;
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  while (!((mr.memoryTypeBits >> mt) & 1) || (mp.memoryTypes[mt].propertyFlags & want) != want) ++mt;
  VkMemoryAllocateFlagsInfo mafi{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  mafi.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &mafi;
  mai.allocationSize = mr.size;
  mai.memoryTypeIndex = mt;
  VkDeviceMemory mem;
  CK(vkAllocateMemory(dev, &mai, nullptr, &mem));
  CK(vkBindBufferMemory(dev, buf, mem, 0));
  uint32_t* host;
  CK(vkMapMemory(dev, mem, 0, bytes, 0, reinterpret_cast<void**>(&host)));
  VkBufferDeviceAddressInfo bdai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  bdai.buffer = buf;
  const uint64_t addr = vkGetBufferDeviceAddress(dev, &bdai);

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = probe_spv_len;
  std::vector<uint32_t> code((probe_spv_len + 3) / 4);
  std::memcpy(code.data(), probe_spv, probe_spv_len);
  smci.pCode = code.data();
  VkShaderModule sm;
  CK(vkCreateShaderModule(dev, &smci, nullptr, &sm));
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, 16};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &pcr;
  VkPipelineLayout layout;
  CK(vkCreatePipelineLayout(dev, &plci, nullptr, &layout));
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpci.queueFamilyIndex = qf;
  VkCommandPool pool;
  CK(vkCreateCommandPool(dev, &cpci, nullptr, &pool));
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  CK(vkAllocateCommandBuffers(dev, &cbai, &cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  CK(vkCreateFence(dev, &fci, nullptr, &fence));

  const uint32_t sizes[] = {128, 256, 384, 512, 1024};
  const uint32_t sharedBytes[] = {4,     2048,  4096,  8192,  12288, 16384, 20480,
                                  22528, 23552, 24576, 28672, 32768, 40960, 49152};
  std::printf("%6s %8s %10s %10s %10s %8s %s\n", "wg", "shared", "peak-max", "peak-min", "peak-med", "SMs",
              "-> shared per SM (peak-max x shared)");
  for (uint32_t wg : sizes) {
    for (uint32_t sb : sharedBytes) {
      if (sb > p2.properties.limits.maxComputeSharedMemorySize) continue;
      uint32_t spec[2] = {wg, sb / 4};
      VkSpecializationMapEntry me[2] = {{0, 0, 4}, {1, 4, 4}};
      VkSpecializationInfo si{2, me, 8, spec};
      VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                   nullptr,
                   0,
                   VK_SHADER_STAGE_COMPUTE_BIT,
                   sm,
                   "main",
                   &si};
      cpi.layout = layout;
      VkPipeline pipe;
      CK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, nullptr, &pipe));
      std::memset(host, 0, bytes);
      VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      CK(vkBeginCommandBuffer(cmd, &cbi));
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
      struct {
        uint64_t a;
        uint32_t spin, pad;
      } push{addr, 20000u, 0};
      vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 16, &push);
      vkCmdDispatch(cmd, smp.shaderSMCount * 40, 1, 1);
      CK(vkEndCommandBuffer(cmd));
      VkSubmitInfo sub{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      sub.commandBufferCount = 1;
      sub.pCommandBuffers = &cmd;
      CK(vkQueueSubmit(queue, 1, &sub, fence));
      CK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 20000000000ull));
      vkResetFences(dev, 1, &fence);
      vkResetCommandBuffer(cmd, 0);
      std::vector<uint32_t> peaks;
      for (uint32_t i = 0; i < 1024; ++i)
        if (host[1024 + i]) peaks.push_back(host[1024 + i]);
      std::sort(peaks.begin(), peaks.end());
      uint32_t leftover = 0;
      for (uint32_t i = 0; i < 1024; ++i) leftover += host[i];
      std::printf("%6u %8u %10u %10u %10u %8zu %8u B%s\n", wg, sb, peaks.back(), peaks.front(), peaks[peaks.size() / 2],
                  peaks.size(), peaks.back() * sb, leftover ? "  (live counters not zero!)" : "");
      vkDestroyPipeline(dev, pipe, nullptr);
    }
  }
  return 0;
}

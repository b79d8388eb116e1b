// chain: times chains of 1..D dependent compute dispatches (each followed by
// a compute->compute barrier), empty or copying N u32 keys, with timestamp
// queries: median of 30 runs after 5 warm-up runs. The floor under any sort
// recorded as one histogram dispatch plus one dispatch per 8-bit pass.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "chain_spv.h"
#include "vk_context.h"

struct Push {
  uint64_t src, dst;
  uint32_t count;
};

int main() {
  VkContext ctx;
  std::string err;
  if (!ctx.init({}, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::printf("device %s, %s\n", ctx.deviceName().c_str(), ctx.driverDescription().c_str());
  const uint32_t maxN = 1u << 22;
  GpuBuffer a =
      ctx.createBuffer(maxN * 4ull, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  GpuBuffer b =
      ctx.createBuffer(maxN * 4ull, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  auto addr = [&](GpuBuffer& g) {
    VkBufferDeviceAddressInfo i{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    i.buffer = g.buffer;
    return vkGetBufferDeviceAddress(ctx.device, &i);
  };
  const uint64_t aa = addr(a), ba = addr(b);

  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = sizeof(chain_spv);
  smci.pCode = reinterpret_cast<const uint32_t*>(chain_spv);
  VkShaderModule sm;
  vkCreateShaderModule(ctx.device, &smci, nullptr, &sm);
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &pcr;
  VkPipelineLayout layout;
  vkCreatePipelineLayout(ctx.device, &plci, nullptr, &layout);
  auto pipeline = [&](uint32_t wg, uint32_t keys, uint32_t copy) {
    uint32_t data[3] = {wg, keys, copy};
    VkSpecializationMapEntry e[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo si{3, e, sizeof data, data};
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, sm, "main", &si};
    ci.layout = layout;
    VkPipeline p;
    vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &ci, nullptr, &p);
    return p;
  };
  const int runs = 30, warm = 5;
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2 * (runs + warm);
  VkQueryPool qp;
  vkCreateQueryPool(ctx.device, &qci, nullptr, &qp);
  const uint64_t mask = ctx.timestampValidBits >= 64 ? ~0ull : ((1ull << ctx.timestampValidBits) - 1);

  struct Cfg {
    uint32_t n, wg, keys;
  };
  const Cfg cfgs[] = {{65536, 512, 8}, {65536, 256, 2}, {1u << 20, 1024, 10}, {1u << 20, 512, 8}};
  std::printf("%9s %6s %5s %6s %10s %10s %10s %10s %10s\n", "N", "wg", "keys", "groups", "mode", "1 disp", "5 disp",
              "per+1", "5-chain");
  for (const Cfg& c : cfgs) {
    for (uint32_t copy = 0; copy < 2; ++copy) {
      VkPipeline p = pipeline(c.wg, c.keys, copy);
      const uint32_t groups = (c.n + c.wg * c.keys - 1) / (c.wg * c.keys);
      double med[6] = {};
      for (int d = 1; d <= 5; ++d) {
        VkCommandBuffer cmd = ctx.beginCommands();
        vkCmdResetQueryPool(cmd, qp, 0, qci.queryCount);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
        for (int r = 0; r < runs + warm; ++r) {
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                               &mb, 0, nullptr, 0, nullptr);
          vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 2 * r);
          for (int i = 0; i < d; ++i) {
            Push push{(i & 1) ? ba : aa, (i & 1) ? aa : ba, c.n};
            vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
            vkCmdDispatch(cmd, groups, 1, 1);
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &mb, 0, nullptr, 0, nullptr);
          }
          vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 2 * r + 1);
        }
        if (!ctx.submitAndWait(cmd, 10'000'000'000ull, &err)) {
          std::fprintf(stderr, "%s\n", err.c_str());
          return 1;
        }
        std::vector<uint64_t> ts(qci.queryCount);
        vkGetQueryPoolResults(ctx.device, qp, 0, qci.queryCount, ts.size() * 8, ts.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        std::vector<double> us;
        for (int r = warm; r < runs + warm; ++r)
          us.push_back(double((ts[2 * r + 1] - ts[2 * r]) & mask) * ctx.properties.limits.timestampPeriod * 1e-3);
        std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
        med[d] = us[us.size() / 2];
      }
      std::printf("%9u %6u %5u %6u %10s %10.2f %10.2f %10.2f %10.2f\n", c.n, c.wg, c.keys, groups,
                  copy ? "copy" : "empty", med[1], med[5], (med[5] - med[1]) / 4, med[5]);
      vkDestroyPipeline(ctx.device, p, nullptr);
    }
  }
  return 0;
}

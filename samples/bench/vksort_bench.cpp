// vksort_bench: sorts fresh random u32 keys on the default Vulkan device,
// verifies every size against a CPU sort, and reports the median sort time
// from Vulkan timestamp queries.
//
//   vksort_bench [--sizes 1024,65536,...] [--runs 20] [--warmup 3] [--json FILE]
//                [--device I] [--validation] [--tuning wg,kpt,ring,lookback,tailgroup,histwgs,spin,delay]
//
// Each run generates new keys on the GPU (keygen.comp, seeded per run), then
// times only the recorded sort: from a timestamp after key generation has
// finished to one after the sort's last dispatch.
#include <vksort/vksort.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vk_context.h"
#include "vksort_keygen_spv.h"

namespace {

constexpr uint64_t kFenceTimeoutNs = 60ull * 1000 * 1000 * 1000;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "vksort_bench: %s\n", what.c_str());
  std::_Exit(1);  // the device may be hung: skip destructors that would wait on it
}

std::vector<uint32_t> parseList(const char* s) {
  std::vector<uint32_t> v;
  while (*s) {
    char* end;
    v.push_back(uint32_t(std::strtoull(s, &end, 0)));
    s = *end ? end + 1 : end;
  }
  return v;
}

// LSD radix sort on the CPU: the reference for verification (fast enough for
// 2^28 keys, unlike a comparison sort).
void cpuRadixSort(std::vector<uint32_t>& keys) {
  std::vector<uint32_t> tmp(keys.size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t count[257] = {};
    for (uint32_t k : keys) ++count[((k >> shift) & 255) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (uint32_t k : keys) tmp[count[(k >> shift) & 255]++] = k;
    keys.swap(tmp);
  }
}

struct KeyGen {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  struct Push {
    uint64_t address;
    uint32_t count;
    uint32_t seed;
  };

  void init(VkDevice device) {
    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mci.codeSize = sizeof vksort_keygen_spv;
    mci.pCode = vksort_keygen_spv;
    VkShaderModule module;
    vkCreateShaderModule(device, &mci, nullptr, &module);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    vkCreatePipelineLayout(device, &lci, nullptr, &layout);
    VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pci.stage.module = module;
    pci.stage.pName = "main";
    pci.layout = layout;
    if (vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline) != VK_SUCCESS)
      die("creating the key generation pipeline failed");
    vkDestroyShaderModule(device, module, nullptr);
  }
  void destroy(VkDevice device) {
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
  }
  void record(VkCommandBuffer cmd, VkDeviceAddress address, uint32_t count, uint32_t seed) const {
    Push p{address, count, seed};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    const uint32_t groups = std::min<uint32_t>((count + 255) / 256, 65535);
    vkCmdDispatch(cmd, std::max<uint32_t>(groups, 1), 1, 1);
  }
};

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, srcAccess, dstAccess};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

VkDeviceAddress deviceAddress(VkDevice device, VkBuffer buffer) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, buffer};
  return vkGetBufferDeviceAddress(device, &info);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes;
  int runs = 20, warmup = 3;
  const char* jsonPath = nullptr;
  VkContextOptions options;
  VksortTuning tuning{};
  bool haveTuning = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--sizes")
      sizes = parseList(next());
    else if (a == "--runs")
      runs = std::atoi(next());
    else if (a == "--warmup")
      warmup = std::atoi(next());
    else if (a == "--json")
      jsonPath = next();
    else if (a == "--device")
      options.deviceIndex = std::atoi(next());
    else if (a == "--validation")
      options.validation = true;
    else if (a == "--tuning") {
      std::vector<uint32_t> t = parseList(next());
      t.resize(8, 0);
      tuning = {t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]};
      haveTuning = true;
    } else {
      std::printf(
          "usage: vksort_bench [--sizes N,N,...] [--runs R>=20] [--warmup W] [--json FILE] [--device I]\n"
          "                    [--validation] [--tuning wg,kpt,ring,lookback,tailgroup,histwgs,spin,delay]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (runs < 20) die("--runs must be at least 20 (the median of >= 20 runs is the reported figure)");

  VkContext ctx;
  std::string error;
  if (!ctx.init(options, &error)) die(error);
  const bool cpuDevice = ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (sizes.empty())
    sizes = cpuDevice ? std::vector<uint32_t>{1u << 10, 1u << 16, 1u << 20, 1u << 22}
                      : std::vector<uint32_t>{1u << 10, 1u << 16, 1u << 20, 1u << 24, 1u << 26, 1u << 28};
  if (ctx.timestampValidBits == 0) die("the compute queue has no timestamps");

  VksortCreateInfo ci{};
  ci.instance = ctx.instance;
  ci.physicalDevice = ctx.physicalDevice;
  ci.device = ctx.device;
  ci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
  ci.pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
  ci.pDeviceCreateInfo = &ctx.deviceCreateInfo;
  ci.pTuning = haveTuning ? &tuning : nullptr;
  VksortSorter sorter;
  if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) die(vksortGetLastError());

  KeyGen keygen;
  keygen.init(ctx.device);
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2;
  VkQueryPool queries;
  vkCreateQueryPool(ctx.device, &qci, nullptr, &queries);

  const char* commit = std::getenv("VKSORT_COMMIT") ? std::getenv("VKSORT_COMMIT") : VKSORT_GIT_COMMIT;
  std::printf("device: %s (%s), commit %s\n", ctx.deviceName().c_str(), ctx.driverDescription().c_str(), commit);
  FILE* json = jsonPath ? std::fopen(jsonPath, "w") : nullptr;
  if (jsonPath && !json) die(std::string("cannot write ") + jsonPath);

  std::printf("%12s %12s %12s %14s %s\n", "N", "median us", "min us", "G keys/s", "check");
  bool allOk = true;
  for (uint32_t n : sizes) {
    VksortMemoryRequirements req;
    if (vksortGetMemoryRequirements(sorter, n, &req) != VKSORT_SUCCESS) die(vksortGetLastError());
    const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    GpuBuffer keys = ctx.createBuffer(std::max<VkDeviceSize>(req.keysSize, 4), req.keysUsage | xfer, false);
    GpuBuffer alt = ctx.createBuffer(std::max<VkDeviceSize>(req.altSize, 4), req.altUsage | xfer, false);
    GpuBuffer temp = ctx.createBuffer(req.tempSize, req.tempUsage, false);
    GpuBuffer before =
        ctx.createBuffer(std::max<VkDeviceSize>(req.keysSize, 4), VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    GpuBuffer after = ctx.createBuffer(std::max<VkDeviceSize>(req.keysSize, 4), VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);

    VksortSortInfo si{};
    si.count = n;
    si.keys = {keys.buffer, 0, req.keysSize};
    si.alt = {alt.buffer, 0, req.altSize};
    si.temp = {temp.buffer, 0, req.tempSize};

    std::vector<double> times;
    bool verified = false, ok = true;
    const VkDeviceAddress keysAddress = deviceAddress(ctx.device, keys.buffer);
    for (int run = 0; run < warmup + runs; ++run) {
      const bool check = run == warmup;  // verify the first timed run of every size
      const uint32_t seed = 0x9e3779b9u * uint32_t(run + 1) ^ n;
      VkCommandBuffer cmd = ctx.beginCommands();
      vkCmdResetQueryPool(cmd, queries, 0, 2);
      keygen.record(cmd, keysAddress, n, seed);
      memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
      if (check && n > 0) {
        VkBufferCopy region{0, 0, req.keysSize};
        vkCmdCopyBuffer(cmd, keys.buffer, before.buffer, 1, &region);
        memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
      }
      // BOTTOM_OF_PIPE: the first timestamp is written once key generation
      // (and the copy) have completed.
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);
      VksortResultBuffer where;
      if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
      if (check && n > 0) {
        memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        VkBufferCopy region{0, 0, req.keysSize};
        vkCmdCopyBuffer(cmd, where == VKSORT_RESULT_IN_KEYS ? keys.buffer : alt.buffer, after.buffer, 1, &region);
        memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_HOST_READ_BIT);
      }
      // The next run's key generation overwrites the keys: the fence wait
      // below orders it after this sort.
      if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error + " at N = " + std::to_string(n));
      uint64_t ts[2];
      vkGetQueryPoolResults(ctx.device, queries, 0, 2, sizeof ts, ts, sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      const uint64_t mask = ctx.timestampValidBits >= 64 ? ~0ull : (1ull << ctx.timestampValidBits) - 1;
      const double us = double((ts[1] - ts[0]) & mask) * ctx.properties.limits.timestampPeriod * 1e-3;
      if (run >= warmup) times.push_back(us);
      if (check && n > 0) {
        std::vector<uint32_t> ref(static_cast<const uint32_t*>(before.mapped),
                                  static_cast<const uint32_t*>(before.mapped) + n);
        cpuRadixSort(ref);
        ok = std::memcmp(ref.data(), after.mapped, size_t(n) * 4) == 0;
        if (!ok && std::getenv("VKSORT_DEBUG")) {
          const uint32_t* got = static_cast<const uint32_t*>(after.mapped);
          int shown = 0;
          for (uint32_t i = 0; i < n && shown < 20; ++i)
            if (got[i] != ref[i]) {
              std::printf("  [%u] want %08x got %08x\n", i, ref[i], got[i]);
              ++shown;
            }
        }
        verified = true;
      }
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2], best = times.front();
    const double gkeys = median > 0 ? n / median * 1e-3 : 0;
    std::printf("%12u %12.1f %12.1f %14.3f %s\n", n, median, best, gkeys, !verified ? "n/a" : ok ? "ok" : "WRONG");
    std::fflush(stdout);
    allOk = allOk && ok;
    if (json) {
      const VksortTuning t = tuning;
      std::fprintf(json,
                   "{\"impl\":\"vksort\",\"algorithm\":\"onesweep\",\"device\":\"%s\",\"driver\":\"%s\","
                   "\"commit\":\"%s\",\"key\":\"u32\",\"payload\":\"none\",\"n\":%u,\"dist\":\"uniform\","
                   "\"runs\":%d,\"median_ms\":%.6f,\"min_ms\":%.6f,\"keys_per_s\":%.1f,\"temp_bytes\":%llu,"
                   "\"verified\":%s,\"tuning\":\"%u,%u,%u,%u,%u,%u\"}\n",
                   ctx.deviceName().c_str(), ctx.driverDescription().c_str(), commit, n, runs, median * 1e-3,
                   best * 1e-3, gkeys * 1e9, (unsigned long long)req.tempSize, ok ? "true" : "false", t.workgroupSize,
                   t.keysPerThread, t.ringSlots, t.lookback, t.tailGroup, t.histogramWorkgroups);
      std::fflush(json);
    }
    for (GpuBuffer* b : {&keys, &alt, &temp, &before, &after}) ctx.destroyBuffer(*b);
  }
  if (json) std::fclose(json);
  for (const std::string& m : ctx.takeValidationMessages()) {
    std::fprintf(stderr, "validation: %s\n", m.c_str());
    allOk = false;
  }
  vkDestroyQueryPool(ctx.device, queries, nullptr);
  keygen.destroy(ctx.device);
  vksortDestroySorter(sorter);
  if (!allOk) {
    std::fprintf(stderr, "vksort_bench: FAILED (wrong result or validation message)\n");
    return 1;
  }
  return 0;
}

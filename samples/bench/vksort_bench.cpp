// vksort_bench: sorts fresh keys (and values) on a Vulkan device, verifies
// every size, and reports the median sort time from Vulkan timestamp queries.
//
//   vksort_bench [--sizes N,N,...] [--runs R>=20] [--warmup W] [--json FILE]
//                [--key u32|i32|f32|u64|i64|f64] [--value none|u32|u64|index]
//                [--dist uniform|lowentropy|morton|presorted] [--descending] [--bits B,E]
//                [--cpu] [--cpu-max N] [--reference-max N] [--workload NAME]
//                [--device I] [--validation] [--tuning FIELD=V,FIELD=V,...] [--indirect-max M]
//
// Each run generates new keys (and values) on the GPU (keygen.comp, seeded per
// run: bench_common.h describes the distributions) in a dispatch of its own,
// then times only the recorded sort: from a BOTTOM_OF_PIPE timestamp after key
// generation has finished to one after the sort's last dispatch. All runs of
// a size go into one submission, so the GPU does not idle between them. The
// last timed run of every size is downloaded and verified (bench::verifySort:
// the O(N) check at every size, plus std::stable_sort up to --reference-max).
// --cpu also times std::sort and an LSD radix sort on the CPU (one thread) on
// those same keys and prints where the GPU starts to win.
#include <vksort/vksort_advanced.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "bench_cpu.h"
#include "segment_workloads.h"
#include "vk_context.h"
#include "vksort_keygen_spv.h"
#include "vksort_segment_keys_spv.h"

namespace {

constexpr uint64_t kFenceTimeoutNs = 60ull * 1000 * 1000 * 1000;
const char* const kProg = "vksort_bench";

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "vksort_bench: %s\n", what.c_str());
  std::_Exit(1);  // the device may be hung: skip destructors that would wait on it
}

// A compute pipeline of the bench's own (key generation, the segmented
// workaround's keys), with push constants only.
struct Kernel {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;

  void init(VkDevice device, const uint32_t* code, size_t codeBytes, uint32_t pushBytes, const char* name) {
    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mci.codeSize = codeBytes;
    mci.pCode = code;
    VkShaderModule module;
    if (vkCreateShaderModule(device, &mci, nullptr, &module) != VK_SUCCESS)
      die(std::string("creating ") + name + " failed");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
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
      die(std::string("creating the pipeline of ") + name + " failed");
    vkDestroyShaderModule(device, module, nullptr);
  }
  void destroy(VkDevice device) {
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
  }
  // One invocation per item up to 65,535 workgroups of 256 (the kernels
  // loop over the rest).
  template <class Push>
  void record(VkCommandBuffer cmd, const Push& p, uint32_t items) const {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    const uint32_t groups = std::min<uint32_t>((items + 255) / 256, 65535);
    vkCmdDispatch(cmd, std::max<uint32_t>(groups, 1), 1, 1);
  }
};

struct KeyGen : Kernel {
  struct Push {
    uint64_t keysAddress;
    uint64_t valuesAddress;
    bench::GenParams params;
  };
  static_assert(sizeof(Push) == 56, "keygen.comp's push constants are 56 bytes");
  void init(VkDevice device) {
    Kernel::init(device, vksort_keygen_spv, sizeof vksort_keygen_spv, sizeof(Push), "keygen.comp");
  }
  void record(VkCommandBuffer cmd, const Push& p) const { Kernel::record(cmd, p, p.params.count); }
};

// A host-visible buffer for downloads, cached on the host where the device
// offers such memory (reading 2^28 keys from uncached memory is slow).
struct Staging {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;

  void init(const VkContext& ctx, VkDeviceSize size) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (vkCreateBuffer(ctx.device, &bci, nullptr, &buffer) != VK_SUCCESS) die("vkCreateBuffer (staging) failed");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx.device, buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(ctx.physicalDevice, &mp);
    const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (VkMemoryPropertyFlags want : {coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, coherent}) {
      for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) type = i;
      if (type != UINT32_MAX) break;
    }
    if (type == UINT32_MAX) die("no host-visible memory for the staging buffer");
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    if (vkAllocateMemory(ctx.device, &mai, nullptr, &memory) != VK_SUCCESS)
      die("allocating " + std::to_string(size) + " bytes of staging memory failed");
    vkBindBufferMemory(ctx.device, buffer, memory, 0);
    if (vkMapMemory(ctx.device, memory, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS) die("vkMapMemory failed");
  }
  void destroy(VkDevice device) {
    vkDestroyBuffer(device, buffer, nullptr);
    vkFreeMemory(device, memory, nullptr);
  }
};

// One barrier for everything: earlier compute and transfer work (including
// the previous run's sort and copies) before later compute and transfer work.
void fullBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void toHostBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
}

VkDeviceAddress deviceAddress(VkDevice device, VkBuffer buffer) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, buffer};
  return vkGetBufferDeviceAddress(device, &info);
}

std::string cpuName() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "cpu";
}

std::string compilerName() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "c++";
#endif
}

// --tuning: VksortTuning fields by name.
struct TuningField {
  const char* name;
  uint32_t VksortTuning::*field;
};
const TuningField kTuningFields[] = {
    {"workgroupSize", &VksortTuning::workgroupSize},
    {"keysPerThread", &VksortTuning::keysPerThread},
    {"stagingRounds", &VksortTuning::stagingRounds},
    {"histogramWorkgroups", &VksortTuning::histogramWorkgroups},
    {"ringSlots", &VksortTuning::ringSlots},
    {"lookback", &VksortTuning::lookback},
    {"tailGroup", &VksortTuning::tailGroup},
    {"lookbackLanes", &VksortTuning::lookbackLanes},
    {"bitonicKeysMaxCount", &VksortTuning::bitonicKeysMaxCount},
    {"bitonicMaxCount", &VksortTuning::bitonicMaxCount},
    {"oneWorkgroupSize", &VksortTuning::oneWorkgroupSize},
    {"oneWorkgroupKeysPerThread", &VksortTuning::oneWorkgroupKeysPerThread},
    {"oneWorkgroupMaxCount", &VksortTuning::oneWorkgroupMaxCount},
    {"midsizeMaxCount", &VksortTuning::midsizeMaxCount},
    {"chainedMaxCount", &VksortTuning::chainedMaxCount},
};

std::string tuningFieldNames() {
  std::string names;
  for (const TuningField& f : kTuningFields) names += std::string(names.empty() ? "" : " ") + f.name;
  return names;
}

// Parses "field=value,field=value" ("off" = VKSORT_TUNING_OFF) into tuning.
void parseTuning(const std::string& text, VksortTuning* tuning) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) die("--tuning: '" + item + "' is not FIELD=VALUE");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    const TuningField* field = nullptr;
    for (const TuningField& f : kTuningFields)
      if (name == f.name) field = &f;
    if (!field) die("--tuning: no field '" + name + "'; fields: " + tuningFieldNames());
    tuning->*(field->field) =
        value == "off" ? VKSORT_TUNING_OFF
                       : uint32_t(std::min<uint64_t>(bench::parseNumber(kProg, value.c_str(), "--tuning"), UINT32_MAX));
    start = end + 1;
  }
}

void usage() {
  std::printf(
      "usage: vksort_bench [options]\n%s"
      "  --cpu               also time std::sort and an LSD radix sort on the CPU (one thread)\n"
      "                      on the same keys, and print the GPU/CPU crossover\n"
      "  --cpu-max N         CPU sorts only up to this N (default 4194304)\n"
      "  --device I          the I-th Vulkan physical device\n"
      "  --algorithm A       auto | onesweep | portable (default auto: by driver)\n"
      "  --radix-bits R      the portable algorithm's digit width: 1, 2, 4 or 8 (default 8)\n"
      "  --indirect-max M    an indirect count: buffers and the recorded count are for M keys, and\n"
      "                      each size in --sizes is the live count the GPU reads (at most M)\n"
      "  --validation        enable the Khronos validation layer (any message fails the run)\n"
      "  --segmented W,...   segmented sorts of the named workloads (segment_workloads.h: SxK,\n"
      "                      powerlaw4096), u32 keys alone or with u32 values, and the same\n"
      "                      segments sorted with the segment index in the high key bits\n"
      "  --tuning F=V,...    VksortTuning overrides by field name (vksort_advanced.h), e.g.\n"
      "                      workgroupSize=512,keysPerThread=20 or midsizeMaxCount=off; fields:\n"
      "                      %s\n",
      bench::commonUsage(), tuningFieldNames().c_str());
}

}  // namespace

// --segmented: what the segmented benchmark needs of main's setup.
struct SegmentedBench {
  VkContext& ctx;
  const bench::CommonOptions& opt;
  VksortCreateInfo ci;  // the sorter's, segmented
  const KeyGen& keygen;
  VkQueryPool queries;
  std::function<double(uint64_t, uint64_t)> ticksToMs;
  std::function<void(const bench::Row&)> emit;
  bench::Row base;
  std::string algorithmName;
};

// One timed configuration of --segmented: for each run, `prepare` records
// the run's fresh input (not timed) and `sort` the sort, between two
// timestamps. Warm-up as for the plain sorts: batches of at least 20 ms
// until three agree within 2% (1 to 5 s). Returns the timed runs' times; the
// last run's input and output stay in the buffers for the check.
std::vector<double> timeSegmentedRuns(const SegmentedBench& b, const std::function<void(VkCommandBuffer, int)>& prepare,
                                      const std::function<void(VkCommandBuffer)>& sort) {
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> perSortMs;
  uint32_t batch = 2;
  for (;;) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const size_t n = perSortMs.size();
    const bool settled = n >= 3 && std::max({perSortMs[n - 1], perSortMs[n - 2], perSortMs[n - 3]}) <=
                                       1.02 * std::min({perSortMs[n - 1], perSortMs[n - 2], perSortMs[n - 3]});
    if ((elapsed >= 1.0 && settled) || elapsed >= 5.0) break;
    VkCommandBuffer cmd = b.ctx.beginCommands();
    vkCmdResetQueryPool(cmd, b.queries, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, 0);
    for (uint32_t k = 0; k < batch; ++k) {
      fullBarrier(cmd);
      sort(cmd);
    }
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, 1);
    if (!b.ctx.submitAndWait(cmd, kFenceTimeoutNs * batch, &error)) die(error);
    uint64_t ts[2];
    vkGetQueryPoolResults(b.ctx.device, b.queries, 0, 2, sizeof ts, ts, sizeof(uint64_t),
                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    const double ms = b.ticksToMs(ts[0], ts[1]);
    perSortMs.push_back(ms / batch);
    if (ms < 20.0 && batch < 8192) {
      batch *= 2;
      perSortMs.clear();
    }
  }
  const int total = b.opt.warmup + b.opt.runs;
  VkCommandBuffer cmd = b.ctx.beginCommands();
  vkCmdResetQueryPool(cmd, b.queries, 0, uint32_t(2 * total));
  for (int run = 0; run < total; ++run) {
    fullBarrier(cmd);
    prepare(cmd, run);
    fullBarrier(cmd);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, uint32_t(2 * run));
    sort(cmd);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b.queries, uint32_t(2 * run + 1));
  }
  if (!b.ctx.submitAndWait(cmd, kFenceTimeoutNs * uint64_t(total), &error)) die(error);
  std::vector<uint64_t> ts(size_t(2 * total));
  vkGetQueryPoolResults(b.ctx.device, b.queries, 0, uint32_t(2 * total), ts.size() * sizeof(uint64_t), ts.data(),
                        sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  std::vector<double> times;
  for (int run = b.opt.warmup; run < total; ++run)
    times.push_back(b.ticksToMs(ts[size_t(2 * run)], ts[size_t(2 * run + 1)]));
  return times;
}

// Copies `bytes` of each buffer to the host (after a barrier).
std::vector<std::vector<uint32_t>> download(VkContext& ctx,
                                            const std::vector<std::pair<VkBuffer, VkDeviceSize>>& from) {
  VkDeviceSize total = 0;
  for (const auto& f : from) total += f.second;
  Staging staging;
  staging.init(ctx, std::max<VkDeviceSize>(total, 4));
  VkCommandBuffer cmd = ctx.beginCommands();
  fullBarrier(cmd);
  VkDeviceSize at = 0;
  for (const auto& f : from) {
    VkBufferCopy c{0, at, f.second};
    if (f.second) vkCmdCopyBuffer(cmd, f.first, staging.buffer, 1, &c);
    at += f.second;
  }
  toHostBarrier(cmd);
  std::string error;
  if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error);
  std::vector<std::vector<uint32_t>> out;
  at = 0;
  for (const auto& f : from) {
    out.emplace_back(size_t(f.second / 4));
    std::memcpy(out.back().data(), static_cast<const char*>(staging.mapped) + at, size_t(f.second));
    at += f.second;
  }
  staging.destroy(ctx.device);
  return out;
}

// Checks a segmented result: every segment of `offsets` holds its input
// (keys and, where given, values) stably sorted by key, ascending. keyStride:
// 1 for u32 keys, 2 for the workaround's u64 keys (low word the key, high
// word the segment index, which must match).
bench::Check checkSegments(const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& inKeys,
                           const std::vector<uint32_t>& inValues, const std::vector<uint32_t>& outKeys,
                           const std::vector<uint32_t>& outValues, uint32_t keyStride) {
  bench::Check check;
  std::vector<std::pair<uint32_t, uint32_t>> expect;
  for (size_t seg = 0; seg + 1 < offsets.size() && check.ok; ++seg) {
    const uint32_t begin = offsets[seg], end = offsets[seg + 1];
    expect.clear();
    for (uint32_t i = begin; i < end; ++i) expect.push_back({inKeys[i], inValues.empty() ? 0u : inValues[i]});
    std::stable_sort(expect.begin(), expect.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    for (uint32_t i = begin; i < end && check.ok; ++i) {
      const std::pair<uint32_t, uint32_t>& e = expect[i - begin];
      const bool keyOk =
          outKeys[size_t(i) * keyStride] == e.first && (keyStride == 1 || outKeys[size_t(i) * 2 + 1] == seg);
      if (!keyOk || (!inValues.empty() && outValues[i] != e.second))
        check.fail("segment " + std::to_string(seg) + ", position " + std::to_string(i));
    }
  }
  return check;
}

// vksort_bench --segmented W,W...: for each workload, a segmented sort of
// u32 keys (with u32 values, or alone with --value none), then the same
// segments sorted without segmented sorts: one sort of u64 keys with the
// segment index in the high word, over bits [0, 32 + log2 segments) (one
// segment: a plain sort of the u32 keys).
bool runSegmented(const SegmentedBench& b, const std::vector<std::string>& workloads) {
  const bool withValues = b.opt.value == bench::kValue32;
  VksortSorter sorter, sorter64;
  VksortCreateInfo ci = b.ci;
  if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) die(vksortGetLastError());
  ci.segmented = VK_FALSE;
  ci.keyType = VKSORT_KEY_U64;
  if (vksortCreateSorter(&ci, &sorter64) != VKSORT_SUCCESS) die(vksortGetLastError());
  Kernel segmentKeys;
  struct SegmentKeysPush {
    VkDeviceAddress keys, segmentIds, keys64;
    uint32_t count;
  };
  segmentKeys.init(b.ctx.device, vksort_segment_keys_spv, sizeof vksort_segment_keys_spv, sizeof(SegmentKeysPush),
                   "segment_keys.comp");
  bool allOk = true;
  for (const std::string& name : workloads) {
    std::vector<uint32_t> offsets;
    std::string error;
    if (!bench::segmentWorkloadOffsets(name, offsets, &error)) die("--segmented: " + error);
    const uint32_t segments = uint32_t(offsets.size() - 1), n = offsets.back();
    VksortMemoryRequirements req, req64;
    if (vksortGetSegmentedMemoryRequirements(sorter, n, segments, &req) != VKSORT_SUCCESS ||
        vksortGetMemoryRequirements(sorter64, n, &req64) != VKSORT_SUCCESS)
      die(vksortGetLastError());
    const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    const VkDeviceSize keyBytes = VkDeviceSize(n) * 4, valueBytes = withValues ? keyBytes : 0;
    GpuBuffer keys = b.ctx.createBuffer(keyBytes, req.keysUsage | xfer, false);
    GpuBuffer alt = b.ctx.createBuffer(keyBytes, req.altUsage | xfer, false);
    GpuBuffer input = b.ctx.createBuffer(keyBytes + valueBytes, req.keysUsage | xfer, false);  // the run's input
    GpuBuffer values, altValues;
    if (withValues) {
      values = b.ctx.createBuffer(valueBytes, req.valuesUsage | xfer, false);
      altValues = b.ctx.createBuffer(valueBytes, req.valuesUsage | xfer, false);
    }
    GpuBuffer temp = b.ctx.createBuffer(std::max(req.tempSize, req64.tempSize), req.tempUsage, false);
    GpuBuffer keys64 = b.ctx.createBuffer(keyBytes * 2, req64.keysUsage | xfer, false);
    GpuBuffer alt64 = b.ctx.createBuffer(keyBytes * 2, req64.altUsage | xfer, false);
    // The offsets and each key's segment index, uploaded once.
    std::vector<uint32_t> segmentIds(n);
    for (uint32_t seg = 0; seg < segments; ++seg)
      std::fill(segmentIds.begin() + offsets[seg], segmentIds.begin() + offsets[seg + 1], seg);
    GpuBuffer offsetsBuffer = b.ctx.createBuffer(
        offsets.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, true);
    std::memcpy(offsetsBuffer.mapped, offsets.data(), offsets.size() * 4);
    GpuBuffer ids = b.ctx.createBuffer(
        keyBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, true);
    std::memcpy(ids.mapped, segmentIds.data(), size_t(keyBytes));

    // Run r's keys (and values): keygen's u32 keys, uniform, with values
    // i ^ mask, into keys and values; a copy kept in `input` for the check.
    KeyGen::Push gen{};
    gen.keysAddress = deviceAddress(b.ctx.device, keys.buffer);
    gen.valuesAddress = withValues ? deviceAddress(b.ctx.device, values.buffer) : 0;
    auto generate = [&](VkCommandBuffer cmd, int run) {
      gen.params = bench::makeGenParams(bench::runSeed(uint32_t(run), n), n, 0,
                                        withValues ? bench::kValue32 : bench::kNoValue, bench::kUniform);
      b.keygen.record(cmd, gen);
      fullBarrier(cmd);
      VkBufferCopy k{0, 0, keyBytes}, v{0, keyBytes, valueBytes};
      vkCmdCopyBuffer(cmd, keys.buffer, input.buffer, 1, &k);
      if (withValues) vkCmdCopyBuffer(cmd, values.buffer, input.buffer, 1, &v);
    };

    VksortSegmentedSortInfo si{};
    si.sort.count = n;
    si.sort.keys = {keys.buffer, 0, keyBytes};
    si.sort.alt = {alt.buffer, 0, keyBytes};
    si.sort.temp = {temp.buffer, 0, req.tempSize};
    if (withValues) {
      si.sort.values = {values.buffer, 0, valueBytes};
      si.sort.altValues = {altValues.buffer, 0, valueBytes};
    }
    si.segmentCount = segments;
    si.segmentOffsets = {offsetsBuffer.buffer, 0, offsets.size() * 4};
    VksortResultBuffer where = VKSORT_RESULT_IN_KEYS;
    std::vector<double> times = timeSegmentedRuns(b, generate, [&](VkCommandBuffer cmd) {
      if (vksortRecordSegmentedSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
    });
    const bool inAlt = where == VKSORT_RESULT_IN_ALT;
    std::vector<std::vector<uint32_t>> got =
        download(b.ctx, {{input.buffer, keyBytes + valueBytes},
                         {inAlt ? alt.buffer : keys.buffer, keyBytes},
                         {withValues ? (inAlt ? altValues.buffer : values.buffer) : keys.buffer, valueBytes}});
    const std::vector<uint32_t> inKeys(got[0].begin(), got[0].begin() + n), inValues(got[0].begin() + n, got[0].end());
    bench::Check check = checkSegments(offsets, inKeys, inValues, got[1], got[2], 1);
    VksortSegmentedSortPlan plan{};
    vksortGetSegmentedSortPlan(sorter, &si, &plan);
    auto row = [&](const std::string& algorithm, const std::vector<double>& t, const bench::Check& c,
                   VkDeviceSize tempOnly, VkDeviceSize scratch, const std::string& more) {
      bench::Row r = b.base;
      r.algorithm = algorithm;
      r.key = "u32";
      r.value = withValues ? "u32" : "none";
      r.workload = name;
      r.n = n;
      r.runs = b.opt.runs;
      r.warmup = b.opt.warmup;
      r.medianMs = bench::median(t);
      r.minMs = *std::min_element(t.begin(), t.end());
      r.tempOnlyBytes = tempOnly;
      r.tempBytes = scratch;
      r.verified = c.ok;
      r.check = "std::stable_sort per segment";
      r.extra = "\"segments\":" + std::to_string(segments) + ",\"timing\":\"vulkan timestamps\"" + more;
      if (b.opt.times) r.timesMs = t;
      if (!c.ok)
        std::fprintf(stderr, "vksort_bench: WRONG RESULT: %s, %s: %s\n", algorithm.c_str(), name.c_str(),
                     c.what.c_str());
      b.emit(r);
      return c.ok;
    };
    char classes[160];
    std::snprintf(classes, sizeof classes,
                  ",\"path\":\"segmented\",\"tiny_max\":%u,\"small_max\":%u,\"medium_max\":%u,\"tile\":%u",
                  plan.tinyMaxCount, plan.smallMaxCount, plan.mediumMaxCount, plan.tileKeys);
    allOk &=
        row(b.algorithmName + " segmented", times, check, req.tempSize, req.tempSize + keyBytes + valueBytes, classes);

    // Without segmented sorts: the segment index in the high key bits.
    uint32_t indexBits = 0;
    while ((1ull << indexBits) < segments) ++indexBits;
    VksortSortInfo plain{};
    plain.count = n;
    plain.temp = {temp.buffer, 0, req64.tempSize};
    if (withValues) {
      plain.values = {values.buffer, 0, valueBytes};
      plain.altValues = {altValues.buffer, 0, valueBytes};
    }
    const bool oneSegment = segments == 1;
    VksortSorter workaround = oneSegment ? sorter : sorter64;
    VksortMemoryRequirements plainReq;
    vksortGetMemoryRequirements(workaround, n, &plainReq);
    plain.temp.size = plainReq.tempSize;
    if (oneSegment) {
      plain.keys = {keys.buffer, 0, keyBytes};
      plain.alt = {alt.buffer, 0, keyBytes};
    } else {
      plain.keys = {keys64.buffer, 0, keyBytes * 2};
      plain.alt = {alt64.buffer, 0, keyBytes * 2};
      plain.endBit = 32 + indexBits;
    }
    SegmentKeysPush skp{deviceAddress(b.ctx.device, keys.buffer), deviceAddress(b.ctx.device, ids.buffer),
                        deviceAddress(b.ctx.device, keys64.buffer), n};
    times = timeSegmentedRuns(
        b,
        [&](VkCommandBuffer cmd, int run) {
          generate(cmd, run);
          if (!oneSegment) {
            fullBarrier(cmd);
            segmentKeys.record(cmd, skp, n);
          }
        },
        [&](VkCommandBuffer cmd) {
          if (vksortRecordSort(workaround, cmd, &plain, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
        });
    const bool plainInAlt = where == VKSORT_RESULT_IN_ALT;
    const VkBuffer outKeys =
        oneSegment ? (plainInAlt ? alt.buffer : keys.buffer) : (plainInAlt ? alt64.buffer : keys64.buffer);
    got = download(b.ctx, {{input.buffer, keyBytes + valueBytes},
                           {outKeys, keyBytes * (oneSegment ? 1 : 2)},
                           {withValues ? (plainInAlt ? altValues.buffer : values.buffer) : keys.buffer, valueBytes}});
    const std::vector<uint32_t> inKeys2(got[0].begin(), got[0].begin() + n),
        inValues2(got[0].begin() + n, got[0].end());
    check = checkSegments(offsets, inKeys2, inValues2, got[1], got[2], oneSegment ? 1 : 2);
    char bits[96];
    std::snprintf(bits, sizeof bits, ",\"workaround_key\":\"%s\",\"workaround_end_bit\":%u", oneSegment ? "u32" : "u64",
                  oneSegment ? 32 : 32 + indexBits);
    allOk &= row(b.algorithmName + (oneSegment ? ", one plain sort" : ", segment index in the high key bits"), times,
                 check, plainReq.tempSize, plainReq.tempSize + plainReq.altSize + valueBytes, bits);

    for (GpuBuffer* g : {&keys, &alt, &input, &values, &altValues, &temp, &keys64, &alt64, &offsetsBuffer, &ids})
      if (g->buffer) b.ctx.destroyBuffer(*g);
  }
  segmentKeys.destroy(b.ctx.device);
  vksortDestroySorter(sorter64);
  vksortDestroySorter(sorter);
  return allOk;
}

int main(int argc, char** argv) {
  bench::CommonOptions opt;
  opt.runs = 20;
  opt.warmup = 3;
  opt.maxSize = VKSORT_MAX_COUNT;
  VkContextOptions options;
  VksortTuning tuning{};
  bool haveTuning = false, cpu = false;
  VksortAlgorithm algorithm = VKSORT_ALGORITHM_AUTO;
  uint32_t radixBits = 0;
  uint32_t cpuMax = 1u << 22;
  uint32_t indirectMax = 0;                     // 0: direct counts
  std::vector<std::string> segmentedWorkloads;  // --segmented
  for (int i = 1; i < argc; ++i) {
    if (bench::parseCommonOption(kProg, argc, argv, i, opt)) continue;
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--device") {
      options.deviceIndex = int(bench::parseNumber(kProg, next(), "--device"));
    } else if (a == "--algorithm") {
      const std::string v = next();
      if (v == "auto")
        algorithm = VKSORT_ALGORITHM_AUTO;
      else if (v == "onesweep")
        algorithm = VKSORT_ALGORITHM_ONESWEEP;
      else if (v == "portable")
        algorithm = VKSORT_ALGORITHM_PORTABLE;
      else
        die("unknown --algorithm " + v + " (auto, onesweep, portable)");
    } else if (a == "--radix-bits") {
      radixBits = uint32_t(std::atoi(next()));
    } else if (a == "--validation") {
      options.validation = true;
    } else if (a == "--cpu") {
      cpu = true;
    } else if (a == "--indirect-max") {
      indirectMax = uint32_t(std::min<uint64_t>(bench::parseNumber(kProg, next(), "--indirect-max"), UINT32_MAX));
    } else if (a == "--cpu-max") {
      cpuMax = uint32_t(std::min<uint64_t>(bench::parseNumber(kProg, next(), "--cpu-max"), UINT32_MAX));
    } else if (a == "--tuning") {
      parseTuning(next(), &tuning);
      haveTuning = true;
    } else if (a == "--segmented") {
      std::string list = next();
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        segmentedWorkloads.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  bench::resolve(kProg, opt);
  const bench::KeyInfo& key = opt.keyInfo();
  const uint32_t keyBytes = key.bits / 8;
  const uint32_t valueBytes = bench::valueBytes(opt.value);
  const bench::Order order = opt.order(false);

  VkContext ctx;
  std::string error;
  if (!ctx.init(options, &error)) die(error);
  const bool cpuDevice = ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (opt.sizes.empty())
    opt.sizes = cpuDevice ? std::vector<uint32_t>{1u << 10, 1u << 16, 1u << 20, 1u << 22}
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
  ci.algorithm = algorithm;
  ci.portableRadixBits = radixBits;
  ci.keyType = VksortKeyType(opt.key);
  ci.valueType = VksortValueType(opt.value);
  VksortSorter sorter;
  if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) die(vksortGetLastError());
  VksortTuning shape{};
  vksortGetTuning(sorter, &shape);
  VksortAlgorithm used = VKSORT_ALGORITHM_ONESWEEP;
  uint32_t usedBits = 8;
  vksortGetAlgorithm(sorter, &used, &usedBits);
  const std::string algorithmName = used == VKSORT_ALGORITHM_PORTABLE ? "vksort portable r" + std::to_string(usedBits)
                                                                      : std::string("vksort onesweep");

  KeyGen keygen;
  keygen.init(ctx.device);
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = uint32_t(2 * (opt.warmup + opt.runs));  // two per run of one size
  VkQueryPool queries;
  vkCreateQueryPool(ctx.device, &qci, nullptr, &queries);

  const char* commit = std::getenv("VKSORT_COMMIT") ? std::getenv("VKSORT_COMMIT") : VKSORT_GIT_COMMIT;
  std::printf("device: %s (%s), commit %s\n", ctx.deviceName().c_str(), ctx.driverDescription().c_str(), commit);
  std::printf(
      "key %s, value %s, dist %s, %s, bits [%u, %u), tile %u x %u (staging rounds: %u); median of %d runs after %d "
      "warm-up\n",
      key.name, bench::kValueNames[opt.value], bench::kDistNames[opt.dist], opt.descending ? "descending" : "ascending",
      opt.beginBit, opt.endBit, shape.workgroupSize, shape.keysPerThread, shape.stagingRounds, opt.runs, opt.warmup);
  // Milliseconds between two timestamps of the compute queue.
  const uint64_t tsMask = ctx.timestampValidBits >= 64 ? ~0ull : (1ull << ctx.timestampValidBits) - 1;
  auto ticksToMs = [&](uint64_t begin, uint64_t end) {
    return double((end - begin) & tsMask) * double(ctx.properties.limits.timestampPeriod) * 1e-6;
  };
  FILE* json = opt.jsonPath ? std::fopen(opt.jsonPath, "w") : nullptr;
  if (opt.jsonPath && !json) die(std::string("cannot write ") + opt.jsonPath);

  bench::Row base;
  base.device = ctx.deviceName();
  base.driver = ctx.driverDescription();
  base.commit = commit;
  base.key = key.name;
  base.value = bench::kValueNames[opt.value];
  base.dist = bench::kDistNames[opt.dist];
  base.workload = opt.workload;
  base.descending = opt.descending;
  base.beginBit = opt.beginBit;
  base.endBit = opt.endBit;
  bench::Row cpuBase = base;
  cpuBase.device = cpuName();
  cpuBase.driver = compilerName();
  cpuBase.extra = "\"threads\":1";

  auto emit = [&](const bench::Row& r) {
    std::printf("%-16s %12u %12.1f %12.1f %10.3f  %s\n", r.algorithm.c_str(), r.n, r.medianMs * 1e3, r.minMs * 1e3,
                r.keysPerS() * 1e-9, r.verified ? "ok" : "WRONG");
    std::fflush(stdout);
    if (json) {
      std::fprintf(json, "%s\n", r.json().c_str());
      std::fflush(json);  // rows so far survive a later failure (e.g. out of memory at 2^28)
    }
  };

  std::printf("%-16s %12s %12s %12s %10s  %s\n", "algorithm", "N", "median us", "min us", "G keys/s", "check");
  if (!segmentedWorkloads.empty()) {
    if (opt.key != 0 || (opt.value != bench::kNoValue && opt.value != bench::kValue32) || opt.descending ||
        opt.beginBit != 0 || opt.endBit != 32)
      die("--segmented sorts u32 keys, alone or with u32 values, ascending, every bit");
    SegmentedBench sb{ctx, opt, ci, keygen, queries, ticksToMs, emit, base, algorithmName};
    sb.ci.segmented = VK_TRUE;
    const bool ok = runSegmented(sb, segmentedWorkloads);
    if (json) std::fclose(json);
    return ok ? 0 : 1;
  }
  bool allOk = true;
  std::map<uint32_t, double> gpuMs, cpuBestMs;
  struct CpuInput {
    uint32_t n;
    bench::HostArray keys, values;
    uint32_t valueMask;
  };
  std::vector<CpuInput> cpuInputs;  // the verified runs' inputs, for --cpu
  for (const uint32_t n : opt.sizes) {
    // With --indirect-max, n keys are live of a sort recorded for `capacity`.
    const uint32_t capacity = indirectMax ? indirectMax : n;
    if (n > capacity) die("--sizes: " + std::to_string(n) + " is above --indirect-max");
    VksortMemoryRequirements req;
    if (vksortGetMemoryRequirements(sorter, capacity, &req) != VKSORT_SUCCESS) die(vksortGetLastError());
    const VkDeviceSize keysBytes = VkDeviceSize(n) * keyBytes, valuesBytes = VkDeviceSize(n) * valueBytes;
    const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    GpuBuffer keys = ctx.createBuffer(std::max<VkDeviceSize>(req.keysSize, 8), req.keysUsage | xfer, false);
    GpuBuffer alt = ctx.createBuffer(std::max<VkDeviceSize>(req.altSize, 8), req.altUsage | xfer, false);
    GpuBuffer temp = ctx.createBuffer(req.tempSize, req.tempUsage, false);
    GpuBuffer values, altValues;
    if (opt.value != bench::kNoValue) {
      values = ctx.createBuffer(std::max<VkDeviceSize>(req.valuesSize, 8), req.valuesUsage | xfer, false);
      altValues = ctx.createBuffer(std::max<VkDeviceSize>(req.valuesSize, 8), req.valuesUsage | xfer, false);
    }
    Staging staging;
    staging.init(ctx, keysBytes + valuesBytes);

    GpuBuffer count;
    VksortSortInfo si{};
    si.count = capacity;
    if (indirectMax) {
      count = ctx.createBuffer(req.countSize, req.countUsage, true);
      *static_cast<uint32_t*>(count.mapped) = n;
      si.countBuffer = {count.buffer, 0, req.countSize};
    }
    si.keys = {keys.buffer, 0, req.keysSize};
    si.alt = {alt.buffer, 0, req.altSize};
    si.temp = {temp.buffer, 0, req.tempSize};
    if (opt.value != bench::kNoValue) {
      si.values = {values.buffer, 0, req.valuesSize};
      si.altValues = {altValues.buffer, 0, req.valuesSize};
    }
    si.descending = opt.descending ? VK_TRUE : VK_FALSE;
    si.beginBit = opt.beginBit;
    si.endBit = opt.endBit;

    KeyGen::Push push{};
    push.keysAddress = deviceAddress(ctx.device, keys.buffer);
    const bool genValues = opt.value == bench::kValue32 || opt.value == bench::kValue64;
    push.valuesAddress = genValues ? deviceAddress(ctx.device, values.buffer) : 0;

    // Sustained full load before anything is timed, until the sort time
    // settles. GPUs lower their clocks under light load: on the H200
    // nvidia-smi showed the SM clock fall to ~1000 MHz and take about 1.5 s to
    // climb back to 1980 MHz. After a fixed 300 ms of warm-up sorts, 2^22 and
    // 2^24 keys measured 1.4-1.9x their steady time; with batches of a few
    // small sorts and a host round trip each, 2^14-2^20 keys measured 1.5-2.3x
    // theirs. So: batches that keep the GPU busy for at least 20 ms (sorting
    // whatever the buffers hold), for at least 1 s, then until three batches
    // in a row agree within 2% per sort, at most 5 s.
    {
      const auto start = std::chrono::steady_clock::now();
      std::vector<double> perSortMs;
      uint32_t batch = 4;
      for (;;) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const size_t b = perSortMs.size();
        const bool settled = b >= 3 && std::max({perSortMs[b - 1], perSortMs[b - 2], perSortMs[b - 3]}) <=
                                           1.02 * std::min({perSortMs[b - 1], perSortMs[b - 2], perSortMs[b - 3]});
        if ((elapsed >= 1.0 && settled) || elapsed >= 5.0) break;
        VkCommandBuffer cmd = ctx.beginCommands();
        vkCmdResetQueryPool(cmd, queries, 0, 2);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);
        for (uint32_t k = 0; k < batch; ++k) {
          fullBarrier(cmd);
          VksortResultBuffer where;
          if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
        }
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
        if (!ctx.submitAndWait(cmd, kFenceTimeoutNs * batch, &error)) die(error + " at N = " + std::to_string(n));
        uint64_t ts[2];
        vkGetQueryPoolResults(ctx.device, queries, 0, 2, sizeof ts, ts, sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        const double ms = ticksToMs(ts[0], ts[1]);
        perSortMs.push_back(ms / batch);
        if (ms < 20.0 && batch < 8192) {
          batch *= 2;
          perSortMs.clear();  // compare batches of one size only
        }
      }
    }

    // Every warm-up and timed run of this size in one submission, each on
    // fresh keys, so that the GPU does not idle (and lower its clock) between
    // runs. The last run is verified: its input is copied out before its sort
    // (outside the timestamps), its output after.
    const int total = opt.warmup + opt.runs;
    const int verifyRun = total - 1;
    bench::GenParams checked{};  // the verified run's input
    VksortResultBuffer where = VKSORT_RESULT_IN_KEYS;
    VkCommandBuffer cmd = ctx.beginCommands();
    vkCmdResetQueryPool(cmd, queries, 0, uint32_t(2 * total));
    for (int run = 0; run < total; ++run) {
      push.params = bench::makeGenParams(bench::runSeed(uint32_t(run), n), n, opt.key, opt.value, opt.dist);
      fullBarrier(cmd);  // the previous run's sort, before new keys
      keygen.record(cmd, push);
      fullBarrier(cmd);
      if (run == verifyRun) {
        checked = push.params;
        VkBufferCopy k{0, 0, keysBytes};
        vkCmdCopyBuffer(cmd, keys.buffer, staging.buffer, 1, &k);
        if (genValues) {
          VkBufferCopy v{0, keysBytes, valuesBytes};
          vkCmdCopyBuffer(cmd, values.buffer, staging.buffer, 1, &v);
        }
        fullBarrier(cmd);
      }
      // BOTTOM_OF_PIPE: the first timestamp is written once key generation
      // (and the copy) have completed.
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, uint32_t(2 * run));
      if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, uint32_t(2 * run + 1));
    }
    // A hang still ends in a failure, after at most a minute per sort.
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs * uint64_t(total), &error)) die(error + " at N = " + std::to_string(n));
    std::vector<uint64_t> ts(size_t(2 * total));
    vkGetQueryPoolResults(ctx.device, queries, 0, uint32_t(2 * total), ts.size() * sizeof(uint64_t), ts.data(),
                          sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    std::vector<double> times;
    for (int run = opt.warmup; run < total; ++run)
      times.push_back(ticksToMs(ts[size_t(2 * run)], ts[size_t(2 * run + 1)]));

    bench::HostArray inKeys, inValues, outKeys, outValues;
    inKeys.resize(n, keyBytes);
    inValues.resize(n, genValues ? valueBytes : 0);
    std::memcpy(inKeys.data(), staging.mapped, keysBytes);
    if (genValues) std::memcpy(inValues.data(), static_cast<const char*>(staging.mapped) + keysBytes, valuesBytes);
    cmd = ctx.beginCommands();
    fullBarrier(cmd);
    VkBufferCopy k{0, 0, keysBytes};
    vkCmdCopyBuffer(cmd, where == VKSORT_RESULT_IN_KEYS ? keys.buffer : alt.buffer, staging.buffer, 1, &k);
    if (opt.value != bench::kNoValue) {
      VkBufferCopy v{0, keysBytes, valuesBytes};
      vkCmdCopyBuffer(cmd, where == VKSORT_RESULT_IN_KEYS ? values.buffer : altValues.buffer, staging.buffer, 1, &v);
    }
    toHostBarrier(cmd);
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error + " at N = " + std::to_string(n));
    outKeys.resize(n, keyBytes);
    outValues.resize(n, valueBytes);
    std::memcpy(outKeys.data(), staging.mapped, keysBytes);
    if (valueBytes) std::memcpy(outValues.data(), static_cast<const char*>(staging.mapped) + keysBytes, valuesBytes);

    // The input must be what bench_common.h describes (keygen.comp in step
    // with it): every key up to --reference-max, a sample above.
    bench::Check gen;
    if (n <= opt.referenceMax) {
      gen = bench::checkGenerated(checked, opt.value, inKeys.words(), inValues.words());
    } else {
      for (uint32_t i = 0; i < n && gen.ok; i += 4099)
        if (inKeys.words()[i] != bench::genKey(checked, i)) gen.fail("generated key " + std::to_string(i));
      if (inKeys.words()[n - 1] != bench::genKey(checked, n - 1)) gen.fail("the last generated key");
    }
    const bool reference = n <= opt.referenceMax;
    bench::Check check = bench::verifySort(order, opt.value, checked.valueMask, n, inKeys.words(), inValues.words(),
                                           outKeys.words(), outValues.words(), true, reference);
    const std::string checkWhat =
        reference ? "std::stable_sort reference + O(N) check" : "O(N) check (order, permutation, stability)";
    if (!gen.ok) check.fail("keygen.comp disagrees with bench_common.h: " + gen.what);
    if (!check.ok)
      std::fprintf(stderr, "vksort_bench: WRONG RESULT: key %s, value %s, dist %s, N = %u, seed %u: %s\n", key.name,
                   bench::kValueNames[opt.value], bench::kDistNames[opt.dist], n,
                   bench::runSeed(uint32_t(verifyRun), n), check.what.c_str());

    bench::Row row = base;
    row.algorithm = algorithmName;
    row.n = n;
    row.runs = opt.runs;
    row.warmup = opt.warmup;
    row.medianMs = bench::median(times);
    row.minMs = *std::min_element(times.begin(), times.end());
    row.tempOnlyBytes = req.tempSize;
    row.tempBytes = req.tempSize + req.altSize + (opt.value != bench::kNoValue ? req.valuesSize : 0);
    row.verified = check.ok;
    row.check = checkWhat;
    // The path this N ran (vksortGetSortPlan) and its tile shape.
    VksortSortInfo planned{};
    planned.count = capacity;
    planned.countBuffer = si.countBuffer;
    planned.beginBit = opt.beginBit;
    planned.endBit = opt.endBit;
    VksortSortPlan plan{};
    if (vksortGetSortPlan(sorter, &planned, &plan) != VKSORT_SUCCESS) die(vksortGetLastError());
    char extra[300];
    std::snprintf(
        extra, sizeof extra,
        "\"tuning\":\"workgroupSize=%u,keysPerThread=%u,stagingRounds=%u,ringSlots=%u,lookback=%u,tailGroup=%u,"
        "histogramWorkgroups=%u\",\"path\":\"%s\",\"tile\":\"%ux%u\",\"indirect_max\":%u,"
        "\"timing\":\"vulkan timestamps\"",
        shape.workgroupSize, shape.keysPerThread, shape.stagingRounds, shape.ringSlots, shape.lookback, shape.tailGroup,
        shape.histogramWorkgroups, vksortPathName(plan.path), plan.workgroupSize, plan.keysPerThread, indirectMax);
    row.extra = extra;
    if (opt.times) row.timesMs = times;
    emit(row);
    allOk = allOk && check.ok;
    if (check.ok) gpuMs[n] = row.medianMs;

    for (GpuBuffer* b : {&keys, &alt, &temp, &values, &altValues, &count})
      if (b->buffer) ctx.destroyBuffer(*b);
    staging.destroy(ctx.device);

    if (cpu && n <= cpuMax) cpuInputs.push_back({n, std::move(inKeys), std::move(inValues), checked.valueMask});
  }
  // The CPU sorts run after every GPU size, so that GPU sizes do not
  // alternate with seconds of GPU idling (the warm-up above handles the
  // clock; this only keeps the GPU rows from waiting on it).
  for (const CpuInput& in : cpuInputs) {
    const uint32_t n = in.n;
    const int cpuRuns = n <= (1u << 16) ? 15 : n <= (1u << 20) ? 7 : 3;
    for (const bool radix : {false, true}) {
      const bench::CpuResult r = bench::timeCpuSort(radix, in.keys, in.values, opt.value, in.valueMask, order, cpuRuns);
      bench::Row c = cpuBase;
      c.algorithm = radix ? "cpu radix" : "cpu std::sort";
      c.n = n;
      c.runs = r.runs;
      c.medianMs = r.medianMs;
      c.minMs = r.minMs;
      c.tempBytes = radix ? VkDeviceSize(n) * (keyBytes + valueBytes) : 0;
      c.verified = r.check.ok;
      c.check = radix ? "O(N) check (order, permutation, stability)" : "O(N) check (order, permutation)";
      emit(c);
      if (!r.check.ok) std::fprintf(stderr, "vksort_bench: %s WRONG: %s\n", c.algorithm.c_str(), r.check.what.c_str());
      allOk = allOk && r.check.ok;
      if (r.check.ok && (!cpuBestMs.count(n) || r.medianMs < cpuBestMs[n])) cpuBestMs[n] = r.medianMs;
    }
  }
  if (json) std::fclose(json);

  if (cpu) {
    // The smallest N where vksort beat the faster CPU sort, and the largest
    // where it lost, in case the sweep is not monotonic.
    uint32_t firstWin = 0, lastLoss = 0, largest = 0;
    for (const auto& [n, cpuMs] : cpuBestMs) {
      if (!gpuMs.count(n)) continue;
      largest = std::max(largest, n);
      if (gpuMs[n] < cpuMs && firstWin == 0) firstWin = n;
      if (gpuMs[n] >= cpuMs) lastLoss = n;
    }
    if (firstWin == 0)
      std::printf("GPU/CPU crossover: vksort beat the best CPU sort at no measured N (up to %u)\n", largest);
    else
      std::printf("GPU/CPU crossover: vksort beats the best CPU sort from N = %u%s\n", firstWin,
                  lastLoss > firstWin ? (" (but lost again at N = " + std::to_string(lastLoss) + ")").c_str() : "");
  }

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

// vksort inside an engine's frame: recorded between other compute work in
// one command buffer with exactly the barriers the header asks for (checked
// by synchronization validation), with debug labels and timestamps on, and
// recorded from several threads at once with one sorter.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "mix32.h"
#include "test_count_unsorted_spv.h"
#include "test_make_keys_spv.h"

namespace {

// A compute pipeline for a test shader with push constants only.
struct TestPipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  TestPipeline(const uint32_t* code, size_t bytes, uint32_t pushBytes) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    REQUIRE(vkCreatePipelineLayout(gCtx->device, &lci, nullptr, &layout) == VK_SUCCESS);
    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mci.codeSize = bytes;
    mci.pCode = code;
    VkShaderModule module;
    REQUIRE(vkCreateShaderModule(gCtx->device, &mci, nullptr, &module) == VK_SUCCESS);
    VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pci.stage.module = module;
    pci.stage.pName = "main";
    pci.layout = layout;
    REQUIRE(vkCreateComputePipelines(gCtx->device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline) == VK_SUCCESS);
    vkDestroyShaderModule(gCtx->device, module, nullptr);
  }
  ~TestPipeline() {
    vkDestroyPipeline(gCtx->device, pipeline, nullptr);
    vkDestroyPipelineLayout(gCtx->device, layout, nullptr);
  }
  TestPipeline(const TestPipeline&) = delete;
  TestPipeline& operator=(const TestPipeline&) = delete;
};

VkDeviceAddress addressOf(const GuardedRange& r) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = r.buf.buffer;
  return vkGetBufferDeviceAddress(gCtx->device, &info) + kGuard;
}

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, srcAccess, dstAccess};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace

TEST_CASE("a sort between other compute work, with the header's barriers, labels and timestamps") {
  TestPipeline makeKeys(test_make_keys_spv, sizeof test_make_keys_spv, 16);
  TestPipeline countUnsorted(test_count_unsorted_spv, sizeof test_count_unsorted_spv, 24);
  VksortCreateInfo ci = baseCreateInfo();
  ci.debugLabels = VK_TRUE;  // the harness enables VK_EXT_debug_utils with validation
  VksortSorter sorter;
  REQUIRE_MESSAGE(vksortCreateSorter(&ci, &sorter) == VKSORT_SUCCESS, vksortGetLastError());
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2;
  VkQueryPool queries;
  REQUIRE(vkCreateQueryPool(gCtx->device, &qci, nullptr, &queries) == VK_SUCCESS);

  auto rng = caseRng(21);
  VksortTuning t;
  vksortGetTuning(sorter, &t);
  const uint32_t tile = t.workgroupSize * t.keysPerThread;
  for (uint32_t n : {tile / 2, 5 * tile + 7}) {  // the single-tile path and the Onesweep path
    INFO("N = " << n << ", seed = " << gSeed);
    const uint32_t seed = uint32_t(rng());
    VksortMemoryRequirements req;
    REQUIRE(vksortGetMemoryRequirements(sorter, n, &req) == VKSORT_SUCCESS);
    GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage),
        out(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    *out.data() = 0;

    VkCommandBuffer cmd = gCtx->beginCommands();
    vkCmdResetQueryPool(cmd, queries, 0, 2);
    struct {
      VkDeviceAddress keys;
      uint32_t count, seed;
    } makePush{addressOf(kb), n, seed};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, makeKeys.pipeline);
    vkCmdPushConstants(cmd, makeKeys.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof makePush, &makePush);
    vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
    // The header: earlier writes to keys made available and visible to the
    // compute stage for shader reads and writes.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    VksortSortInfo si{};
    si.count = n;
    si.keys = kb.range();
    si.alt = ab.range();
    si.temp = tb.range();
    si.timestampQueryPool = queries;
    si.firstTimestampQuery = 0;
    VksortResultBuffer where;
    REQUIRE_MESSAGE(vksortRecordSort(sorter, cmd, &si, &where) == VKSORT_SUCCESS, vksortGetLastError());
    // The header: the result was last written by the compute stage.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    const GuardedRange& result = where == VKSORT_RESULT_IN_ALT ? ab : kb;
    struct {
      VkDeviceAddress keys, out;
      uint32_t count;
    } checkPush{addressOf(result), addressOf(out), n};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, countUnsorted.pipeline);
    vkCmdPushConstants(cmd, countUnsorted.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 24, &checkPush);
    vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
    barrierToHost(cmd);
    submitOrDie(cmd, "sort between compute work");

    CHECK_MESSAGE(*out.data() == 0, "the consumer pass saw " << *out.data() << " out-of-order pairs");
    std::vector<uint32_t> expected(n), got(result.data(), result.data() + n);
    for (uint32_t i = 0; i < n; ++i) expected[i] = mix32(i ^ seed);
    std::sort(expected.begin(), expected.end());
    CHECK_MESSAGE(got == expected, "the result is not the sorted input");
    uint64_t stamps[2] = {0, 0};
    REQUIRE(vkGetQueryPoolResults(gCtx->device, queries, 0, 2, sizeof stamps, stamps, 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS);
    if (gCtx->timestampValidBits) CHECK(stamps[1] >= stamps[0]);
    for (const GuardedRange* g : {&kb, &ab, &tb, &out}) CHECK(g->guardsIntact());
    requireNoValidationMessages();
  }
  vkDestroyQueryPool(gCtx->device, queries, nullptr);
  vksortDestroySorter(sorter);
}

TEST_CASE("one sorter, several threads recording at once") {
  SorterHolder s;
  constexpr int kThreads = 4;
  const uint32_t n = 3 * s.tile() + 11;
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &req) == VKSORT_SUCCESS);
  std::vector<std::unique_ptr<GuardedRange>> keys, alts, temps;
  std::vector<std::vector<uint32_t>> inputs(kThreads);
  auto rng = caseRng(22);
  for (int t = 0; t < kThreads; ++t) {
    keys.push_back(std::make_unique<GuardedRange>(req.keysSize, req.keysUsage));
    alts.push_back(std::make_unique<GuardedRange>(req.altSize, req.altUsage));
    temps.push_back(std::make_unique<GuardedRange>(req.tempSize, req.tempUsage));
    inputs[size_t(t)].resize(n);
    for (uint32_t& k : inputs[size_t(t)]) k = uint32_t(rng());
    std::memcpy(keys.back()->data(), inputs[size_t(t)].data(), size_t(n) * 4);
  }
  // Each thread has its own pool and command buffer (the Vulkan rule); the
  // sorter is shared. They start together and record several times each.
  std::vector<VkCommandPool> pools(kThreads);
  std::vector<VkCommandBuffer> cmds(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = gCtx->queueFamily;
    REQUIRE(vkCreateCommandPool(gCtx->device, &pci, nullptr, &pools[size_t(t)]) == VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pools[size_t(t)];
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    REQUIRE(vkAllocateCommandBuffers(gCtx->device, &ai, &cmds[size_t(t)]) == VK_SUCCESS);
  }
  std::atomic<int> ready{0};
  std::vector<int> failures(kThreads, 0);
  std::vector<VksortResultBuffer> where(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      VkCommandBuffer cmd = cmds[size_t(t)];
      VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      vkBeginCommandBuffer(cmd, &bi);
      VksortSortInfo si{};
      si.count = n;
      si.keys = keys[size_t(t)]->range();
      si.alt = alts[size_t(t)]->range();
      si.temp = temps[size_t(t)]->range();
      // Two sorts in a row: the second sorts sorted data, with the barrier
      // the header asks for between sorts that share a temp range.
      for (int rep = 0; rep < 2; ++rep) {
        if (vksortRecordSort(s.sorter, cmd, &si, &where[size_t(t)]) != VKSORT_SUCCESS) ++failures[size_t(t)];
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                             nullptr, 0, nullptr);
      }
      barrierToHost(cmd);
      vkEndCommandBuffer(cmd);
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(failures[size_t(t)] == 0);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmds[size_t(t)];
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    REQUIRE(vkCreateFence(gCtx->device, &fci, nullptr, &fence) == VK_SUCCESS);
    REQUIRE(vkQueueSubmit(gCtx->queue, 1, &submit, fence) == VK_SUCCESS);
    if (vkWaitForFences(gCtx->device, 1, &fence, VK_TRUE, kTimeoutNs) != VK_SUCCESS) fatal("thread test: timeout");
    vkDestroyFence(gCtx->device, fence, nullptr);
    CHECK(where[size_t(t)] == VKSORT_RESULT_IN_KEYS);  // u32 keys: 4 passes, back in keys
    std::vector<uint32_t> expected = inputs[size_t(t)];
    std::sort(expected.begin(), expected.end());
    CHECK(std::equal(expected.begin(), expected.end(), keys[size_t(t)]->data()));
    CHECK(keys[size_t(t)]->guardsIntact());
    CHECK(alts[size_t(t)]->guardsIntact());
    CHECK(temps[size_t(t)]->guardsIntact());
  }
  for (VkCommandPool p : pools) vkDestroyCommandPool(gCtx->device, p, nullptr);
  requireNoValidationMessages();
}

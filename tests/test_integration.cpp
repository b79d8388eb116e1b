// The header's barrier contract and threading rule: a sort recorded between
// other compute work with exactly the barriers it asks for (synchronization
// validation on), debug labels and timestamps, and one sorter recorded from
// several threads at once.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mix32.h"
#include "test_count_unsorted_spv.h"
#include "test_make_keys_spv.h"
#include "typed_check.h"

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

TEST_CASE("a sort between other compute work, with the header's barriers, labels and timestamps" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  TestPipeline makeKeys(test_make_keys_spv, sizeof test_make_keys_spv, 16);
  TestPipeline countUnsorted(test_count_unsorted_spv, sizeof test_count_unsorted_spv, 24);
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2;
  VkQueryPool queries;
  REQUIRE(vkCreateQueryPool(gCtx->device, &qci, nullptr, &queries) == VK_SUCCESS);

  auto rng = caseRng(21);
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    // Debug labels on: the harness enables VK_EXT_debug_utils with validation.
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, algorithm, 0, true);
    const uint32_t tile = s.tile();
    for (uint32_t n : {tile / 2, 5 * tile + 7}) {  // Onesweep: the one-workgroup path and the multi-tile one
      const uint32_t seed = uint32_t(rng());
      std::vector<uint64_t> keys(n);
      for (uint32_t i = 0; i < n; ++i) keys[i] = mix32(i ^ seed);  // what make_keys.comp writes
      TypedSort sort(s,
                     makeCase(kKeys[0], kValues[0], false, kAllBits,
                              std::string(algorithmName(algorithm)) + ", between compute work"),
                     keys, -1, false);
      GuardedRange out(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      *out.data() = 0;

      VkCommandBuffer cmd = gCtx->beginCommands();
      vkCmdResetQueryPool(cmd, queries, 0, 2);
      struct {
        VkDeviceAddress keys;
        uint32_t count, seed;
      } makePush{addressOf(sort.keys), n, seed};
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, makeKeys.pipeline);
      vkCmdPushConstants(cmd, makeKeys.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof makePush, &makePush);
      vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
      // The header: earlier writes to keys made available and visible to the
      // compute stage for shader reads and writes.
      memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      sort.info.timestampQueryPool = queries;
      sort.info.firstTimestampQuery = 0;
      VksortResultBuffer where;
      REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &sort.info, &where) == VKSORT_SUCCESS, vksortGetLastError());
      // The header: the result was last written by the compute stage.
      memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
      struct {
        VkDeviceAddress keys, out;
        uint32_t count;
      } checkPush{addressOf(sort.resultKeys(where)), addressOf(out), n};
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, countUnsorted.pipeline);
      vkCmdPushConstants(cmd, countUnsorted.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 24, &checkPush);
      vkCmdDispatch(cmd, (n + 63) / 64, 1, 1);
      barrierToHost(cmd);
      submitOrDie(cmd, "sort between compute work");

      INFO(algorithmName(algorithm) << ", N = " << n << ", seed = " << gSeed);
      CHECK_MESSAGE(*out.data() == 0, "the consumer pass saw " << *out.data() << " out-of-order pairs");
      sort.check(where);  // the sorted input, guards, validation
      CHECK(out.guardsIntact());
      uint64_t stamps[2] = {0, 0};
      REQUIRE(vkGetQueryPoolResults(gCtx->device, queries, 0, 2, sizeof stamps, stamps, 8,
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS);
      if (gCtx->timestampValidBits) CHECK(stamps[1] >= stamps[0]);
    }
  }
  vkDestroyQueryPool(gCtx->device, queries, nullptr);
}

TEST_CASE("two sorts on the same buffers in one command buffer, with the header's one barrier between them") {
  // The header's barrier before a sort, and nothing else, between two sorts
  // of the same ranges: synchronization validation is on, and vksort's own
  // clearing of temp (a transfer write after the first sort's writes) must
  // not be a hazard. The second sort sorts the first one's output again.
  auto rng = caseRng(31);
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm);
    TypedSort sort(s,
                   makeCase(kKeys[0], kValues[1], false, kAllBits,
                            std::string(algorithmName(algorithm)) + ", two sorts back to back"),
                   makeKeys(150001, kKeys[0], Dist::Uniform, rng));
    VkCommandBuffer cmd = gCtx->beginCommands();
    VksortResultBuffer first, second;
    REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &sort.info, &first) == VKSORT_SUCCESS, vksortGetLastError());
    REQUIRE(first == VKSORT_RESULT_IN_KEYS);  // 4 passes: the second sort reads the first one's result
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &sort.info, &second) == VKSORT_SUCCESS, vksortGetLastError());
    barrierToHost(cmd);
    submitOrDie(cmd, "two sorts back to back");
    sort.check(second);  // stable: sorting the sorted pairs again changes nothing; no validation message
  }
}

TEST_CASE("one sorter, several threads recording at once") {
  SorterHolder s;
  constexpr int kThreads = 4;
  const uint32_t n = 3 * s.tile() + 11;
  std::vector<std::unique_ptr<TypedSort>> sorts;
  auto rng = caseRng(22);
  for (int t = 0; t < kThreads; ++t)
    sorts.push_back(
        std::make_unique<TypedSort>(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "thread " + std::to_string(t)),
                                    makeKeys(n, kKeys[0], Dist::Uniform, rng)));
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
      // Two sorts in a row: the second sorts sorted data, with the barrier
      // the header asks for between sorts that share a temp range.
      for (int rep = 0; rep < 2; ++rep) {
        if (vksortRecordSort(s.sorter, cmd, &sorts[size_t(t)]->info, &where[size_t(t)]) != VKSORT_SUCCESS)
          ++failures[size_t(t)];
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
    sorts[size_t(t)]->check(where[size_t(t)]);         // the sorted input, guards, validation
  }
  for (VkCommandPool p : pools) vkDestroyCommandPool(gCtx->device, p, nullptr);
}

TEST_CASE("portable: debug labels") {
  // Every dispatch of the portable algorithm labelled, at 4-bit digits (64-bit
  // keys: 16 passes).
  auto rng = caseRng(27);
  SorterHolder s(nullptr, VKSORT_KEY_I64, VKSORT_VALUE_INDEX, VKSORT_ALGORITHM_PORTABLE, 4, true);
  checkTypedSort(s, makeCase(kKeys[4], kValues[3], true, kAllBits, "portable, labels"),
                 makeKeys(4 * s.tile() + 9, kKeys[4], Dist::Special, rng));
}

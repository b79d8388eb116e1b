// The header's calls and errors: bad input to vksortRecordSort refused with a
// message and nothing recorded, creation failures (features, enums, tuning,
// the portable digit width), the algorithm choice, and the memory
// requirements (Onesweep's constant temp, the portable algorithm's growing one).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "typed_check.h"

namespace {

uint64_t expectedPortableTemp(uint32_t count, uint32_t tile, uint32_t radixBits) {
  const uint64_t tiles = (uint64_t(count) + tile - 1) / tile;
  const uint64_t entries = tiles << radixBits;
  const uint64_t blocks = (entries + 2047) / 2048;
  return std::max<uint64_t>(16, (entries * 4 + 15) / 16 * 16 + blocks * 4);
}

}  // namespace

TEST_CASE("bad input returns an error with a message and records nothing") {
  SorterHolder s;
  const uint32_t n = 1000;
  const TypedSort sort(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "bad input"), std::vector<uint64_t>(n));
  const GuardedRange &kb = sort.keys, &ab = sort.alt, &tb = sort.temp;
  const VksortSortInfo good = sort.info;

  struct Bad {
    const char* what;
    VksortResult expect;
    VksortSortInfo info;
  };
  std::vector<Bad> cases;
  auto add = [&](const char* what, VksortResult expect, auto mutate) {
    Bad b{what, expect, good};
    mutate(b.info);
    cases.push_back(b);
  };
  add("keys too small", VKSORT_ERROR_BUFFER_TOO_SMALL, [](VksortSortInfo& i) { i.keys.size -= 4; });
  add("alt too small", VKSORT_ERROR_BUFFER_TOO_SMALL, [](VksortSortInfo& i) { i.alt.size = 0; });
  add("temp too small", VKSORT_ERROR_BUFFER_TOO_SMALL, [](VksortSortInfo& i) { i.temp.size -= 16; });
  add("misaligned keys", VKSORT_ERROR_MISALIGNED, [](VksortSortInfo& i) { i.keys.offset += 2; });
  add("misaligned temp", VKSORT_ERROR_MISALIGNED, [](VksortSortInfo& i) { i.temp.offset += 4; });
  add("count > max", VKSORT_ERROR_COUNT_TOO_LARGE, [](VksortSortInfo& i) { i.count = VKSORT_MAX_COUNT + 1; });
  add("null keys buffer", VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.keys.buffer = VK_NULL_HANDLE; });
  add("keys overlap alt", VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.alt = i.keys; });
  add("VK_WHOLE_SIZE", VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.temp.size = VK_WHOLE_SIZE; });
  add("keys range past 2^64", VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.keys.offset = ~0ull - 3; });

  VkCommandBuffer cmd = gCtx->beginCommands();
  for (const Bad& b : cases) {
    VksortResultBuffer where;
    INFO(std::string(b.what));
    CHECK(vksortRecordSort(s.sorter, cmd, &b.info, &where) == b.expect);
    CHECK(std::strlen(vksortGetLastError()) > 0);
    MESSAGE((std::string(b.what) + " -> " + vksortResultName(b.expect) + ": " + vksortGetLastError()));
  }
  VksortResultBuffer where;
  CHECK(vksortRecordSort(nullptr, cmd, &good, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortRecordSort(s.sorter, VK_NULL_HANDLE, &good, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortRecordSort(s.sorter, cmd, nullptr, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  VksortMemoryRequirements r2;
  CHECK(vksortGetMemoryRequirements(s.sorter, VKSORT_MAX_COUNT + 1, &r2) == VKSORT_ERROR_COUNT_TOO_LARGE);

  // Nothing was recorded: the (empty) command buffer runs and leaves every
  // range untouched.
  for (uint32_t i = 0; i < n; ++i) kb.data()[i] = 0x5a5a5a5au;
  std::memset(ab.data(), 0x3c, size_t(ab.size));
  std::string error;
  REQUIRE(gCtx->submitAndWait(cmd, kTimeoutNs, &error));
  CHECK(kb.data()[0] == 0x5a5a5a5au);
  CHECK(kb.data()[n - 1] == 0x5a5a5a5au);
  CHECK(static_cast<uint8_t*>(static_cast<void*>(ab.data()))[0] == 0x3c);
  CHECK(kb.guardsIntact());
  CHECK(ab.guardsIntact());
  CHECK(tb.guardsIntact());
  requireNoValidationMessages();
}

TEST_CASE("bad type, value and bit-range arguments are refused") {
  VksortCreateInfo ci = baseCreateInfo();
  VksortSorter sorter = nullptr;
  const int badEnum = 17;  // what a C caller could pass
  static_assert(sizeof(VksortKeyType) == sizeof(int) && sizeof(VksortValueType) == sizeof(int), "C enums");
  std::memcpy(&ci.keyType, &badEnum, sizeof badEnum);
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  MESSAGE(vksortGetLastError());
  ci.keyType = VKSORT_KEY_U32;
  std::memcpy(&ci.valueType, &badEnum, sizeof badEnum);
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  MESSAGE(vksortGetLastError());
  CHECK(sorter == nullptr);

  SorterHolder u64(nullptr, VKSORT_KEY_U64, VKSORT_VALUE_64);
  SorterHolder keysOnly;
  const uint32_t n = 1000;
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(u64.sorter, n, &req) == VKSORT_SUCCESS);
  CHECK(req.keysSize == 8000);
  CHECK(req.keysAlignment == 8);
  CHECK(req.valuesSize == 8000);
  GuardedRange kb(req.keysSize + 8, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage),
      vb(req.valuesSize + 8, req.valuesUsage), avb(req.valuesSize, req.valuesUsage);
  VksortSortInfo good{};
  good.count = n;
  good.keys = kb.range();
  good.alt = ab.range();
  good.temp = tb.range();
  good.values = vb.range();
  good.altValues = avb.range();

  struct Bad {
    const char* what;
    VksortSorter sorter;
    VksortResult expect;
    VksortSortInfo info;
  };
  std::vector<Bad> cases;
  auto add = [&](const char* what, VksortSorter target, VksortResult expect, auto mutate) {
    Bad b{what, target, expect, good};
    mutate(b.info);
    cases.push_back(b);
  };
  add("64-bit keys at a 4-byte offset", u64.sorter, VKSORT_ERROR_MISALIGNED, [](VksortSortInfo& i) {
    i.keys.offset += 4;
    i.keys.size -= 4;
  });
  add("values missing", u64.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSortInfo& i) { i.values.buffer = VK_NULL_HANDLE; });
  add("values too small", u64.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL, [](VksortSortInfo& i) { i.altValues.size -= 8; });
  add("values overlap keys", u64.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.values = i.keys; });
  add("values for a keys-only sorter", keysOnly.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo&) {});
  add("endBit past the key", u64.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) { i.endBit = 65; });
  add("empty bit range", u64.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSortInfo& i) {
    i.beginBit = 7;
    i.endBit = 7;
  });
  add("count buffer too small", u64.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL, [&](VksortSortInfo& i) {
    i.countBuffer = {tb.buf.buffer, 0, 2};
  });
  add("count buffer misaligned", u64.sorter, VKSORT_ERROR_MISALIGNED, [&](VksortSortInfo& i) {
    i.countBuffer = {tb.buf.buffer, 2, 4};
  });
  VkCommandBuffer cmd = gCtx->beginCommands();
  for (const Bad& b : cases) {
    VksortResultBuffer where;
    INFO(std::string(b.what));
    CHECK(vksortRecordSort(b.sorter, cmd, &b.info, &where) == b.expect);
    CHECK(std::strlen(vksortGetLastError()) > 0);
    MESSAGE((std::string(b.what) + " -> " + vksortResultName(b.expect) + ": " + vksortGetLastError()));
  }
  // Nothing was recorded: the command buffer runs and leaves every byte as it was.
  std::memset(kb.bytes(), 0x5a, size_t(kb.size));
  submitOrDie(cmd, "bad arguments");
  for (VkDeviceSize i = 0; i < kb.size; ++i) REQUIRE(static_cast<const uint8_t*>(kb.bytes())[i] == 0x5a);
  for (const GuardedRange* g : {&kb, &ab, &tb, &vb, &avb}) CHECK(g->guardsIntact());
  requireNoValidationMessages();
}

TEST_CASE("creation fails clearly without the required features, and with bad tuning") {
  VkDeviceCreateInfo bare{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};  // as if nothing was enabled
  VksortCreateInfo ci = baseCreateInfo();
  ci.pDeviceCreateInfo = &bare;
  VksortSorter sorter = nullptr;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_FEATURE_NOT_ENABLED);
  CHECK(sorter == nullptr);
  const std::string msg = vksortGetLastError();
  MESSAGE(msg);
  CHECK(msg.find("bufferDeviceAddress") != std::string::npos);
  CHECK(msg.find("computeFullSubgroups") != std::string::npos);
  // Onesweep forced on the same device: its own features are named too.
  ci.algorithm = VKSORT_ALGORITHM_ONESWEEP;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_FEATURE_NOT_ENABLED);
  const std::string onesweepMsg = vksortGetLastError();
  for (const char* feature : {"shaderInt64", "shaderBufferInt64Atomics", "vulkanMemoryModel", "bufferDeviceAddress"})
    CHECK_MESSAGE(onesweepMsg.find(feature) != std::string::npos, onesweepMsg);
  CHECK(sorter == nullptr);
  ci.algorithm = VKSORT_ALGORITHM_AUTO;

  ci.pDeviceCreateInfo = nullptr;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortCreateSorter(nullptr, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);

  ci.pDeviceCreateInfo = &gCtx->deviceCreateInfo;
  VksortTuning bad{};
  bad.ringSlots = 4;
  bad.lookback = 3;  // ring must hold at least lookback + tailGroup slots
  ci.pTuning = &bad;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  MESSAGE(vksortGetLastError());
  CHECK(sorter == nullptr);
  // lookbackLanes: a power of two up to 8 and the subgroup size.
  // bitonicMaxCount and bitonicKeysMaxCount (this sorter has no values):
  // VKSORT_TUNING_OFF or a power of two from twice the subgroup size whose
  // keys fit in shared memory. oneWorkgroupMaxCount: from the one-workgroup
  // shape's count to twice that.
  const struct {
    uint32_t VksortTuning::*field;
    const char* name;
    uint32_t value;
  } badFields[] = {
      {&VksortTuning::lookbackLanes, "lookbackLanes", 3u},
      {&VksortTuning::lookbackLanes, "lookbackLanes", 16u},
      {&VksortTuning::lookbackLanes, "lookbackLanes", 2 * deviceSubgroupSize()},
      {&VksortTuning::bitonicMaxCount, "bitonicMaxCount", 3u},
      {&VksortTuning::bitonicMaxCount, "bitonicMaxCount", deviceSubgroupSize()},
      {&VksortTuning::bitonicMaxCount, "bitonicMaxCount", 1u << 20},
      {&VksortTuning::bitonicKeysMaxCount, "bitonicKeysMaxCount", 3u},
      {&VksortTuning::bitonicKeysMaxCount, "bitonicKeysMaxCount", deviceSubgroupSize()},
      {&VksortTuning::bitonicKeysMaxCount, "bitonicKeysMaxCount", 1u << 20},
      {&VksortTuning::oneWorkgroupMaxCount, "oneWorkgroupMaxCount", 3u},
      {&VksortTuning::oneWorkgroupMaxCount, "oneWorkgroupMaxCount", 1u << 30},
  };
  for (const auto& bf : badFields) {
    VksortTuning badField{};
    badField.*bf.field = bf.value;
    ci.pTuning = &badField;
    CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(vksortGetLastError()).find(bf.name) != std::string::npos);
    CHECK(sorter == nullptr);
  }
  requireNoValidationMessages();
}

TEST_CASE("device requirements by algorithm: vksortCheckDeviceSupport and vksortEnableRequiredFeatures") {
  VksortDeviceRequirements portable{}, onesweep{}, automatic{};
  REQUIRE(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr, gCtx->apiVersion,
                                   VKSORT_ALGORITHM_PORTABLE, &portable) == VKSORT_SUCCESS);
  CHECK(portable.algorithm == VKSORT_ALGORITHM_PORTABLE);
  CHECK(portable.apiVersion == VK_API_VERSION_1_2);
  CHECK((portable.bufferDeviceAddress && portable.subgroupSizeControl && portable.computeFullSubgroups) == VK_TRUE);
  CHECK((portable.shaderInt64 || portable.shaderBufferInt64Atomics || portable.vulkanMemoryModel ||
         portable.vulkanMemoryModelDeviceScope) == VK_FALSE);
  // Below Vulkan 1.3 the subgroup size control comes from its extension.
  CHECK(portable.extensionCount == (gCtx->apiVersion >= VK_API_VERSION_1_3 ? 0u : 1u));
  // lavapipe has every feature: Onesweep can be asked for, and AUTO takes it
  // there (its threads give workgroups forward progress).
  REQUIRE(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr, gCtx->apiVersion,
                                   VKSORT_ALGORITHM_ONESWEEP, &onesweep) == VKSORT_SUCCESS);
  CHECK((onesweep.shaderInt64 && onesweep.shaderBufferInt64Atomics && onesweep.vulkanMemoryModel &&
         onesweep.vulkanMemoryModelDeviceScope) == VK_TRUE);
  REQUIRE(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr, gCtx->apiVersion,
                                   VKSORT_ALGORITHM_AUTO, nullptr) == VKSORT_SUCCESS);
  REQUIRE(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr, gCtx->apiVersion,
                                   VKSORT_ALGORITHM_AUTO, &automatic) == VKSORT_SUCCESS);
  CHECK(automatic.algorithm == VKSORT_ALGORITHM_ONESWEEP);
  // Bad arguments. (An algorithm out of range cannot be passed by value from
  // C++ without undefined behaviour; creation checks it, from the struct.)
  CHECK(vksortCheckDeviceSupport(gCtx->instance, VK_NULL_HANDLE, vkGetInstanceProcAddr, gCtx->apiVersion,
                                 VKSORT_ALGORITHM_AUTO, nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, nullptr, gCtx->apiVersion, VKSORT_ALGORITHM_AUTO,
                                 nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortEnableRequiredFeatures(nullptr, nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  // The test device was created with exactly what vksortEnableRequiredFeatures set.
  CHECK(gCtx->requirements.algorithm == (gFloorDevice ? VKSORT_ALGORITHM_PORTABLE : VKSORT_ALGORITHM_ONESWEEP));
  requireNoValidationMessages();
}

TEST_CASE("algorithm choice: AUTO by driver, vksortGetAlgorithm, bad arguments refused") {
  VksortAlgorithm algorithm;
  uint32_t bits = 0;
  {
    SorterHolder autoSorter;
    REQUIRE(vksortGetAlgorithm(autoSorter.sorter, &algorithm, &bits) == VKSORT_SUCCESS);
    // This suite runs on lavapipe, whose threads give running workgroups
    // forward progress: AUTO is Onesweep there (on a GPU, see vksort.h).
    const bool llvmpipe = gCtx->driverProperties.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
    MESSAGE("AUTO on " << gCtx->deviceName() << ": "
                       << (algorithm == VKSORT_ALGORITHM_ONESWEEP ? "Onesweep" : "portable") << ", " << bits
                       << "-bit digits");
    if (llvmpipe) CHECK(algorithm == VKSORT_ALGORITHM_ONESWEEP);
    CHECK(algorithm != VKSORT_ALGORITHM_AUTO);
    CHECK(bits == 8);
  }
  {
    // The radix width is used only by the portable algorithm.
    SorterHolder onesweep(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 2);
    REQUIRE(vksortGetAlgorithm(onesweep.sorter, &algorithm, &bits) == VKSORT_SUCCESS);
    CHECK(algorithm == VKSORT_ALGORITHM_ONESWEEP);
    CHECK(bits == 8);
    SorterHolder portable(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE);
    REQUIRE(vksortGetAlgorithm(portable.sorter, &algorithm, nullptr) == VKSORT_SUCCESS);
    CHECK(algorithm == VKSORT_ALGORITHM_PORTABLE);
    CHECK(vksortGetAlgorithm(portable.sorter, nullptr, &bits) == VKSORT_ERROR_INVALID_ARGUMENT);
    CHECK(vksortGetAlgorithm(nullptr, &algorithm, &bits) == VKSORT_ERROR_INVALID_ARGUMENT);
  }

  VksortCreateInfo ci = baseCreateInfo();
  VksortSorter sorter = nullptr;
  const int badEnum = 3;
  static_assert(sizeof(VksortAlgorithm) == sizeof(int), "C enum");
  std::memcpy(&ci.algorithm, &badEnum, sizeof badEnum);
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  MESSAGE(std::string(vksortGetLastError()));
  ci.algorithm = VKSORT_ALGORITHM_PORTABLE;
  for (uint32_t bad : {3u, 5u, 16u}) {
    ci.portableRadixBits = bad;
    CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
    MESSAGE(std::string(vksortGetLastError()));
  }
  // Tiles so small that the tile table for 2^30 keys would pass 2^31 entries.
  VksortTuning tiny{};
  tiny.workgroupSize = 8;
  tiny.keysPerThread = 1;
  ci.pTuning = &tiny;
  ci.portableRadixBits = 8;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
  MESSAGE(std::string(vksortGetLastError()));
  CHECK(sorter == nullptr);
  requireNoValidationMessages();
}

TEST_CASE("the temporary buffer has a constant size, independent of N (Onesweep)") {
  // Onesweep's promise: asked for explicitly, as AUTO may pick the portable
  // algorithm, whose temp grows with maxCount (below).
  SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  VksortMemoryRequirements a, b, c, d;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, 1024, &a) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(s.sorter, 1u << 28, &b) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(s.sorter, VKSORT_MAX_COUNT, &c) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(s.sorter, 1000, &d) == VKSORT_SUCCESS);
  CHECK(a.tempSize == b.tempSize);
  CHECK(a.tempSize == c.tempSize);
  CHECK(a.tempSize == d.tempSize);
  CHECK(a.tempSize <= 2u * 1024 * 1024);
  CHECK(b.keysSize == (VkDeviceSize(1) << 30));
  CHECK(b.altSize == b.keysSize);
  CHECK((a.tempUsage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0);
  CHECK((a.tempUsage & VK_BUFFER_USAGE_TRANSFER_DST_BIT) != 0);
  CHECK((a.tempUsage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT) != 0);  // Onesweep with an indirect count
  CHECK((a.keysUsage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != 0);
  MESSAGE("temp bytes: " << a.tempSize);
}

TEST_CASE("portable: temporary memory grows with maxCount and is checked") {
  for (uint32_t radixBits : {8u, 4u, 1u}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE, radixBits);
    const uint32_t t = s.tile();
    VksortMemoryRequirements small, large, max;
    REQUIRE(vksortGetMemoryRequirements(s.sorter, 1000, &small) == VKSORT_SUCCESS);
    REQUIRE(vksortGetMemoryRequirements(s.sorter, 1u << 24, &large) == VKSORT_SUCCESS);
    REQUIRE(vksortGetMemoryRequirements(s.sorter, VKSORT_MAX_COUNT, &max) == VKSORT_SUCCESS);
    CHECK(small.tempSize == expectedPortableTemp(1000, t, radixBits));
    CHECK(large.tempSize == expectedPortableTemp(1u << 24, t, radixBits));
    CHECK(max.tempSize == expectedPortableTemp(VKSORT_MAX_COUNT, t, radixBits));
    CHECK(small.tempSize < large.tempSize);
    CHECK(large.tempSize < max.tempSize);
    CHECK(small.tempAlignment == 16);
    CHECK((small.tempUsage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0);
    MESSAGE(radixBits << "-bit digits, tile " << t << ": temp bytes for 1000 keys " << small.tempSize << ", 2^24 "
                      << large.tempSize << ", 2^30 " << max.tempSize);

    // A temp range sized for the count is enough, a smaller one is refused.
    const TypedSort sort(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "portable temp"),
                         std::vector<uint64_t>(5 * t + 3));
    VksortSortInfo si = sort.info;
    si.temp.size -= 4;
    VkCommandBuffer cmd = gCtx->beginCommands();
    VksortResultBuffer where;
    CHECK(vksortRecordSort(s.sorter, cmd, &si, &where) == VKSORT_ERROR_BUFFER_TOO_SMALL);
    MESSAGE(std::string(vksortGetLastError()));
    submitOrDie(cmd, "portable temp too small");
  }
  requireNoValidationMessages();
}

TEST_CASE(
    "apiVersion 0 means Vulkan 1.2: no Vulkan 1.3 struct, and subgroup size control from its extension "
    "or the device's Vulkan 1.3 features") {
  // Zero is what a C caller gets by default. vksort then reads the device as
  // Vulkan 1.2, which is valid on any instance it runs on (the validation
  // layer reports any Vulkan 1.3 struct it would chain on a 1.2 instance),
  // and counts subgroup size control as enabled with its extension or with
  // a VkPhysicalDeviceVulkan13Features in the device's create info.
  bool extension = false, core13 = false;
  for (uint32_t i = 0; i < gCtx->deviceCreateInfo.enabledExtensionCount; ++i)
    extension = extension ||
                std::strcmp(gCtx->deviceCreateInfo.ppEnabledExtensionNames[i], "VK_EXT_subgroup_size_control") == 0;
  for (auto* p = static_cast<const VkBaseInStructure*>(gCtx->deviceCreateInfo.pNext); p; p = p->pNext)
    core13 = core13 || p->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  VksortDeviceRequirements req;
  REQUIRE(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr, 0,
                                   VKSORT_ALGORITHM_PORTABLE, &req) == VKSORT_SUCCESS);
  REQUIRE(req.extensionCount == 1);
  CHECK(std::string(req.extensionNames[0]) == "VK_EXT_subgroup_size_control");
  VksortCreateInfo ci = baseCreateInfo();
  ci.apiVersion = 0;
  VksortSorter sorter = nullptr;
  const VksortResult r = vksortCreateSorter(&ci, &sorter);
  if (extension || core13) {
    CHECK(r == VKSORT_SUCCESS);
  } else {
    CHECK(r == VKSORT_ERROR_FEATURE_NOT_ENABLED);
    CHECK(sorter == nullptr);
    const std::string msg = vksortGetLastError();
    CHECK(msg.find("subgroupSizeControl") != std::string::npos);
  }
  vksortDestroySorter(sorter);
  requireNoValidationMessages();
}

TEST_CASE("segmented sorts: bad input returns an error with a message and records nothing") {
  SegmentedSorter seg(VKSORT_KEY_U32, VKSORT_VALUE_32);
  SorterHolder plain(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_32);  // created without `segmented`
  const uint32_t n = 1000, segments = 10, moreSegments = 100;
  VksortMemoryRequirements req;
  REQUIRE(vksortGetSegmentedMemoryRequirements(seg.sorter, n, segments, &req) == VKSORT_SUCCESS);
  GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage),
      vb(req.valuesSize, req.valuesUsage), avb(req.valuesSize, req.valuesUsage),
      ob((moreSegments + 1) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT), cb(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i <= moreSegments; ++i) ob.data()[i] = std::min(i * 100, n);
  VksortSegmentedSortInfo good{};
  good.sort.count = n;
  good.sort.keys = kb.range();
  good.sort.alt = ab.range();
  good.sort.temp = tb.range();
  good.sort.values = vb.range();
  good.sort.altValues = avb.range();
  good.segmentCount = segments;
  good.segmentOffsets = {ob.buf.buffer, kGuard, (segments + 1) * 4};
  VksortSegmentedSortPlan plan;
  REQUIRE_MESSAGE(vksortGetSegmentedSortPlan(seg.sorter, &good, &plan) == VKSORT_SUCCESS,
                  std::string(vksortGetLastError()));

  struct Bad {
    const char* what;
    VksortSorter sorter;
    VksortResult expect;
    VksortSegmentedSortInfo info;
  };
  std::vector<Bad> cases;
  auto add = [&](const char* what, VksortSorter target, VksortResult expect, auto mutate) {
    Bad b{what, target, expect, good};
    mutate(b.info);
    cases.push_back(b);
  };
  add("a sorter created without segmented", plain.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo&) {});
  add("sort.countBuffer set", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [&](VksortSegmentedSortInfo& i) { i.sort.countBuffer = cb.range(); });
  add("temp smaller than the requirements", seg.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL,
      [&](VksortSegmentedSortInfo& i) { i.sort.temp.size = req.tempSize - req.tempAlignment; });
  add("temp sized for fewer segments than segmentCount", seg.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL,
      [&](VksortSegmentedSortInfo& i) {
        i.segmentCount = moreSegments;
        i.segmentOffsets = ob.range();
      });
  add("segmentOffsets smaller than (segmentCount + 1) * 4", seg.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets.size -= 4; });
  add("segmentOffsets misaligned", seg.sorter, VKSORT_ERROR_MISALIGNED,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets.offset += 2; });
  add("segmentOffsets null", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets.buffer = VK_NULL_HANDLE; });
  add("segmentOffsets VK_WHOLE_SIZE", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets.size = VK_WHOLE_SIZE; });
  add("segmentOffsets overlap keys", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets = i.sort.keys; });
  add("segmentOffsets overlap alt", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSegmentedSortInfo& i) {
    i.segmentOffsets = {i.sort.alt.buffer, i.sort.alt.offset + 8, 44};
  });
  add("segmentOffsets overlap temp", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSegmentedSortInfo& i) {
    i.segmentOffsets = {i.sort.temp.buffer, i.sort.temp.offset, 44};
  });
  add("segmentOffsets overlap values", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSegmentedSortInfo& i) {
    i.segmentOffsets = {i.sort.values.buffer, i.sort.values.offset + 4, 44};
  });
  add("segmentOffsets overlap altValues", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.segmentOffsets = i.sort.altValues; });
  add("segmentCountBuffer too small", seg.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL, [&](VksortSegmentedSortInfo& i) {
    i.segmentCountBuffer = {cb.buf.buffer, kGuard, 2};
  });
  add("segmentCountBuffer misaligned", seg.sorter, VKSORT_ERROR_MISALIGNED, [&](VksortSegmentedSortInfo& i) {
    i.segmentCountBuffer = {cb.buf.buffer, kGuard + 2, 4};
  });
  add("segmentCountBuffer overlaps keys", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSegmentedSortInfo& i) {
    i.segmentCountBuffer = {i.sort.keys.buffer, i.sort.keys.offset + 16, 4};
  });
  add("segmentCount > VKSORT_MAX_COUNT", seg.sorter, VKSORT_ERROR_COUNT_TOO_LARGE,
      [](VksortSegmentedSortInfo& i) { i.segmentCount = VKSORT_MAX_COUNT + 1; });
  add("segmentCount 0xFFFFFFFF", seg.sorter, VKSORT_ERROR_COUNT_TOO_LARGE,
      [](VksortSegmentedSortInfo& i) { i.segmentCount = 0xffffffffu; });
  add("count > VKSORT_MAX_COUNT", seg.sorter, VKSORT_ERROR_COUNT_TOO_LARGE,
      [](VksortSegmentedSortInfo& i) { i.sort.count = VKSORT_MAX_COUNT + 1; });
  add("keys too small", seg.sorter, VKSORT_ERROR_BUFFER_TOO_SMALL,
      [](VksortSegmentedSortInfo& i) { i.sort.keys.size -= 4; });
  add("values missing", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.sort.values.buffer = VK_NULL_HANDLE; });
  add("empty bit range", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT, [](VksortSegmentedSortInfo& i) {
    i.sort.beginBit = 9;
    i.sort.endBit = 9;
  });
  add("endBit past the key", seg.sorter, VKSORT_ERROR_INVALID_ARGUMENT,
      [](VksortSegmentedSortInfo& i) { i.sort.endBit = 33; });

  VkCommandBuffer cmd = gCtx->beginCommands();
  for (const Bad& b : cases) {
    INFO(std::string(b.what));
    VksortResultBuffer where;
    CHECK(vksortRecordSegmentedSort(b.sorter, cmd, &b.info, &where) == b.expect);
    CHECK(std::strlen(vksortGetLastError()) > 0);
    MESSAGE((std::string(b.what) + " -> " + vksortResultName(b.expect) + ": " + vksortGetLastError()));
  }
  // Null pointers, in every segmented call.
  VksortResultBuffer where;
  CHECK(vksortRecordSegmentedSort(nullptr, cmd, &good, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortRecordSegmentedSort(seg.sorter, VK_NULL_HANDLE, &good, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortRecordSegmentedSort(seg.sorter, cmd, nullptr, &where) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortRecordSegmentedSort(seg.sorter, cmd, &good, nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortGetSegmentedSortPlan(nullptr, &good, &plan) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortGetSegmentedSortPlan(seg.sorter, nullptr, &plan) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortGetSegmentedSortPlan(seg.sorter, &good, nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortGetSegmentedSortPlan(plain.sorter, &good, &plan) == VKSORT_ERROR_INVALID_ARGUMENT);
  VksortMemoryRequirements r2;
  CHECK(vksortGetSegmentedMemoryRequirements(nullptr, n, segments, &r2) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(vksortGetSegmentedMemoryRequirements(seg.sorter, n, segments, nullptr) == VKSORT_ERROR_INVALID_ARGUMENT);
  // Memory requirements: the sorter needs `segmented`, and both counts are bounded.
  CHECK(vksortGetSegmentedMemoryRequirements(plain.sorter, n, segments, &r2) == VKSORT_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(vksortGetLastError()).find("segmented") != std::string::npos);
  CHECK(vksortGetSegmentedMemoryRequirements(seg.sorter, n, VKSORT_MAX_COUNT + 1, &r2) == VKSORT_ERROR_COUNT_TOO_LARGE);
  CHECK(vksortGetSegmentedMemoryRequirements(seg.sorter, VKSORT_MAX_COUNT + 1, segments, &r2) ==
        VKSORT_ERROR_COUNT_TOO_LARGE);

  // Nothing was recorded: the command buffer runs and leaves every byte as it was.
  std::memset(kb.bytes(), 0x5a, size_t(kb.size));
  std::memset(tb.bytes(), 0x3c, size_t(tb.size));
  submitOrDie(cmd, "bad segmented arguments");
  for (VkDeviceSize i = 0; i < kb.size; ++i) REQUIRE(static_cast<const uint8_t*>(kb.bytes())[i] == 0x5a);
  for (VkDeviceSize i = 0; i < tb.size; ++i) REQUIRE(static_cast<const uint8_t*>(tb.bytes())[i] == 0x3c);
  for (const GuardedRange* g : {&kb, &ab, &tb, &vb, &avb, &ob, &cb}) CHECK(g->guardsIntact());
  requireNoValidationMessages();
}

TEST_CASE("segmented sorts: memory requirements, 24 bytes a segment, histograms of the large ones (Onesweep)") {
  // temp as vksort.h lists it: 24 bytes per segment, rounded up to 16; with Onesweep a
  // histogram of every pass for each large segment there may be, min(maxSegments, T) of them (T: the
  // most tiles, VksortSegmentedSortPlan::maxTiles), 4 KiB for 32-bit keys and 8 KiB for 64-bit ones.
  const uint32_t n = 100000;
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
    for (const KeyInfo* key : {&kKeys[0], &kKeys[3]}) {
      INFO(std::string(algorithmName(algorithm)) << ", " << std::string(key->name));
      SegmentedSorter s(key->type, VKSORT_VALUE_INDEX, algorithm);
      VksortSegmentedSortInfo info{};
      info.sort.count = n;
      info.segmentCount = 1024;
      VksortSegmentedSortPlan p;
      REQUIRE(vksortGetSegmentedSortPlan(s.sorter, &info, &p) == VKSORT_SUCCESS);
      const uint32_t t = p.maxTiles;
      CHECK(t == (n + p.tileKeys - 1) / p.tileKeys + n / (p.mediumMaxCount + 1));
      CHECK(p.passes == key->bits / 8);
      CHECK(p.resultBuffer == VKSORT_RESULT_IN_KEYS);
      REQUIRE(t > 4);
      VksortMemoryRequirements plainReq, r[5];
      const uint32_t segments[5] = {1, 2, t - 1, t, t + 1};
      REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &plainReq) == VKSORT_SUCCESS);
      for (int i = 0; i < 5; ++i)
        REQUIRE(vksortGetSegmentedMemoryRequirements(s.sorter, n, segments[i], &r[i]) == VKSORT_SUCCESS);
      // keys, alt and values as for a plain sort.
      CHECK(r[0].keysSize == plainReq.keysSize);
      CHECK(r[0].altSize == plainReq.altSize);
      CHECK(r[0].valuesSize == plainReq.valuesSize);
      CHECK(r[0].keysAlignment == plainReq.keysAlignment);
      // A histogram: 256 u32 per pass (4 or 8 KiB), and a done counter padded to 16 bytes.
      const VkDeviceSize histogram = algorithm == VKSORT_ALGORITHM_ONESWEEP ? key->bits / 8 * 256 * 4 + 16 : 0;
      // The lists of s segments: 24 bytes each, rounded up to 16.
      auto lists = [](uint32_t segmentCount) { return VkDeviceSize(3 * segmentCount + 1) / 2 * 16; };
      CHECK(r[1].tempSize - r[0].tempSize == lists(2) - lists(1) + histogram);
      CHECK(r[3].tempSize - r[2].tempSize == lists(t) - lists(t - 1) + histogram);
      CHECK(r[4].tempSize - r[3].tempSize == lists(t + 1) - lists(t));  // no more large segments than tiles
      CHECK(r[0].countSize == 4);
      CHECK((r[0].tempUsage & VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT) != 0);
      CHECK((r[0].tempUsage & VK_BUFFER_USAGE_TRANSFER_DST_BIT) != 0);
      CHECK((r[0].tempUsage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0);
      CHECK(r[0].tempSize % r[0].tempAlignment == 0);
      MESSAGE(std::string(algorithmName(algorithm))
              << ", " << std::string(key->name) << ": temp for " << n << " keys in " << t
              << " segments: " << r[3].tempSize << " bytes (a plain sort's: " << plainReq.tempSize << ")");
    }
  requireNoValidationMessages();
}

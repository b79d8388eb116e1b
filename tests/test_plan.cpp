// The plan of a sort, without a GPU: which path, how many passes, which tile
// shape and which result buffer each count, key type, value type and bit
// range gets (vksort_advanced.h, VksortPath), on devices described by their
// properties alone. Also the creation checks that need no device: absurd
// tunings and out-of-range enums are refused, never crash or hang.
//
// This links the library's internals (src/internal.h): planSort and
// chooseConfig make no Vulkan calls.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"

namespace {

// A device as vksort reads it. NVIDIA: 32-wide subgroups, 48 KiB of shared
// memory, 1024 invocations. lavapipe: 8-wide subgroups, 32 KiB. Adreno-like:
// an unknown driver (no forward progress) with 64-wide subgroups, 32 KiB.
enum class Device { Nvidia, Lavapipe, Adreno };

vksort::DeviceInfo deviceInfo(Device d) {
  vksort::DeviceInfo info;
  VkPhysicalDeviceLimits& lim = info.props.properties.limits;
  lim.maxComputeWorkGroupInvocations = 1024;
  lim.maxComputeWorkGroupSize[0] = 1024;
  lim.maxComputeWorkGroupCount[0] = 65535;
  lim.maxComputeSharedMemorySize = d == Device::Nvidia ? 48 * 1024 : 32 * 1024;
  const uint32_t sg = d == Device::Nvidia ? 32 : d == Device::Lavapipe ? 8 : 64;
  info.props11.subgroupSize = sg;
  info.props12.driverID = d == Device::Nvidia     ? VK_DRIVER_ID_NVIDIA_PROPRIETARY
                          : d == Device::Lavapipe ? VK_DRIVER_ID_MESA_LLVMPIPE
                                                  : VK_DRIVER_ID_QUALCOMM_PROPRIETARY;
  info.props13.minSubgroupSize = sg;
  info.props13.maxSubgroupSize = d == Device::Adreno ? 128 : sg;
  info.props13.maxComputeWorkgroupSubgroups = 1024 / sg;
  info.props13.requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
  info.props11.subgroupSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
  info.props11.subgroupSupportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                             VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  info.apiVersion = VK_API_VERSION_1_3;
  for (bool& has : info.supported.has) has = true;
  return info;
}

struct Sorter {
  vksort::Config config{};
  VksortResult created = VKSORT_ERROR_INVALID_ARGUMENT;
  Sorter(Device d, VksortKeyType key, VksortValueType value, const VksortTuning* tuning = nullptr,
         VksortAlgorithm algorithm = VKSORT_ALGORITHM_AUTO, uint32_t radixBits = 0, bool segmented = false) {
    VksortCreateInfo ci{};
    ci.segmented = segmented;
    ci.keyType = key;
    ci.valueType = value;
    ci.pTuning = tuning;
    ci.algorithm = algorithm;
    ci.portableRadixBits = radixBits;
    const vksort::DeviceInfo info = deviceInfo(d);
    created =
        vksort::chooseConfig(info, ci, vksort::chooseAlgorithm(info, algorithm, info.supported), nullptr, &config);
  }
};

struct Expect {
  VksortPath path;
  uint32_t passes;
  uint32_t workgroupSize, keysPerThread, tiles;
};

VksortSortPlan plan(const Sorter& s, uint32_t count, uint32_t beginBit = 0, uint32_t endBit = 0,
                    bool descending = false) {
  VksortSortInfo info{};
  info.count = count;
  info.beginBit = beginBit;
  info.endBit = endBit;
  info.descending = descending;
  vksort::Plan p;
  REQUIRE_MESSAGE(vksort::planSort(s.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  return p.summary;
}

void check(const Sorter& s, uint32_t count, const Expect& e, uint32_t beginBit = 0, uint32_t endBit = 0) {
  REQUIRE(s.created == VKSORT_SUCCESS);
  for (const bool descending : {false, true}) {
    const VksortSortPlan p = plan(s, count, beginBit, endBit, descending);
    INFO("count " << count << ", bits [" << beginBit << ", " << endBit << "), descending " << descending << ": "
                  << std::string(vksortPathName(p.path)));
    CHECK(std::string(vksortPathName(p.path)) == vksortPathName(e.path));
    CHECK(p.passes == e.passes);
    CHECK(p.workgroupSize == e.workgroupSize);
    CHECK(p.keysPerThread == e.keysPerThread);
    CHECK(p.tileKeys == e.workgroupSize * e.keysPerThread);
    CHECK(p.tiles == e.tiles);
    CHECK(p.resultBuffer == (e.passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS));
  }
}

uint32_t ceilDiv(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) + b - 1) / b); }

}  // namespace

TEST_SUITE("plan") {
  TEST_CASE("plan: NVIDIA, u32 keys only, every path at its boundaries") {
    const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
    check(s, 0, {VKSORT_PATH_NONE, 4, 0, 0, 0});
    check(s, 1, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 2, 1});
    check(s, 1024, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 2, 1});
    check(s, 1025, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 4, 1});
    check(s, 2049, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 8, 1});
    check(s, 4096, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 8, 1});
    // The wide kernel up to 1.25 times the one-workgroup keys.
    check(s, 4097, {VKSORT_PATH_WIDE_ONE_WORKGROUP, 4, 1024, 8, 1});
    check(s, 5120, {VKSORT_PATH_WIDE_ONE_WORKGROUP, 4, 1024, 8, 1});
    // Mid-size: half the keys per invocation up to half of midsizeMaxCount,
    // at most 2^18.
    check(s, 5121, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 3});
    check(s, 8193, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 5});
    // midsizeMaxCount is 3 x 2^18 for 32-bit items.
    check(s, 3u << 16, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 96});
    check(s, 1u << 18, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 128});
    check(s, (1u << 18) + 1, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 8, 65});
    check(s, 3u << 18, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 8, 192});
    // 512 x 16 tiles staged in two rounds, two workgroups per multiprocessor.
    check(s, (3u << 18) + 1, {VKSORT_PATH_ONESWEEP, 4, 512, 16, ceilDiv((3u << 18) + 1, 8192)});
    check(s, VKSORT_MAX_COUNT, {VKSORT_PATH_ONESWEEP, 4, 512, 16, ceilDiv(VKSORT_MAX_COUNT, 8192)});
    CHECK(s.config.t.stagingRounds == 2);
  }

  TEST_CASE("plan: a bit range takes the bitonic network with the index, and sets the passes") {
    const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
    check(s, 1000, {VKSORT_PATH_BITONIC, 4, 512, 2, 1}, 0, 30);        // 30-bit Morton codes
    check(s, 2048, {VKSORT_PATH_BITONIC, 3, 512, 4, 1}, 8, 32);        // 24 bits: 3 passes, ends in alt
    check(s, 2049, {VKSORT_PATH_ONE_WORKGROUP, 2, 512, 8, 1}, 0, 16);  // 16-bit depth
    check(s, 1000, {VKSORT_PATH_BITONIC, 1, 512, 2, 1}, 31, 32);
    check(s, 1u << 20, {VKSORT_PATH_ONESWEEP, 3, 512, 16, ceilDiv(1u << 20, 8192)}, 0, 24);
    check(s, 1000, {VKSORT_PATH_BITONIC_KEYS, 4, 512, 2, 1}, 0, 32);  // every bit, named
  }

  TEST_CASE("plan: NVIDIA, values and 64-bit keys") {
    // 32-bit values: no keys-only network; keys and values of the wide kernel
    // do not fit in 48 KiB, so the one-workgroup path stops at 512 x 8.
    const Sorter pairs(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32);
    check(pairs, 100, {VKSORT_PATH_BITONIC, 4, 512, 2, 1});
    check(pairs, 2048, {VKSORT_PATH_BITONIC, 4, 512, 4, 1});
    check(pairs, 2049, {VKSORT_PATH_ONE_WORKGROUP, 4, 512, 8, 1});
    check(pairs, 4097, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 3});
    check(pairs, 1u << 24, {VKSORT_PATH_ONESWEEP, 4, 1024, 10, ceilDiv(1u << 24, 10240)});
    CHECK(pairs.config.t.stagingRounds == 1);
    const Sorter argsort(Device::Nvidia, VKSORT_KEY_F32, VKSORT_VALUE_INDEX);
    check(argsort, 4000, {VKSORT_PATH_ONE_WORKGROUP, 4, 512, 8, 1});
    // 64-bit keys: 8 passes, 1024 x 8 tiles.
    const Sorter u64(Device::Nvidia, VKSORT_KEY_U64, VKSORT_VALUE_NONE);
    check(u64, 4096, {VKSORT_PATH_BITONIC_KEYS, 8, 512, 8, 1});
    check(u64, 1u << 24, {VKSORT_PATH_ONESWEEP, 8, 1024, 8, ceilDiv(1u << 24, 8192)});
    check(u64, 1u << 24, {VKSORT_PATH_ONESWEEP, 5, 1024, 8, ceilDiv(1u << 24, 8192)}, 24, 64);
    // The mid-size path up to 2^19 for 64-bit keys, in half tiles up to 2^18.
    check(u64, 1u << 18, {VKSORT_PATH_MIDSIZE_ONESWEEP, 8, 512, 4, 128});
    check(u64, (1u << 18) + 1, {VKSORT_PATH_MIDSIZE_ONESWEEP, 8, 512, 8, 65});
    check(u64, (1u << 19) + 1, {VKSORT_PATH_ONESWEEP, 8, 1024, 8, ceilDiv((1u << 19) + 1, 8192)});
    const Sorter u64pairs(Device::Nvidia, VKSORT_KEY_I64, VKSORT_VALUE_64);
    check(u64pairs, 2048, {VKSORT_PATH_BITONIC, 8, 512, 4, 1});
    check(u64pairs, 1u << 22, {VKSORT_PATH_ONESWEEP, 8, 1024, 8, ceilDiv(1u << 22, 8192)});
  }

  TEST_CASE("plan: lavapipe defaults: no bitonic or mid-size path") {
    const Sorter s(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
    // The one-workgroup kernel shrinks until its per-subgroup histograms fit.
    check(s, 1, {VKSORT_PATH_ONE_WORKGROUP, 4, 128, 4, 1});
    check(s, 512, {VKSORT_PATH_ONE_WORKGROUP, 4, 128, 4, 1});
    check(s, 513, {VKSORT_PATH_ONESWEEP, 4, 128, 20, 1});
    check(s, 2561, {VKSORT_PATH_ONESWEEP, 4, 128, 20, 2});
    check(s, 1u << 20, {VKSORT_PATH_ONESWEEP, 4, 128, 20, ceilDiv(1u << 20, 2560)});
    CHECK(s.config.t.bitonicMaxCount == VKSORT_TUNING_OFF);
    CHECK(s.config.t.bitonicKeysMaxCount == VKSORT_TUNING_OFF);
    CHECK(s.config.t.midsizeMaxCount == VKSORT_TUNING_OFF);
    // A chained tile waiting on llvmpipe would hold a CPU thread that could
    // run the tiles it waits for: no chained passes by default.
    CHECK(s.config.t.chainedMaxCount == VKSORT_TUNING_OFF);
  }

  TEST_CASE("plan: a driver without forward progress gets the portable algorithm") {
    const Sorter s(Device::Adreno, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
    REQUIRE(s.config.algorithm == VKSORT_ALGORITHM_PORTABLE);
    // 64-wide subgroups: 512 invocations, 14 keys each in 32 KiB; no
    // one-workgroup radix path.
    check(s, 1, {VKSORT_PATH_PORTABLE, 4, 512, 14, 1});
    check(s, 7168, {VKSORT_PATH_PORTABLE, 4, 512, 14, 1});
    check(s, 7169, {VKSORT_PATH_PORTABLE, 4, 512, 14, 2});
    check(s, 7169, {VKSORT_PATH_PORTABLE, 3, 512, 14, 2}, 0, 24);
    const Sorter r4(Device::Adreno, VKSORT_KEY_U32, VKSORT_VALUE_NONE, nullptr, VKSORT_ALGORITHM_AUTO, 4);
    // 16 digits: smaller histograms, 15 keys each.
    check(r4, 5000, {VKSORT_PATH_PORTABLE, 8, 512, 15, 1});
    check(r4, 5000, {VKSORT_PATH_PORTABLE, 6, 512, 15, 1}, 0, 24);
    check(r4, 5000, {VKSORT_PATH_PORTABLE, 3, 512, 15, 1}, 0, 9);
    const Sorter r1(Device::Adreno, VKSORT_KEY_F64, VKSORT_VALUE_NONE, nullptr, VKSORT_ALGORITHM_AUTO, 1);
    check(r1, 5000, {VKSORT_PATH_PORTABLE, 64, 512, 7, 2});  // 64-bit keys: 7 each
    // Forced Onesweep on the same device plans Onesweep, whose look-back
    // needs more shared memory: 13 keys each.
    const Sorter forced(Device::Adreno, VKSORT_KEY_U32, VKSORT_VALUE_NONE, nullptr, VKSORT_ALGORITHM_ONESWEEP);
    check(forced, 1u << 20, {VKSORT_PATH_ONESWEEP, 4, 512, 13, ceilDiv(1u << 20, 6656)});
    // Without forward progress a chained tile's wait could hang: no chained
    // passes there, and a dispatch per pass.
    CHECK(forced.config.t.chainedMaxCount == VKSORT_TUNING_OFF);
    CHECK_FALSE(vksort::hasKernel(forced.config, vksort::kKernelOnesweepChained));
    CHECK(vksort::hasKernel(forced.config, vksort::kKernelOnesweep));
  }

  TEST_CASE("plan: the portable algorithm keeps the bitonic paths and drops the Onesweep ones") {
    const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_PORTABLE);
    CHECK(s.config.t.midsizeMaxCount == VKSORT_TUNING_OFF);
    CHECK(s.config.t.chainedMaxCount == VKSORT_TUNING_OFF);
    check(s, 2048, {VKSORT_PATH_BITONIC, 4, 512, 4, 1});
    check(s, 2049, {VKSORT_PATH_PORTABLE, 4, 1024, 10, 1});
    check(s, 1u << 19, {VKSORT_PATH_PORTABLE, 4, 1024, 10, ceilDiv(1u << 19, 10240)});
  }

  TEST_CASE("plan: tuning turns paths off and moves their boundaries") {
    VksortTuning t{};
    t.midsizeMaxCount = VKSORT_TUNING_OFF;
    t.bitonicKeysMaxCount = VKSORT_TUNING_OFF;
    t.bitonicMaxCount = 256;
    const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE, &t);
    check(s, 128, {VKSORT_PATH_BITONIC, 4, 64, 2, 1});
    check(s, 256, {VKSORT_PATH_BITONIC, 4, 128, 2, 1});
    check(s, 257, {VKSORT_PATH_ONE_WORKGROUP, 4, 512, 8, 1});
    check(s, 8193, {VKSORT_PATH_ONESWEEP, 4, 512, 16, 2});
    // A midsizeMaxCount up to the one-workgroup paths' count turns it off too.
    VksortTuning low{};
    low.midsizeMaxCount = 100;
    const Sorter off(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE, &low);
    CHECK(off.config.t.midsizeMaxCount == VKSORT_TUNING_OFF);
    // The wide kernel up to any count to twice the one-workgroup keys.
    VksortTuning wider{};
    wider.oneWorkgroupMaxCount = 6000;
    const Sorter wide(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE, &wider);
    check(wide, 6000, {VKSORT_PATH_WIDE_ONE_WORKGROUP, 4, 1024, 8, 1});
    check(wide, 6001, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 3});
    // A one-workgroup shape of the caller's drops the wide kernel.
    VksortTuning one{};
    one.oneWorkgroupSize = 256;
    one.oneWorkgroupKeysPerThread = 4;
    const Sorter narrow(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, &one);
    check(narrow, 2049, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 256, 2, 5});
    // The one-workgroup paths off: the mid-size path starts where the
    // bitonic network ends, and a sort with an indirect count records no
    // one-workgroup kernel.
    VksortTuning noOne{};
    noOne.oneWorkgroupMaxCount = VKSORT_TUNING_OFF;
    const Sorter without(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, &noOne);
    REQUIRE(without.created == VKSORT_SUCCESS);
    CHECK(without.config.t.oneWorkgroupMaxCount == VKSORT_TUNING_OFF);
    CHECK(!vksort::hasKernel(without.config, vksort::kKernelWideOneWorkgroup));
    check(without, 2048, {VKSORT_PATH_BITONIC, 4, 512, 4, 1});
    check(without, 2049, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 4, 2});
    check(without, 3u << 18, {VKSORT_PATH_MIDSIZE_ONESWEEP, 4, 512, 8, 192});
    VksortSortInfo info{};
    info.count = 2049;
    info.countBuffer.buffer = reinterpret_cast<VkBuffer>(uintptr_t(0x1000));
    vksort::Plan p;
    REQUIRE(vksort::planSort(without.config, info, &p) == VKSORT_SUCCESS);
    for (uint32_t i = 0; i < p.commandCount; ++i)
      if (p.commands[i].type == vksort::kCmdDispatch) {
        CHECK(p.commands[i].kernel != vksort::kKernelOneWorkgroup);
        CHECK(p.commands[i].kernel != vksort::kKernelWideOneWorkgroup);
      }
  }

  TEST_CASE("plan: bad counts and bit ranges are refused") {
    const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
    vksort::Plan p;
    VksortSortInfo info{};
    info.count = VKSORT_MAX_COUNT + 1;
    CHECK(vksort::planSort(s.config, info, &p) == VKSORT_ERROR_COUNT_TOO_LARGE);
    info.count = 10;
    info.beginBit = 8;
    info.endBit = 8;
    CHECK(vksort::planSort(s.config, info, &p) == VKSORT_ERROR_INVALID_ARGUMENT);
    info.endBit = 33;
    CHECK(vksort::planSort(s.config, info, &p) == VKSORT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(vksort::lastError()).find("bit range") != std::string::npos);
  }

  TEST_CASE("plan: absurd tunings and enums are refused at creation, without overflow") {
    struct Bad {
      VksortTuning t;
      VksortAlgorithm algorithm;
      const char* what;
    };
    auto tuning = [](uint32_t wg, uint32_t kpt) {
      VksortTuning t{};
      t.workgroupSize = wg;
      t.keysPerThread = kpt;
      return t;
    };
    VksortTuning oneKpt{};
    oneKpt.oneWorkgroupKeysPerThread = 0xFFFFFFFFu;
    VksortTuning ring{};
    ring.ringSlots = 0xFFFFFFFFu;
    ring.lookback = 0xFFFFFFFFu;
    VksortTuning bitonic{};
    bitonic.bitonicMaxCount = 1u << 31;
    VksortTuning rounds{};
    rounds.stagingRounds = 0xFFFFFFFFu;
    VksortTuning moreRounds = tuning(0, 4);
    moreRounds.stagingRounds = 5;
    const Bad bad[] = {
        {tuning(8, 1u << 29), VKSORT_ALGORITHM_PORTABLE, "8 x 2^29, portable"},
        {tuning(8, 1u << 29), VKSORT_ALGORITHM_ONESWEEP, "8 x 2^29, onesweep"},
        {tuning(0, 0xFFFFFFFFu), VKSORT_ALGORITHM_AUTO, "keysPerThread 2^32 - 1"},
        {tuning(0xFFFFFFE0u, 1), VKSORT_ALGORITHM_AUTO, "workgroupSize 2^32 - 32"},
        {oneKpt, VKSORT_ALGORITHM_AUTO, "oneWorkgroupKeysPerThread 2^32 - 1"},
        {ring, VKSORT_ALGORITHM_AUTO, "ring and lookback 2^32 - 1"},
        {bitonic, VKSORT_ALGORITHM_AUTO, "bitonicMaxCount 2^31"},
        {rounds, VKSORT_ALGORITHM_AUTO, "stagingRounds 2^32 - 1"},
        {moreRounds, VKSORT_ALGORITHM_PORTABLE, "stagingRounds above keysPerThread"},
    };
    for (const Bad& b : bad) {
      INFO(b.what);
      for (Device d : {Device::Nvidia, Device::Lavapipe, Device::Adreno}) {
        const Sorter s(d, VKSORT_KEY_U64, VKSORT_VALUE_64, &b.t, b.algorithm);
        CHECK(s.created == VKSORT_ERROR_INVALID_ARGUMENT);
        CHECK(std::string(vksort::lastError()).find("tuning") != std::string::npos);
      }
    }
    // Enums out of range, read as the integers a C caller may store.
    VksortCreateInfo ci{};
    int32_t seven = 7;
    vksort::Config c;
    std::memcpy(&ci.keyType, &seven, sizeof seven);
    CHECK(vksort::chooseConfig(deviceInfo(Device::Nvidia), ci, VKSORT_ALGORITHM_ONESWEEP, nullptr, &c) ==
          VKSORT_ERROR_INVALID_ARGUMENT);
    ci.keyType = VKSORT_KEY_U32;
    std::memcpy(&ci.valueType, &seven, sizeof seven);
    CHECK(vksort::chooseConfig(deviceInfo(Device::Nvidia), ci, VKSORT_ALGORITHM_ONESWEEP, nullptr, &c) ==
          VKSORT_ERROR_INVALID_ARGUMENT);
  }

  TEST_CASE("plan: requirements by algorithm: AUTO takes Onesweep only where it can run") {
    using vksort::Feature;
    vksort::DeviceInfo nvidia = deviceInfo(Device::Nvidia);
    vksort::FeatureSet all{};
    for (bool& has : all.has) has = true;
    CHECK(vksort::chooseAlgorithm(nvidia, VKSORT_ALGORITHM_AUTO, all) == VKSORT_ALGORITHM_ONESWEEP);
    CHECK(vksort::checkSupport(nvidia, VKSORT_ALGORITHM_ONESWEEP) == VKSORT_SUCCESS);
    // Each of Onesweep's own features, missing from the device or not
    // enabled: AUTO takes the portable algorithm, which needs none of them;
    // Onesweep forced is refused, naming the feature.
    const char* const names[] = {nullptr,
                                 nullptr,
                                 nullptr,
                                 "shaderInt64",
                                 "shaderBufferInt64Atomics",
                                 "vulkanMemoryModel",
                                 "vulkanMemoryModelDeviceScope"};
    for (Feature f : {vksort::kShaderInt64, vksort::kShaderBufferInt64Atomics, vksort::kVulkanMemoryModel,
                      vksort::kVulkanMemoryModelDeviceScope}) {
      vksort::FeatureSet enabled = all;
      enabled.has[f] = false;
      CHECK(vksort::chooseAlgorithm(nvidia, VKSORT_ALGORITHM_AUTO, enabled) == VKSORT_ALGORITHM_PORTABLE);
      CHECK(vksort::checkEnabled(enabled, VKSORT_ALGORITHM_PORTABLE) == VKSORT_SUCCESS);
      CHECK(vksort::checkEnabled(enabled, VKSORT_ALGORITHM_ONESWEEP) == VKSORT_ERROR_FEATURE_NOT_ENABLED);
      vksort::DeviceInfo lacking = nvidia;
      lacking.supported.has[f] = false;
      CHECK(vksort::chooseAlgorithm(lacking, VKSORT_ALGORITHM_AUTO, lacking.supported) == VKSORT_ALGORITHM_PORTABLE);
      CHECK(vksort::checkSupport(lacking, VKSORT_ALGORITHM_PORTABLE) == VKSORT_SUCCESS);
      CHECK(vksort::checkSupport(lacking, VKSORT_ALGORITHM_ONESWEEP) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
      const std::string message = vksort::lastError();
      CHECK(message.find(names[f]) != std::string::npos);
    }
    // What both algorithms need.
    for (Feature f : {vksort::kBufferDeviceAddress, vksort::kSubgroupSizeControl, vksort::kComputeFullSubgroups}) {
      vksort::DeviceInfo lacking = nvidia;
      lacking.supported.has[f] = false;
      CHECK(vksort::checkSupport(lacking, VKSORT_ALGORITHM_PORTABLE) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
    }
    // Vulkan 1.2 with the subgroup size control extension is the floor.
    vksort::DeviceInfo v12 = nvidia;
    v12.apiVersion = VK_API_VERSION_1_2;
    CHECK(vksort::checkSupport(v12, VKSORT_ALGORITHM_PORTABLE) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
    CHECK(std::string(vksort::lastError()).find("VK_EXT_subgroup_size_control") != std::string::npos);
    v12.subgroupSizeControlExtension = true;
    CHECK(vksort::checkSupport(v12, VKSORT_ALGORITHM_PORTABLE) == VKSORT_SUCCESS);
    VksortDeviceRequirements req;
    vksort::fillRequirements(v12, VKSORT_ALGORITHM_PORTABLE, &req);
    CHECK(req.extensionCount == 1);
    CHECK(std::string(req.extensionNames[0]) == "VK_EXT_subgroup_size_control");
    CHECK((req.shaderInt64 || req.shaderBufferInt64Atomics || req.vulkanMemoryModel) == false);
    CHECK((req.bufferDeviceAddress && req.subgroupSizeControl && req.computeFullSubgroups) == true);
    vksort::DeviceInfo v11 = nvidia;
    v11.apiVersion = VK_API_VERSION_1_1;
    CHECK(vksort::checkSupport(v11, VKSORT_ALGORITHM_PORTABLE) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
    // An unknown driver gets the portable algorithm whatever it has.
    CHECK(vksort::chooseAlgorithm(deviceInfo(Device::Adreno), VKSORT_ALGORITHM_AUTO, all) == VKSORT_ALGORITHM_PORTABLE);
  }

  TEST_CASE("plan: vksortEnableRequiredFeatures sets the bits in whichever structs the chain has") {
    VksortDeviceRequirements req{};
    req.bufferDeviceAddress = req.subgroupSizeControl = req.computeFullSubgroups = VK_TRUE;
    // Vulkan 1.2 style: the per-extension struct for subgroup size control.
    VkPhysicalDeviceSubgroupSizeControlFeatures sizeControl{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &sizeControl};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    REQUIRE(vksortEnableRequiredFeatures(&req, &f2) == VKSORT_SUCCESS);
    CHECK(f12.bufferDeviceAddress == VK_TRUE);
    CHECK(sizeControl.subgroupSizeControl == VK_TRUE);
    CHECK(sizeControl.computeFullSubgroups == VK_TRUE);
    CHECK(f2.features.shaderInt64 == VK_FALSE);
    CHECK(f12.shaderBufferInt64Atomics == VK_FALSE);
    // Onesweep's features too; a chain that cannot carry one changes nothing.
    req.shaderInt64 = req.shaderBufferInt64Atomics = req.vulkanMemoryModel = req.vulkanMemoryModelDeviceScope = VK_TRUE;
    VkPhysicalDeviceFeatures2 alone{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    CHECK(vksortEnableRequiredFeatures(&req, &alone) == VKSORT_ERROR_INVALID_ARGUMENT);
    CHECK(alone.features.shaderInt64 == VK_FALSE);
    CHECK(std::string(vksortGetLastError()).find("bufferDeviceAddress") != std::string::npos);
    REQUIRE(vksortEnableRequiredFeatures(&req, &f2) == VKSORT_SUCCESS);
    CHECK(f2.features.shaderInt64 == VK_TRUE);
    CHECK(f12.shaderBufferInt64Atomics == VK_TRUE);
    CHECK(f12.vulkanMemoryModel == VK_TRUE);
    CHECK(f12.vulkanMemoryModelDeviceScope == VK_TRUE);
  }
}

TEST_CASE("plan: defaults fit the smallest limits Vulkan allows, at every subgroup size") {
  // 16 KiB of shared memory, 128 invocations per workgroup, subgroups of 4
  // to 128: every key type, value type and digit width gets a shape.
  for (uint32_t sg = 4; sg <= 128; sg *= 2)
    for (uint32_t key = VKSORT_KEY_U32; key <= VKSORT_KEY_F64; ++key)
      for (uint32_t value = VKSORT_VALUE_NONE; value <= VKSORT_VALUE_INDEX; ++value)
        for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_PORTABLE, VKSORT_ALGORITHM_ONESWEEP})
          for (uint32_t bits : {1u, 2u, 4u, 8u}) {
            vksort::DeviceInfo info = deviceInfo(Device::Adreno);
            info.props.properties.limits.maxComputeSharedMemorySize = 16 * 1024;
            info.props.properties.limits.maxComputeWorkGroupInvocations = 128;
            info.props11.subgroupSize = info.props13.minSubgroupSize = info.props13.maxSubgroupSize = sg;
            info.props13.maxComputeWorkgroupSubgroups = 128 / sg;
            VksortCreateInfo ci{};
            ci.keyType = VksortKeyType(key);
            ci.valueType = VksortValueType(value);
            ci.portableRadixBits = bits;
            vksort::Config c;
            INFO("subgroup " << sg << ", key " << key << ", value " << value << ", algorithm " << int(algorithm) << ", "
                             << bits << "-bit digits");
            REQUIRE_MESSAGE(vksort::chooseConfig(info, ci, algorithm, nullptr, &c) == VKSORT_SUCCESS,
                            vksort::lastError());
            CHECK(c.t.workgroupSize <= 128);
            CHECK(c.t.oneWorkgroupSize <= 128);
            CHECK(c.histogramWorkgroupSize <= 128);
            CHECK(c.scanWorkgroupSize <= 128);
          }
}

TEST_CASE("plan: without a pinned subgroup size, workgroups are multiples of the largest subgroup") {
  // A device that runs subgroups of 64 to 128 and cannot pin the size for
  // compute: full subgroups need workgroups in multiples of 128.
  vksort::DeviceInfo info = deviceInfo(Device::Adreno);
  info.props13.requiredSubgroupSizeStages = 0;
  VksortCreateInfo ci{};
  vksort::Config c;
  REQUIRE(vksort::chooseConfig(info, ci, VKSORT_ALGORITHM_PORTABLE, nullptr, &c) == VKSORT_SUCCESS);
  CHECK(!c.pinSubgroupSize);
  CHECK(c.workgroupGranule == 128);
  CHECK(c.t.workgroupSize % 128 == 0);
  VksortTuning t{};
  t.workgroupSize = 64;
  ci.pTuning = &t;
  CHECK(vksort::chooseConfig(info, ci, VKSORT_ALGORITHM_PORTABLE, nullptr, &c) == VKSORT_ERROR_INVALID_ARGUMENT);
  // Pinned, 64 is the granule.
  info.props13.requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
  CHECK(vksort::chooseConfig(info, ci, VKSORT_ALGORITHM_PORTABLE, nullptr, &c) == VKSORT_SUCCESS);
  CHECK(c.t.workgroupSize == 64);
}

// ---------------------------------------------------------------------------
// The command list: every path's commands in order, and the barriers
// between them, checked by a model of what each command reads and writes.
// The validation layer cannot see these hazards: the kernels reach every
// buffer through device addresses.
// ---------------------------------------------------------------------------
namespace {

VkBuffer fakeBuffer() { return reinterpret_cast<VkBuffer>(uintptr_t(0x1000)); }
VkQueryPool fakePool() { return reinterpret_cast<VkQueryPool>(uintptr_t(0x2000)); }

std::string stages(VkPipelineStageFlags s) {
  std::string out;
  const struct {
    VkPipelineStageFlags bit;
    const char* name;
  } names[] = {{VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, "I"},
               {VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, "C"},
               {VK_PIPELINE_STAGE_TRANSFER_BIT, "T"}};
  for (const auto& n : names)
    if (s & n.bit) out += out.empty() ? n.name : std::string("|") + n.name;
  return out;
}

// A plan as one line: "fill" for the header clear, "C>C" for a barrier from
// the compute stage to the compute stage, "onesweep 128" for a dispatch of
// 128 workgroups, "histogram @" for an indirect one, "[pass 2 ...]" for a
// labelled group, "t0"/"t1" for the timestamps.
std::string describe(const vksort::Plan& p) {
  std::string out;
  auto word = [&](const std::string& w) {
    if (!out.empty() && out.back() != '[') out += ' ';
    out += w;
  };
  for (uint32_t i = 0; i < p.commandCount; ++i) {
    const vksort::Command& c = p.commands[i];
    switch (c.type) {
      case vksort::kCmdTimestamp: word("t" + std::to_string(c.query)); break;
      case vksort::kCmdBeginLabel:
        word("[" + std::string(vksort::labelName(c.label)));
        if (c.label >= vksort::kLabelPass) out += " " + std::to_string(c.pass + 1);
        break;
      case vksort::kCmdEndLabel: out += "]"; break;
      case vksort::kCmdBarrier: word(stages(c.barrier.srcStage) + ">" + stages(c.barrier.dstStage)); break;
      case vksort::kCmdFillHeader: word("fill"); break;
      case vksort::kCmdDispatch:
        word(std::string(vksort::kernelName(c.kernel)) + " " + std::to_string(c.groups[0]) +
             (c.groups[1] > 1 ? "x" + std::to_string(c.groups[1]) : ""));
        break;
      case vksort::kCmdDispatchIndirect: word(std::string(vksort::kernelName(c.kernel)) + " @"); break;
    }
  }
  return out;
}

vksort::Plan* planOf(const Sorter& s, uint32_t count, bool indirect = false, bool timestamps = false,
                     uint32_t endBit = 0) {
  static vksort::Plan p;  // large; one at a time
  VksortSortInfo info{};
  info.count = count;
  info.endBit = endBit;
  if (indirect) info.countBuffer.buffer = fakeBuffer();
  if (timestamps) info.timestampQueryPool = fakePool();
  REQUIRE_MESSAGE(vksort::planSort(s.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  return &p;
}

// The buffers a sort touches. Values move with their keys, so "keys" stands
// for keys and values, "alt" for alt and altValues. Temp is two: the
// dispatch commands of a sort with an indirect count (push.h), and the rest.
// A segmented sort's kernels touch disjoint parts of them, each its own
// resource: keys and alt of each size class's segments (kKeys and kAlt
// stand for the large segments that keep their passes; "split" for those
// the histogram kernel splits on one digit, "two-digit" for those it splits
// on two), and in temp the segments' lists and the buckets' lists of each
// kind beside the rest.
enum Resource {
  kTemp,
  kTempCommands,
  kKeys,
  kAlt,
  kTempLists,
  kTempBuckets,
  kTempBucketCommands,
  kTempTwoDigit,
  kTempTwoDigitCommands,
  kTempTiles,
  kTempHistograms,
  kKeysMicro,  // then alt, and the same for each group below
  kResources = kKeysMicro + 32
};
// Keys (or alt, `alt`) of a group of segments: a size class
// (VKSORT_SEGMENT_CLASS_*), 5 the medium ones, and from 6 on the buckets of
// split segments in each class of lanes (kGroupSplit + VKSORT_SEGMENT_CLASS_*),
// and from 10 on the buckets of segments split on two digits in each class
// (kGroupTwoDigit + VKSORT_SEGMENT_CLASS_*, then the medium ones).
Resource segmentData(uint32_t group, bool alt) { return Resource(kKeysMicro + 2 * group + (alt ? 1 : 0)); }
constexpr uint32_t kGroupMedium = 5, kGroupSplit = 6, kGroupTwoDigit = 10, kGroups = 16;
std::string resourceName(Resource r) {
  const char* const names[] = {"temp",
                               "temp's dispatch commands",
                               "keys",
                               "alt",
                               "temp's segment lists",
                               "temp's bucket lists",
                               "temp's dispatch commands of the buckets",
                               "temp's two-digit bucket lists",
                               "temp's dispatch commands of the two-digit buckets",
                               "temp's tile entries",
                               "temp's histograms of the large segments"};
  if (r < kKeysMicro) return names[r];
  const char* const groups[] = {"micro",
                                "tiny",
                                "half-subgroup",
                                "subgroup",
                                "small",
                                "medium",
                                "micro buckets of",
                                "tiny buckets of",
                                "half-subgroup buckets of",
                                "subgroup buckets of",
                                "micro two-digit buckets of",
                                "tiny two-digit buckets of",
                                "half-subgroup two-digit buckets of",
                                "subgroup two-digit buckets of",
                                "small two-digit buckets of",
                                "medium two-digit buckets of"};
  const uint32_t i = uint32_t(r) - uint32_t(kKeysMicro);
  return std::string(i % 2 ? "alt" : "keys") + " of the " + groups[i / 2] + " segments";
}

struct Access {
  Resource resource;
  bool write;
  VkPipelineStageFlags stage;
  VkAccessFlags access;
};

// What a command reads and writes: the contract of each kernel (the
// shaders' headers), written down independently of plan.cpp.
std::vector<Access> accesses(const vksort::Command& c, bool routes) {
  const VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkAccessFlags R = VK_ACCESS_SHADER_READ_BIT, W = VK_ACCESS_SHADER_WRITE_BIT;
  std::vector<Access> a;
  if (c.type == vksort::kCmdFillHeader)
    for (Resource r : {kTemp, kTempCommands})
      a.push_back({r, true, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT});
  if (c.type != vksort::kCmdDispatch && c.type != vksort::kCmdDispatchIndirect) return a;
  if (c.type == vksort::kCmdDispatchIndirect)
    a.push_back({kTempCommands, false, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT});
  const Resource in = c.pass % 2 ? kAlt : kKeys, out = c.pass % 2 ? kKeys : kAlt;
  auto readWrite = [&](Resource r) {
    a.push_back({r, false, C, R});
    a.push_back({r, true, C, W});
  };
  switch (c.kernel) {
    case vksort::kKernelHistogram:  // keys; histograms and counters in temp, ring cleared; the passes' command
      a.push_back({kKeys, false, C, R});
      readWrite(kTemp);
      if (routes) a.push_back({kTempCommands, true, C, W});
      break;
    case vksort::kKernelOnesweep:
    case vksort::kKernelMidsizeOnesweep:
    case vksort::kKernelMidsizeOnesweepHalf:  // pass p: one buffer to the other; counters and ring in temp
    case vksort::kKernelPortableScatter:      // pass p: one buffer to the other, positions from temp's table
      a.push_back({in, false, C, R});
      a.push_back({out, true, C, W});
      readWrite(kTemp);
      break;
    case vksort::kKernelOnesweepChained:
    case vksort::kKernelMidsizeOnesweepChained:
    case vksort::kKernelMidsizeOnesweepHalfChained:  // every pass between keys and alt; counters and ring in temp
      readWrite(kKeys);
      readWrite(kAlt);
      readWrite(kTemp);
      break;
    case vksort::kKernelOneWorkgroup:
    case vksort::kKernelWideOneWorkgroup:  // every pass between keys and alt
      readWrite(kKeys);
      readWrite(kAlt);
      break;
    case vksort::kKernelPortableCount:  // pass p's input; the tile table in temp
      a.push_back({in, false, C, R});
      a.push_back({kTemp, true, C, W});
      break;
    case vksort::kKernelPortableReduce:
    case vksort::kKernelPortableScanSums:
    case vksort::kKernelPortableDownsweep: readWrite(kTemp); break;
    default:  // the bitonic kernels: keys to the buffer that the pass count names
      a.push_back({kKeys, false, C, R});
      a.push_back({c.pass ? kAlt : kKeys, true, C, W});
      break;
  }
  return a;
}

// What a segmented sort's command reads and writes (segments.glsl and the
// kernels' headers), written down independently of plan.cpp.
std::vector<Access> segmentedAccesses(const vksort::Command& c, bool split, bool twoDigit) {
  const VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkAccessFlags R = VK_ACCESS_SHADER_READ_BIT, W = VK_ACCESS_SHADER_WRITE_BIT;
  std::vector<Access> a;
  if (c.type == vksort::kCmdFillHeader)
    for (Resource r :
         {kTemp, kTempCommands, kTempLists, kTempBuckets, kTempBucketCommands, kTempTiles, kTempHistograms})
      a.push_back({r, true, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT});
  if (c.type != vksort::kCmdDispatch && c.type != vksort::kCmdDispatchIndirect) return a;
  const bool buckets = c.push == vksort::kPushBuckets, two = c.push == vksort::kPushSplitTwo;
  // The buckets' dispatches, and where segments may split the passes after
  // the first, read the commands that the histogram kernel writes (pass 1
  // and the lister of two-digit buckets the two-digit buckets' header's;
  // the two-digit buckets' kernels the lister's).
  const bool onesweep = c.kernel == vksort::kKernelSegmentOnesweep;
  const bool second = (twoDigit && onesweep && c.pass == 1) || c.kernel == vksort::kKernelSegmentBuckets;
  const bool later = split && onesweep && c.pass > 0 && !second;
  if (c.type == vksort::kCmdDispatchIndirect)
    a.push_back({two || second      ? kTempTwoDigitCommands
                 : buckets || later ? kTempBucketCommands
                                    : kTempCommands,
                 false, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT});
  auto read = [&](Resource r) { a.push_back({r, false, C, R}); };
  auto write = [&](Resource r) { a.push_back({r, true, C, W}); };
  const bool odd = c.pass % 2 != 0;
  switch (c.kernel) {
    case vksort::kKernelSegmentBins:  // the offsets; the lists, the tile entries and the commands
      read(kTemp);
      write(kTemp);
      write(kTempTiles);
      write(kTempLists);
      write(kTempCommands);
      if (twoDigit) write(kTempTwoDigitCommands);  // clears the two-digit buckets' header
      break;
    case vksort::kKernelSegmentMicro:
    case vksort::kKernelSegmentTiny:
    case vksort::kKernelSegmentHalf:
    case vksort::kKernelSegmentSubgroup:
    case vksort::kKernelSegmentSmall: {  // a class's list: its segments from keys, buckets from alt, two-digit ones
                                         // from keys
      const uint32_t group = uint32_t(c.kernel - vksort::kKernelSegmentMicro) + (buckets ? kGroupSplit
                                                                                 : two   ? kGroupTwoDigit
                                                                                         : 0);
      read(buckets ? kTempBuckets : two ? kTempTwoDigit : kTempLists);
      read(segmentData(group, buckets));
      write(segmentData(group, c.pass != 0));
      break;
    }
    case vksort::kKernelSegmentMedium:  // every pass between keys and alt
      read(two ? kTempTwoDigit : kTempLists);
      for (bool alt : {false, true}) {
        read(segmentData(two ? kGroupTwoDigit + 5 : kGroupMedium, alt));
        write(segmentData(two ? kGroupTwoDigit + 5 : kGroupMedium, alt));
      }
      break;
    case vksort::kKernelSegmentBuckets:  // the slots, their top digits' starts and pass 1's output; the lists
      for (uint32_t group = kGroupTwoDigit; group < kGroups; ++group) read(segmentData(group, false));
      read(kTempHistograms);
      read(kTempTwoDigit);
      read(kTempTwoDigitCommands);
      write(kTempTwoDigit);
      write(kTempTwoDigitCommands);
      break;
    case vksort::kKernelSegmentHistogram:  // the large segments' keys; the buckets of those it splits
      read(kKeys);
      for (uint32_t group = kGroupSplit; group < kGroups; ++group) read(segmentData(group, false));
      read(kTempCommands);  // the tiles' grid, which the passes after the first may copy
      read(kTemp);
      write(kTemp);
      read(kTempHistograms);  // counts, then digit starts
      write(kTempHistograms);
      write(kTempBuckets);
      write(kTempBucketCommands);
      write(kTempTwoDigit);  // the slots of segments split on two digits
      write(kTempTwoDigitCommands);
      read(kTempTiles);  // and marks the split segments' entries
      write(kTempTiles);
      break;
    case vksort::kKernelSegmentOnesweep:  // pass p, and in pass 0 the split segments by their top digit
    case vksort::kKernelSegmentScatter:
      read(odd ? kAlt : kKeys);
      write(odd ? kKeys : kAlt);
      if (c.pass == 0 && onesweep)
        for (uint32_t group = kGroupSplit; group < kGroups; ++group) {
          read(segmentData(group, false));
          write(segmentData(group, true));
        }
      if (c.pass == 1 && onesweep)  // the two-digit segments by their top digit
        for (uint32_t group = kGroupTwoDigit; group < kGroups; ++group) {
          read(segmentData(group, true));
          write(segmentData(group, false));
        }
      if (onesweep) read(kTempHistograms);  // the digit starts
      read(kTemp);
      write(kTemp);
      break;
    case vksort::kKernelSegmentOnesweepChained:  // every pass, counting the digits too
      for (Resource r : {kKeys, kAlt, kTemp, kTempHistograms}) {
        read(r);
        write(r);
      }
      break;
    case vksort::kKernelSegmentCount:
      read(odd ? kAlt : kKeys);
      write(kTemp);
      break;
    default:  // the portable scan's kernels
      read(kTemp);
      write(kTemp);
      break;
  }
  return a;
}

// Pipeline stages that are logically earlier (in a barrier's first scope)
// or later (in its second) than the ones named, for compute and transfer
// commands.
VkPipelineStageFlags withEarlier(VkPipelineStageFlags s) {
  if (s & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) s |= VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  return s;
}
VkPipelineStageFlags withLater(VkPipelineStageFlags s) {
  if (s & VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT) s |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  return s;
}

// Vulkan's synchronization rules for one command buffer, for memory
// barriers: a write must be made available by a barrier whose first scope
// holds it and then visible to each later access (read after write, write
// after write); a read must be ordered before any later write (write after
// read). Barriers chain through their stages.
struct Hazards {
  struct Read {
    VkPipelineStageFlags stage, before;  // before: stages this read is ordered before
  };
  struct State {
    bool written = false;
    VkPipelineStageFlags writeStage = 0, before = 0, visibleStages = 0;
    VkAccessFlags writeAccess = 0, visibleAccess = 0;
    bool available = false;
    std::vector<Read> reads;
  } state[kResources];
  std::vector<std::string> errors;

  void barrier(VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
    barrierOn(state, src, srcAccess, dst, dstAccess);
  }
  void barrierOn(State* states, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                 VkAccessFlags dstAccess) {
    src = withEarlier(src);
    dst = withLater(dst);
    for (State* it = states; it != states + kResources; ++it) {
      State& s = *it;
      if (s.written) {
        const bool chained = (src & (s.writeStage | s.before)) != 0;
        if (chained) s.before |= dst;
        if ((src & s.writeStage) && (srcAccess & s.writeAccess)) s.available = true;
        if (chained && s.available) {
          s.visibleStages |= dst;
          s.visibleAccess |= dstAccess;
        }
      }
      for (Read& r : s.reads)
        if (src & (r.stage | r.before)) r.before |= dst;
    }
  }

  // Before a dispatch that is not an alternative: the state its
  // alternatives start from, with the barriers and fills since.
  State groupStart[kResources];

  void check(const State* from, const std::string& what, const std::vector<Access>& list) {
    for (const Access& a : list) {
      const State& s = from[a.resource];
      const std::string where = what + " on " + resourceName(a.resource);
      if (s.written && !((s.visibleStages & a.stage) && (s.visibleAccess & a.access)))
        errors.push_back(where + (a.write ? ": write after write" : ": read after write") + " without a barrier");
      if (a.write)
        for (const Read& r : s.reads)
          if (!(r.before & a.stage)) errors.push_back(where + ": write after read without a barrier");
    }
  }

  void command(const std::string& what, const std::vector<Access>& list) {
    check(state, what, list);
    apply(list);
  }

  // A dispatch recorded as the alternative of the ones since the last
  // dispatch that is not (Command::alternative): at most one of them runs
  // workgroups, so each is checked against the state before the first.
  void alternative(const std::string& what, const std::vector<Access>& list) {
    check(groupStart, what, list);
    apply(list);
  }

  void apply(const std::vector<Access>& list) { applyOn(state, list); }
  void applyOn(State* states, const std::vector<Access>& list) {
    for (const Access& a : list) {
      State& s = states[a.resource];
      if (a.write) {
        s = State{};
        s.written = true;
        s.writeStage = a.stage;
        s.writeAccess = a.access;
      } else {
        s.reads.push_back({a.stage, 0});
      }
    }
  }

  void run(const vksort::Plan& p) {
    const bool segmented = p.summary.path == VKSORT_PATH_SEGMENTED;
    for (uint32_t i = 0; i < p.commandCount; ++i) {
      const vksort::Command& c = p.commands[i];
      const std::vector<Access> list = segmented ? segmentedAccesses(c, p.splitBuckets != 0, p.splitTwoBuckets != 0)
                                                 : accesses(c, (p.push.flags & VKSORT_FLAG_LIVE_ROUTE) != 0);
      if (c.type == vksort::kCmdBarrier) {
        barrier(c.barrier.srcStage, c.barrier.srcAccess, c.barrier.dstStage, c.barrier.dstAccess);
        barrierOn(groupStart, c.barrier.srcStage, c.barrier.srcAccess, c.barrier.dstStage, c.barrier.dstAccess);
      } else if (segmented && c.type == vksort::kCmdFillHeader && i > 0 &&
                 p.commands[i - 1].type == vksort::kCmdFillHeader)
        apply(list);  // the segmented clear's fills write disjoint ranges (each resource here stands for all)
      else if (c.alternative)
        alternative("command " + std::to_string(i) + " (" + vksort::kernelName(c.kernel) + ")", list);
      else {
        const bool dispatch = c.type == vksort::kCmdDispatch || c.type == vksort::kCmdDispatchIndirect;
        if (dispatch) std::copy(state, state + kResources, groupStart);
        command("command " + std::to_string(i) + " (" + vksort::kernelName(c.kernel) + ")", list);
        if (!dispatch) applyOn(groupStart, list);  // a fill: the alternatives after it follow it
      }
    }
  }

  // The caller's one barrier before a sort (vksort.h, "Barrier contract").
  void callerBarrier() {
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
};

// Every structural rule of a command list: labels balanced, timestamps
// first and last, barriers with stages, dispatches of kernels the sorter
// has, within the device's grid limits, indirect only on Onesweep paths.
void checkStructure(const Sorter& s, const vksort::Plan& p, bool timestamps) {
  int depth = 0;
  uint32_t dispatches = 0;
  for (uint32_t i = 0; i < p.commandCount; ++i) {
    const vksort::Command& c = p.commands[i];
    INFO("command " << i << " of " << describe(p));
    switch (c.type) {
      case vksort::kCmdTimestamp: CHECK(i == (c.query ? p.commandCount - 1 : 0)); break;
      case vksort::kCmdBeginLabel: CHECK(++depth == 1); break;
      case vksort::kCmdEndLabel: CHECK(--depth == 0); break;
      case vksort::kCmdBarrier:
        CHECK(c.barrier.srcStage != 0);
        CHECK(c.barrier.dstStage != 0);
        break;
      case vksort::kCmdFillHeader: CHECK(s.config.algorithm == VKSORT_ALGORITHM_ONESWEEP); break;
      case vksort::kCmdDispatch:
        ++dispatches;
        if (c.alternative) {  // another route's kernel: after a dispatch, with no barrier from the compute stage
          CHECK((p.push.flags & VKSORT_FLAG_LIVE_ROUTE) != 0);
          uint32_t j = i - 1;
          while (j > 0 && p.commands[j].type != vksort::kCmdDispatch) {
            if (p.commands[j].type == vksort::kCmdBarrier)
              CHECK((p.commands[j].barrier.srcStage & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) == 0);
            --j;
          }
          CHECK(p.commands[j].type == vksort::kCmdDispatch);
        }
        CHECK(vksort::hasKernel(s.config, c.kernel));
        CHECK(c.groups[0] >= 1);
        CHECK(c.groups[1] >= 1);
        CHECK(c.groups[1] <= 65535);
        if (c.groups[1] > 1) CHECK(c.groups[0] <= s.config.maxDispatchX);
        break;
      case vksort::kCmdDispatchIndirect:  // passes of a sort with an indirect count
        ++dispatches;
        CHECK((p.push.flags & VKSORT_FLAG_LIVE_ROUTE) != 0);
        CHECK(c.indirectOffset >=
              VKSORT_TEMP_COUNTERS_OFFSET + 4 * VKSORT_CTR_PASSES_DISPATCH(VKSORT_ROUTE_MIDSIZE_HALF));
        CHECK(c.indirectOffset <= VKSORT_TEMP_COUNTERS_OFFSET + 4 * VKSORT_CTR_PASSES_DISPATCH(VKSORT_ROUTE_TILES));
        CHECK(c.indirectOffset + 12 <= VKSORT_TEMP_HEADER_BYTES);
        break;
    }
  }
  CHECK(depth == 0);
  CHECK(dispatches >= 1);
  CHECK((timestamps && p.commandCount >= 2) == (p.commands[0].type == vksort::kCmdTimestamp));
}

}  // namespace

TEST_CASE("plan: each path's commands, in order") {
  const Sorter u32(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_NONE);
  CHECK(planOf(u32, 0)->commandCount == 0);
  CHECK(describe(*planOf(u32, 4096, false, true)) == "t0 [bitonic keys-only 1] t1");
  CHECK(describe(*planOf(u32, 5120)) == "[wide one workgroup 1]");
  // Up to chainedMaxCount (2^20) every pass is in one dispatch of one pass's
  // tiles, which builds the histograms too and needs no barrier of its own.
  CHECK(describe(*planOf(u32, 1u << 16)) ==
        "[clear C|T>T fill T>C] [passes mid-size onesweep, half tiles, chained passes 32]");
  CHECK(describe(*planOf(u32, 1u << 20)) == "[clear C|T>T fill T>C] [passes onesweep, chained passes 128]");
  // Above it, a dispatch per pass. 24 bits: three passes, the result in alt.
  CHECK(describe(*planOf(u32, 1u << 21, false, false, 24)) ==
        "[clear C|T>T fill T>C] [histogram histogram 512] [pass 1 C>C onesweep 256] [pass 2 C>C onesweep 256] "
        "[pass 3 C>C onesweep 256]");
  // With an indirect count every route's kernels are recorded, and each runs
  // only for the live counts that a direct sort would give it: the bitonic
  // kernel (keys-only where a sort covers every key bit) and the
  // one-workgroup kernel between the clear's barriers, which do not wait for
  // them; then a chain for each tile shape up to maxCount's, largest first,
  // each sized for the most keys it may sort. None waits for another.
  CHECK(describe(*planOf(u32, 1u << 17, true)) ==
        "[one-dispatch routes C|T>T bitonic keys-only 1 wide one workgroup 1] [clear fill T>C] "
        "[passes mid-size onesweep, half tiles, chained passes 64]");
  CHECK(describe(*planOf(u32, 1u << 20, true)) ==
        "[one-dispatch routes C|T>T bitonic keys-only 1 wide one workgroup 1] [clear fill T>C] "
        "[passes onesweep, chained passes 128] [passes mid-size onesweep, chained passes 192] "
        "[passes mid-size onesweep, half tiles, chained passes 128]");
  CHECK(describe(*planOf(u32, 1u << 17, true, false, 24)) ==
        "[one-dispatch routes C|T>T bitonic 1 wide one workgroup 1] [clear fill T>C] "
        "[passes mid-size onesweep, half tiles, chained passes 64]");
  for (uint32_t endBit : {0u, 24u}) {  // the bitonic kernel writes where the passes leave the result
    const vksort::Plan& p = *planOf(u32, 1u << 17, true, false, endBit);
    REQUIRE(p.commandCount > 3);
    CHECK(p.commands[2].kernel == (endBit ? vksort::kKernelBitonic : vksort::kKernelBitonicKeys));
    CHECK(!p.commands[2].alternative);
    CHECK(p.commands[2].pass == p.summary.passes % 2);
    CHECK(p.commands[3].alternative);
    CHECK((p.push.flags & VKSORT_FLAG_LIVE_ROUTE) != 0);
  }
  CHECK((planOf(u32, 1u << 17)->push.flags & VKSORT_FLAG_LIVE_ROUTE) == 0);
  // Where the largest shape has a dispatch per pass, its histogram kernel
  // runs beside the other routes (after them: their workgroups return at
  // once), which count their own digits, and writes the passes' dispatch
  // command: their first barrier has the indirect stage.
  CHECK(describe(*planOf(u32, 1u << 21, true)) ==
        "[one-dispatch routes C|T>T bitonic keys-only 1 wide one workgroup 1] [clear fill T>C] "
        "[passes mid-size onesweep, chained passes 192] [passes mid-size onesweep, half tiles, chained passes 128] "
        "[histogram histogram 512] "
        "[pass 1 C>I|C onesweep @] [pass 2 C>C onesweep @] [pass 3 C>C onesweep @] [pass 4 C>C onesweep @]");
  // Each chain's tiles are sized for the most keys it may sort, and the
  // status tags and ring clearing hold the largest.
  const uint32_t above = u32.config.t.midsizeMaxCount + 1;
  const vksort::Plan& shapes = *planOf(u32, above, true);
  CHECK(shapes.summary.tiles == (above + u32.config.tileKeys() - 1) / u32.config.tileKeys());
  CHECK(shapes.push.numTiles == u32.config.t.midsizeMaxCount / u32.config.oneWorkgroupKeys());
  CHECK(shapes.push.numTiles > shapes.summary.tiles);
  CHECK(shapes.push.ringClear == std::min(shapes.push.numTiles, u32.config.t.ringSlots));
  // The portable algorithm: count, scan and scatter per pass, a barrier
  // between every two dispatches; the block sums only where the table has several
  // blocks (4 tiles x 256 digits = 1024 entries: one block).
  const Sorter portable(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_NONE, nullptr, VKSORT_ALGORITHM_PORTABLE);
  const uint32_t tileKeys = portable.config.tileKeys();
  CHECK(describe(*planOf(portable, 4 * tileKeys, false, false, 8)) ==
        "[count pass 1 portable count 4] [scan pass 1 C>C portable downsweep 1] "
        "[scatter pass 1 C>C portable scatter 4]");
  CHECK(describe(*planOf(portable, 16 * tileKeys, false, false, 8)) ==
        "[count pass 1 portable count 16] [scan pass 1 C>C portable reduce 2 C>C portable scan of the block sums 1 "
        "C>C portable downsweep 2] [scatter pass 1 C>C portable scatter 16]");
}

TEST_CASE("plan: every path's barriers order every read and write, within a sort and between two") {
  // Every device model, key and value type, algorithm and path (each count
  // below starts or ends one), with and without an indirect count and
  // timestamps. The commands of two sorts with the caller's documented
  // barrier between them must have no hazard, and the result must be
  // visible after the caller's barrier from the compute stage.
  for (Device d : {Device::Nvidia, Device::Lavapipe, Device::Adreno})
    for (VksortKeyType key : {VKSORT_KEY_U32, VKSORT_KEY_F64})
      for (VksortValueType value : {VKSORT_VALUE_NONE, VKSORT_VALUE_32, VKSORT_VALUE_INDEX, VKSORT_VALUE_64})
        for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
          for (uint32_t radixBits : {0u, 1u}) {
            if (radixBits && algorithm != VKSORT_ALGORITHM_PORTABLE) continue;
            const Sorter s(d, key, value, nullptr, algorithm, radixBits);
            REQUIRE(s.created == VKSORT_SUCCESS);
            const vksort::Config& c = s.config;
            std::vector<uint32_t> counts = {1, 2, c.tileKeys(), c.tileKeys() + 1, 1u << 20, VKSORT_MAX_COUNT};
            for (uint32_t end : {c.t.bitonicKeysMaxCount, c.t.bitonicMaxCount, c.t.oneWorkgroupMaxCount,
                                 c.oneWorkgroupKeys(), c.t.midsizeMaxCount, c.midsizeHalfMaxCount()})
              if (end != VKSORT_TUNING_OFF && end != 0) counts.insert(counts.end(), {end, end + 1});
            for (uint32_t count : counts)
              for (bool indirect : {false, true})
                for (bool timestamps : {false, true}) {
                  const vksort::Plan& p = *planOf(s, count, indirect, timestamps);
                  INFO("device " << int(d) << ", key " << key << ", value " << value << ", algorithm " << algorithm
                                 << ", count " << count << ", indirect " << indirect << ": " << describe(p));
                  checkStructure(s, p, timestamps);
                  CHECK(p.commandCount <= vksort::kMaxCommands);
                  Hazards h;
                  // Earlier work: the keys uploaded, and an earlier sort's
                  // writes to every range and its indirect reads of temp.
                  h.command("upload", {{kKeys, true, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT}});
                  h.command("earlier sort",
                            {{kAlt, true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT},
                             {kTemp, true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT},
                             {kTempCommands, true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT}});
                  h.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
                  h.command("earlier sort", {{kTempCommands, false, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                                              VK_ACCESS_INDIRECT_COMMAND_READ_BIT}});
                  h.callerBarrier();
                  h.run(p);
                  h.callerBarrier();
                  h.run(p);
                  // After the sort: the caller's barrier from the compute
                  // stage's writes to its consumer.
                  h.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
                  const Resource result = p.summary.resultBuffer == VKSORT_RESULT_IN_ALT ? kAlt : kKeys;
                  h.command("the caller's read of the result",
                            {{result, false, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT}});
                  for (const std::string& e : h.errors) FAIL_CHECK(e);
                }
          }
}

TEST_CASE("plan: the hazard model finds a missing barrier") {
  // The checker above can fail: drop each barrier of a Onesweep sort (its
  // passes chained, or a dispatch each) with and without an indirect count
  // in turn, and of a portable sort, and it reports a hazard.
  const Sorter onesweep(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32);
  const Sorter portable(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_NONE, nullptr, VKSORT_ALGORITHM_PORTABLE);
  for (const Sorter* s : {&onesweep, &portable})
    for (uint32_t count : {1u << 20, 1u << 22})
      for (bool indirect : {false, true}) {
        const vksort::Plan full = *planOf(*s, count, indirect);
        for (uint32_t drop = 0; drop < full.commandCount; ++drop) {
          if (full.commands[drop].type != vksort::kCmdBarrier) continue;
          vksort::Plan& p = *planOf(*s, count, indirect);
          for (uint32_t i = drop; i + 1 < p.commandCount; ++i) p.commands[i] = p.commands[i + 1];
          --p.commandCount;
          Hazards h;
          h.command("earlier sort",
                    {{kTemp, true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT},
                     {kTempCommands, true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT}});
          h.callerBarrier();
          h.run(p);
          INFO("without command " << drop << " of " << describe(full));
          CHECK(!h.errors.empty());
        }
      }
  // Routes of a sort with an indirect count that were not alternatives:
  // the one-dispatch kernels and the chained passes write the same keys
  // with only the clear's barrier from the transfer stage between them.
  vksort::Plan& p = *planOf(onesweep, 1u << 20, true);
  uint32_t alternatives = 0;
  for (uint32_t i = 0; i < p.commandCount; ++i) {
    alternatives += p.commands[i].alternative ? 1 : 0;
    p.commands[i].alternative = false;
  }
  CHECK(alternatives >= 3);
  Hazards h;
  h.run(p);
  REQUIRE(!h.errors.empty());
  CHECK(h.errors[0].find("keys") != std::string::npos);
  // The passes' first barrier without the indirect stage.
  vksort::Plan& perPass = *planOf(onesweep, 1u << 22, true);
  uint32_t first = 0;
  while (first < perPass.commandCount && perPass.commands[first].type != vksort::kCmdDispatchIndirect) ++first;
  REQUIRE(first < perPass.commandCount);
  while (perPass.commands[first].type != vksort::kCmdBarrier) --first;
  perPass.commands[first].barrier.dstStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  Hazards later;
  later.run(perPass);
  REQUIRE(!later.errors.empty());
  CHECK(later.errors[0].find("dispatch commands") != std::string::npos);
}

TEST_CASE("plan: read as Vulkan 1.2, subgroup size control is enabled by its extension or by the 1.3 features") {
  // apiVersion 0 reads the device as Vulkan 1.2. The caller's create info
  // then enables subgroup size control through the extension, or through a
  // VkPhysicalDeviceVulkan13Features, which only a Vulkan 1.3 device accepts;
  // the extension's feature struct without the extension enables nothing.
  vksort::DeviceInfo info = deviceInfo(Device::Nvidia);
  info.apiVersion = VK_API_VERSION_1_2;
  VkPhysicalDeviceSubgroupSizeControlFeatures ext{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  ext.subgroupSizeControl = ext.computeFullSubgroups = VK_TRUE;
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &ext};
  vksort::FeatureSet on = vksort::enabledFeatures(info, ci);
  CHECK(!on.has[vksort::kSubgroupSizeControl]);
  CHECK(!on.has[vksort::kComputeFullSubgroups]);
  const char* name = "VK_EXT_subgroup_size_control";
  ci.enabledExtensionCount = 1;
  ci.ppEnabledExtensionNames = &name;
  on = vksort::enabledFeatures(info, ci);
  CHECK(on.has[vksort::kSubgroupSizeControl]);
  CHECK(on.has[vksort::kComputeFullSubgroups]);
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.subgroupSizeControl = f13.computeFullSubgroups = VK_TRUE;
  VkDeviceCreateInfo core{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f13};
  on = vksort::enabledFeatures(info, core);
  CHECK(on.has[vksort::kSubgroupSizeControl]);
  CHECK(on.has[vksort::kComputeFullSubgroups]);
  f13.computeFullSubgroups = VK_FALSE;
  CHECK(!vksort::enabledFeatures(info, core).has[vksort::kComputeFullSubgroups]);
}

TEST_CASE("plan: segmented sorts' commands, in order, and the medium class only on Onesweep") {
  // The bins kernel after its three clears, the classes' dispatches after its
  // barrier (the indirect stage: they read the commands it wrote), the
  // large segments' passes, and on Onesweep the medium kernel and the split
  // segments' buckets last, so that no barrier of the passes waits for
  // them. The buckets' commands, and the passes after the first's, come
  // from the histogram kernel: pass 1's barrier has the indirect stage.
  vksort::Plan p;
  VksortSegmentedSortInfo info{};
  info.sort.count = 1u << 22;
  info.segmentCount = 4096;
  const Sorter onesweep(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_AUTO, 0, true);
  REQUIRE(onesweep.created == VKSORT_SUCCESS);
  REQUIRE_MESSAGE(vksort::planSegmentedSort(onesweep.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  CHECK(p.segmented.smallMaxCount == 2048);
  CHECK(p.segmented.mediumMaxCount == 4096);
  CHECK(describe(p) ==
        "[bins C|T>T fill fill fill T>C segment bins 16 C>I|C] [micro segments micro segments @] "
        "[tiny segments tiny segments @] [half-subgroup segments half-subgroup segments @] "
        "[subgroup segments subgroup segments @] "
        "[small segments small segments @] [histogram segment histogram @] [pass 1 C>I|C segmented onesweep @] "
        "[pass 2 C>C segmented onesweep @] [pass 3 C>C segmented onesweep @ two-digit bucket lists @] "
        "[pass 4 C>I|C segmented onesweep @] [medium segments medium segments @] "
        "[split buckets micro segments @ tiny segments @ half-subgroup segments @ subgroup segments @] "
        "[two-digit buckets micro segments @ tiny segments @ half-subgroup segments @ subgroup segments @ "
        "small segments @ medium segments @]");
  CHECK(p.segmented.bucketMaxCount == p.segmented.subgroupMaxCount);
  // Pass 1 runs the bins kernel's tiles; the later passes the histogram
  // kernel's command, in the buckets' header.
  std::vector<VkDeviceSize> passCommands;
  for (uint32_t i = 0; i < p.commandCount; ++i)
    if (p.commands[i].kernel == vksort::kKernelSegmentOnesweep && p.commands[i].type == vksort::kCmdDispatchIndirect)
      passCommands.push_back(p.commands[i].indirectOffset);
  REQUIRE(passCommands.size() == 4);
  VkDeviceSize bucketsHeader = 0;
  for (uint32_t i = 0; i < p.commandCount; ++i)
    if (p.commands[i].push == vksort::kPushBuckets && p.commands[i].kernel == vksort::kKernelSegmentMicro)
      bucketsHeader = p.commands[i].indirectOffset - 4 * VKSORT_SEG_MICRO_DISPATCH;
  VkDeviceSize twoDigitHeader = 0;
  for (uint32_t i = 0; i < p.commandCount; ++i)
    if (p.commands[i].push == vksort::kPushSplitTwo && p.commands[i].kernel == vksort::kKernelSegmentMicro)
      twoDigitHeader = p.commands[i].indirectOffset - 4 * VKSORT_SEG_MICRO_DISPATCH;
  CHECK(twoDigitHeader - p.splitTwoShift == bucketsHeader - p.splitShift);
  CHECK(passCommands[0] == bucketsHeader - p.splitShift + 4 * VKSORT_SEG_TILES_DISPATCH);
  CHECK(passCommands[1] == twoDigitHeader + 4 * VKSORT_SEG_SECOND_DISPATCH);
  for (uint32_t i = 0; i < p.commandCount; ++i)
    if (p.commands[i].kernel == vksort::kKernelSegmentBuckets)
      CHECK(p.commands[i].indirectOffset == twoDigitHeader + 4 * VKSORT_SEG_FIND_DISPATCH);
  for (uint32_t pass = 2; pass < 4; ++pass) CHECK(passCommands[pass] == bucketsHeader + 4 * VKSORT_SEG_LATER_DISPATCH);
  // Up to chainedMaxCount keys the chained dispatch counts the digits, and
  // no histogram kernel splits.
  info.sort.count = 1u << 20;
  REQUIRE_MESSAGE(vksort::planSegmentedSort(onesweep.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  CHECK(p.segmented.bucketMaxCount == 0);
  CHECK(describe(p).find("split") == std::string::npos);
  info.sort.count = 1u << 22;
  const Sorter portable(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_PORTABLE, 0, true);
  REQUIRE(portable.created == VKSORT_SUCCESS);
  REQUIRE_MESSAGE(vksort::planSegmentedSort(portable.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  CHECK(p.segmented.mediumMaxCount == p.segmented.smallMaxCount);
  CHECK(p.segmented.bucketMaxCount == 0);
  CHECK(describe(p).find("medium") == std::string::npos);
  CHECK(describe(p).find("split") == std::string::npos);
}

namespace {

// A segmented sort's plan: `count` keys in `segments` segments, over bits
// [0, endBit) (0: every bit), with a GPU-written segment count or not.
vksort::Plan* segmentedPlanOf(const Sorter& s, uint32_t count, uint32_t segments, uint32_t endBit = 0,
                              bool gpuCount = false, bool timestamps = false) {
  static vksort::Plan p;  // large; one at a time
  VksortSegmentedSortInfo info{};
  info.sort.count = count;
  info.sort.endBit = endBit;
  if (timestamps) info.sort.timestampQueryPool = fakePool();
  info.segmentCount = segments;
  if (gpuCount) info.segmentCountBuffer.buffer = fakeBuffer();
  REQUIRE_MESSAGE(vksort::planSegmentedSort(s.config, info, &p) == VKSORT_SUCCESS, vksort::lastError());
  return &p;
}

// Two segmented sorts back to back on the same ranges after earlier work,
// then the caller's read of every class's result: the hazards found.
std::vector<std::string> segmentedHazards(const vksort::Plan& p) {
  Hazards h;
  std::vector<Access> earlier;
  for (int r = 0; r < kResources; ++r)
    earlier.push_back({Resource(r), true, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT});
  h.command("earlier sort", earlier);
  h.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
            VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
  h.command("earlier sort",
            {{kTempCommands, false, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT}});
  h.callerBarrier();
  h.run(p);
  h.callerBarrier();
  h.run(p);
  h.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
  const bool alt = p.segmented.resultBuffer == VKSORT_RESULT_IN_ALT;
  std::vector<Access> results = {
      {alt ? kAlt : kKeys, false, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT}};
  for (uint32_t group = 0; group < kGroups; ++group)
    results.push_back(
        {segmentData(group, alt), false, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT});
  h.command("the caller's read of the result", results);
  return h.errors;
}

}  // namespace

TEST_CASE("plan: segmented sorts' barriers order every class's reads and writes") {
  // The hazard model of plain sorts, with each class's segments (and the
  // split segments' buckets) and the lists in temp as resources of their
  // own: the classes touch disjoint ranges and follow the bins with no
  // barrier between them.
  for (Device d : {Device::Nvidia, Device::Lavapipe})
    for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
      for (const auto& kv : {std::pair<VksortKeyType, VksortValueType>{VKSORT_KEY_U32, VKSORT_VALUE_32},
                             {VKSORT_KEY_U64, VKSORT_VALUE_NONE},
                             {VKSORT_KEY_F32, VKSORT_VALUE_INDEX}}) {
        const Sorter s(d, kv.first, kv.second, nullptr, algorithm, 0, true);
        if (s.created != VKSORT_SUCCESS) continue;  // NVIDIA runs Onesweep only where asked for it
        for (uint32_t count : {1u << 12, 1u << 16, 1u << 20, (1u << 20) + 1, 1u << 22})
          for (uint32_t endBit : {0u, 8u, 24u})
            for (bool gpuCount : {false, true}) {
              const vksort::Plan& p = *segmentedPlanOf(s, count, 4096, endBit, gpuCount, gpuCount);
              INFO("device " << int(d) << ", algorithm " << algorithm << ", key " << kv.first << ", count " << count
                             << ", bits [0, " << endBit << "): " << describe(p));
              for (const std::string& e : segmentedHazards(p)) FAIL_CHECK(e);
            }
      }
}

TEST_CASE("plan: the segmented hazard model finds a missing barrier") {
  // Without any one barrier of a segmented sort (Onesweep with split
  // segments, chained, and portable), or with pass 1's barrier lacking the
  // indirect stage that the buckets' dispatches need, the model reports a
  // hazard.
  const Sorter onesweep(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_AUTO, 0, true);
  const Sorter portable(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_PORTABLE, 0, true);
  const std::pair<const Sorter*, uint32_t> cases[] = {
      {&onesweep, 1u << 22}, {&onesweep, 1u << 16}, {&portable, 1u << 16}};
  for (const auto& sc : cases) {
    const vksort::Plan full = *segmentedPlanOf(*sc.first, sc.second, 4096);
    for (uint32_t drop = 0; drop < full.commandCount; ++drop) {
      if (full.commands[drop].type != vksort::kCmdBarrier) continue;
      vksort::Plan& p = *segmentedPlanOf(*sc.first, sc.second, 4096);
      for (uint32_t i = drop; i + 1 < p.commandCount; ++i) p.commands[i] = p.commands[i + 1];
      --p.commandCount;
      INFO("without command " << drop << " of " << describe(full));
      CHECK(!segmentedHazards(p).empty());
    }
  }
  vksort::Plan& p = *segmentedPlanOf(onesweep, 1u << 22, 4096);
  REQUIRE(p.segmented.bucketMaxCount != 0);
  uint32_t pass1 = 0;
  while (pass1 < p.commandCount && !(p.commands[pass1].type == vksort::kCmdBeginLabel &&
                                     p.commands[pass1].label == vksort::kLabelPass && p.commands[pass1].pass == 0))
    ++pass1;
  REQUIRE(p.commands[pass1 + 1].type == vksort::kCmdBarrier);
  p.commands[pass1 + 1].barrier.dstStage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const std::vector<std::string> errors = segmentedHazards(p);
  REQUIRE(!errors.empty());
  CHECK(errors[0].find("dispatch commands") != std::string::npos);
}

TEST_CASE("plan: medium segments stay in shared memory where one tile holds them with their values") {
  const auto medium = [](Device d, VksortKeyType key, VksortValueType value, const VksortTuning* tuning) {
    const Sorter s(d, key, value, tuning, VKSORT_ALGORITHM_ONESWEEP, 0, true);
    REQUIRE(s.created == VKSORT_SUCCESS);
    CHECK(s.config.segmentMediumMax() == 4096);
    return s.config.segmentMediumInShared;
  };
  CHECK(medium(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr));  // 512 x 8 keys, 2 words each
  CHECK(medium(Device::Nvidia, VKSORT_KEY_F64, VKSORT_VALUE_NONE, nullptr));
  CHECK(!medium(Device::Nvidia, VKSORT_KEY_F64, VKSORT_VALUE_INDEX, nullptr));   // 3 words a key: 49.5 KiB
  CHECK(!medium(Device::Nvidia, VKSORT_KEY_U64, VKSORT_VALUE_64, nullptr));      // 4 words a key: 64 KiB
  CHECK(!medium(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_NONE, nullptr));  // 128 x 4 keys: 8 tiles
  // test_segmented.cpp's shapes for lavapipe: one tile of 128 x 32 keys.
  VksortTuning tuning{};
  tuning.oneWorkgroupSize = 128;
  tuning.oneWorkgroupKeysPerThread = 32;
  CHECK(medium(Device::Lavapipe, VKSORT_KEY_U32, VKSORT_VALUE_NONE, &tuning));
  CHECK(!medium(Device::Lavapipe, VKSORT_KEY_F32, VKSORT_VALUE_INDEX, &tuning));
}

TEST_CASE("plan: segmented sorts' temp memory, as the header gives it") {
  // vksort.h (vksortGetSegmentedMemoryRequirements): NVIDIA, u32 keys and
  // values, 2^20 keys in 1,024 segments and 2^22 keys in 4,096.
  const Sorter s(Device::Nvidia, VKSORT_KEY_U32, VKSORT_VALUE_32, nullptr, VKSORT_ALGORITHM_AUTO, 0, true);
  REQUIRE(s.created == VKSORT_SUCCESS);
  const double mib = 1024.0 * 1024.0;
  const double a = double(vksort::segmentedTempBytes(s.config, 1u << 20, 1024, 4)) / mib;
  const double b = double(vksort::segmentedTempBytes(s.config, 1u << 22, 4096, 4)) / mib;
  CHECK(std::lround(a * 10) == 29);   // 2.9 MiB
  CHECK(std::lround(b * 10) == 157);  // 15.7 MiB
}

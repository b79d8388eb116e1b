// The portable floor: vksort on a Vulkan 1.2 device created with only the
// portable algorithm's features (no shaderInt64, no 64-bit atomics, no
// memory model, no Vulkan 1.3 structs), where the validation layer rejects
// any kernel that needs more. ctest runs this executable with
// VKSORT_TEST_DEVICE=floor, which makes the harness create that device.
#include <cstring>
#include <string>

#include "typed_check.h"

TEST_CASE("floor: a Vulkan 1.2 device with only the portable features refuses Onesweep, and AUTO is portable") {
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  CHECK(gCtx->apiVersion == VK_API_VERSION_1_2);
  CHECK(gCtx->requirements.extensionCount == 1);
  CHECK(std::string(gCtx->requirements.extensionNames[0]) == "VK_EXT_subgroup_size_control");
  CHECK((gCtx->requirements.shaderInt64 || gCtx->requirements.shaderBufferInt64Atomics ||
         gCtx->requirements.vulkanMemoryModel) == VK_FALSE);
  VksortCreateInfo ci = baseCreateInfo();
  ci.algorithm = VKSORT_ALGORITHM_ONESWEEP;
  VksortSorter sorter = nullptr;
  CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_FEATURE_NOT_ENABLED);
  CHECK(sorter == nullptr);
  const std::string msg = vksortGetLastError();
  MESSAGE(msg);
  for (const char* feature : {"shaderInt64", "shaderBufferInt64Atomics", "vulkanMemoryModel"})
    CHECK_MESSAGE(msg.find(feature) != std::string::npos, feature);
  CHECK(msg.find("bufferDeviceAddress") == std::string::npos);  // that one is enabled
  SorterHolder automatic;
  VksortAlgorithm algorithm;
  REQUIRE(vksortGetAlgorithm(automatic.sorter, &algorithm, nullptr) == VKSORT_SUCCESS);
  CHECK(algorithm == VKSORT_ALGORITHM_PORTABLE);
  // AUTO's sorts on the floor device, with the bitonic paths on too.
  VksortTuning bitonic{};
  bitonic.bitonicMaxCount = 256;
  bitonic.bitonicKeysMaxCount = 256;
  auto rng = caseRng(33);
  for (VksortValueType value : {VKSORT_VALUE_NONE, VKSORT_VALUE_64}) {
    SorterHolder s(&bitonic, VKSORT_KEY_F64, value);
    for (uint32_t n : {200u, 5000u})
      checkTypedSort(s, makeCase(kKeys[5], kValues[value], true, kAllBits, "floor, AUTO"),
                     makeKeys(n, kKeys[5], Dist::Special, rng));
  }
  requireNoValidationMessages();
}

TEST_CASE("floor: the bitonic kernels without 64-bit integers, every key type x value type x order") {
  // The portable algorithm's build of bitonic.comp (two-word compares and
  // addresses), with and without the index, on the device that would reject
  // a 64-bit integer.
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  VksortTuning bitonic{};
  bitonic.bitonicMaxCount = 256;
  bitonic.bitonicKeysMaxCount = 256;
  auto rng = caseRng(34);
  int variant = 0;
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      SorterHolder s(&bitonic, key.type, value.type);
      for (bool descending : {false, true})
        for (const BitRange& range : {kAllBits, BitRange{0, 16, "bits [0,16)"}})
          for (uint32_t n : {1u, 100u, 129u, 256u})
            checkTypedSort(s, makeCase(key, value, descending, range, "floor, bitonic"),
                           makeKeys(n, key, Dist(variant++ % 3), rng));
    }
}

TEST_CASE("floor: portable, every type x order x bit range, 8-bit digits") {
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 0, 27, 8);
}

TEST_CASE("floor: portable, every type x order x bit range, 4-bit digits, 32-bit keys") {
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 32, 28, 4);
}

TEST_CASE("floor: portable, every type x order x bit range, 4-bit digits, 64-bit keys") {
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 64, 29, 4);
}

TEST_CASE("floor: apiVersion 0 on a Vulkan 1.2 instance makes no invalid call, and the sorter sorts") {
  // Zero reads the device as Vulkan 1.2: no Vulkan 1.3 struct reaches the
  // 1.2 instance (the validation layer would report it).
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  VksortCreateInfo ci = baseCreateInfo();
  ci.apiVersion = 0;
  VksortSorter zero = nullptr;
  REQUIRE_MESSAGE(vksortCreateSorter(&ci, &zero) == VKSORT_SUCCESS, std::string(vksortGetLastError()));
  requireNoValidationMessages();
  SorterHolder s;  // the floor's sorter, replaced by the one made with apiVersion 0
  vksortDestroySorter(s.sorter);
  s.sorter = zero;
  auto rng = caseRng(35);
  for (uint32_t n : {300u, 70000u})
    checkTypedSort(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "floor, apiVersion 0"),
                   makeKeys(n, kKeys[0], Dist::Uniform, rng));
  requireNoValidationMessages();
}

TEST_CASE("floor: segmented sorts of a few key and value types, in every size class") {
  // The segmented kernels (the bins, the micro, tiny, subgroup and small
  // networks, and the large segments' portable passes) on the device that
  // would reject a 64-bit integer or a memory model capability: 32- and
  // 64-bit keys, with and without values, argsort, bit ranges, 8- and 4-bit
  // digits.
  REQUIRE_MESSAGE(gFloorDevice, "needs VKSORT_TEST_DEVICE=floor");
  auto rng = caseRng(36);
  struct Floor {
    const KeyInfo* key;
    const ValueInfo* value;
    bool descending;
    BitRange range;
    uint32_t radixBits;
  };
  const Floor cases[] = {
      {&kKeys[0], &kValues[1], false, kAllBits, 0},
      {&kKeys[2], &kValues[0], true, BitRange{3, 29, "bits [3,29)"}, 0},
      {&kKeys[4], &kValues[3], true, BitRange{5, 45, "bits [5,45)"}, 0},
      {&kKeys[5], &kValues[2], false, kAllBits, 0},
      {&kKeys[3], &kValues[1], false, BitRange{5, 45, "bits [5,45)"}, 4},
  };
  int variant = 0;
  for (const Floor& f : cases) {
    SegmentedSorter s(f.key->type, f.value->type, VKSORT_ALGORITHM_AUTO, f.radixBits);
    VksortAlgorithm algorithm;
    REQUIRE(vksortGetAlgorithm(s.sorter, &algorithm, nullptr) == VKSORT_SUCCESS);
    CHECK(algorithm == VKSORT_ALGORITHM_PORTABLE);
    const Dist dist = Dist(variant++ % 3);
    checkSegments(s,
                  makeCase(*f.key, *f.value, f.descending, f.range,
                           std::string("floor, segmented, ") + std::to_string(f.radixBits ? f.radixBits : 8) +
                               "-bit digits, " + distName(dist)),
                  everyClassSizes(segmentedPlan(s), rng), dist, rng);
  }
  // Bad offsets there too: past the count, decreasing, and overlapping.
  SegmentedSorter s(VKSORT_KEY_U64, VKSORT_VALUE_64);
  const VksortSegmentedSortPlan p = segmentedPlan(s);
  const uint32_t n = p.mediumMaxCount + 2 * p.tileKeys;
  const std::vector<uint64_t> keys = makeKeys(n, kKeys[3], Dist::Uniform, rng);
  const SortCase c = makeCase(kKeys[3], kValues[2], false, kAllBits, "floor, segmented, bad offsets");
  checkSegmentedSort(s, c, keys, {n - 1, 7, p.tinyMaxCount, n - 3, n + 100, 0xffffffffu});
  checkSegmentedSort(s, c, keys, {0, n, 0, n, 0, n}, 2, true);
  requireNoValidationMessages();
}

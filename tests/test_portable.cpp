// vksort tests for the portable algorithm (VKSORT_ALGORITHM_PORTABLE), forced
// on this device: the same promises as Onesweep's, checked the same way
// (typed_check.h: std::stable_sort, guard bands, validation), for every key
// type, value type, order and bit range, at 8-bit digits and at 1, 2 and 4
// bits; the indirect count; its temporary memory; and the choice of algorithm.
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

TEST_CASE("portable: every key type x value type x order x bit range, at edge sizes") {
  auto rng = caseRng(21);
  int sorts = 0;
  for (const KeyInfo& key : kKeys) {
    const BitRange ranges[] = {{0, 0, "all bits"},
                               {0, 30, "bits [0,30) (Morton)"},
                               key.bits == 32 ? BitRange{8, 20, "bits [8,20)"} : BitRange{20, 44, "bits [20,44)"}};
    for (const ValueInfo& value : kValues) {
      SorterHolder s(nullptr, key.type, value.type, VKSORT_ALGORITHM_PORTABLE);
      const uint32_t t = s.tile();
      int variant = 0;
      for (bool descending : {false, true}) {
        for (const BitRange& range : ranges) {
          const SortCase c = makeCase(key, value, descending, range, "portable");
          const Dist dist = Dist(variant++ % 3);
          for (uint32_t n : {1u, t - 1, t + 1, 65537u}) {
            checkTypedSort(s, c, makeKeys(n, key, dist, rng));
            ++sorts;
          }
        }
        // One large sort per order, over every bit: many tiles and several
        // scan blocks.
        const SortCase big = makeCase(key, value, descending, {0, 0, "all bits"}, "portable");
        checkTypedSort(s, big, makeKeys(300007u, key, Dist::Special, rng));
        ++sorts;
      }
      const SortCase empty = makeCase(key, value, false, {0, 0, "all bits"}, "portable, empty");
      checkTypedSort(s, empty, {});
      ++sorts;
    }
  }
  MESSAGE("portable typed sorts checked: " << sorts);
}

TEST_CASE("portable: 1-, 2- and 4-bit digits, every key type, value type and order") {
  // More passes (a 64-bit key at 1 bit: 64) and other result parities, so
  // small sizes only. 4 bits with every key type; 1 and 2 bits with a 32-
  // and a 64-bit type each. The value type turns with the key type, so every
  // value type is there. (Each sorter costs lavapipe seconds of compiling
  // when its shader cache is cold.)
  const struct {
    uint32_t radixBits;
    size_t key;
  } combos[] = {{4, 0}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {2, 1}, {2, 3}, {1, 0}, {1, 5}};
  auto rng = caseRng(22);
  int sorts = 0;
  for (const auto& combo : combos) {
    const uint32_t radixBits = combo.radixBits;
    const KeyInfo& key = kKeys[combo.key];
    const ValueInfo& value = kValues[(combo.key + radixBits) % 4];
    SorterHolder s(nullptr, key.type, value.type, VKSORT_ALGORITHM_PORTABLE, radixBits);
    VksortAlgorithm algorithm;
    uint32_t bits = 0;
    REQUIRE(vksortGetAlgorithm(s.sorter, &algorithm, &bits) == VKSORT_SUCCESS);
    CHECK(algorithm == VKSORT_ALGORITHM_PORTABLE);
    CHECK(bits == radixBits);
    const uint32_t t = s.tile();
    const std::string what = "portable " + std::to_string(radixBits) + "-bit";
    // Odd widths leave the last digit narrower than the others.
    const BitRange ranges[] = {{0, 0, "all bits"}, {3, 14, "bits [3,14)"}};
    int variant = 0;
    for (bool descending : {false, true})
      for (const BitRange& range : ranges) {
        const SortCase c = makeCase(key, value, descending, range, what);
        for (uint32_t n : {1u, t + 1, 2 * t + 7}) {
          checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
          ++sorts;
        }
      }
  }
  MESSAGE("portable narrow-digit sorts checked: " << sorts);
}

TEST_CASE("portable: indirect count below, at and above maxCount (clamped)") {
  auto rng = caseRng(23);
  const struct {
    uint32_t radixBits;
    const ValueInfo* value;
  } combos[] = {{8, &kValues[0]}, {4, &kValues[3]}};
  for (const auto& combo : combos) {
    const uint32_t radixBits = combo.radixBits;
    const ValueInfo* value = combo.value;
    SorterHolder s(nullptr, VKSORT_KEY_U32, value->type, VKSORT_ALGORITHM_PORTABLE, radixBits);
    const uint32_t t = s.tile();
    const uint32_t maxCount = 3 * t + 5;
    const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Few, rng);
    const std::string what = "portable " + std::to_string(radixBits) + "-bit indirect";
    const SortCase c = makeCase(kKeys[0], *value, false, {0, 0, "all bits"}, what);
    for (int64_t count : {int64_t(0), int64_t(1), int64_t(t), int64_t(maxCount - 1), int64_t(maxCount),
                          int64_t(maxCount + 7), int64_t(0xffffffffu)})
      checkTypedSort(s, c, keys, count);
    const SortCase desc = makeCase(kKeys[0], *value, true, {0, 30, "bits [0,30)"}, what);
    checkTypedSort(s, desc, keys, 2 * t + 1);
  }
  // 64-bit keys and values, many scan blocks, a count in the middle of a tile.
  SorterHolder s(nullptr, VKSORT_KEY_F64, VKSORT_VALUE_64, VKSORT_ALGORITHM_PORTABLE);
  const std::vector<uint64_t> keys = makeKeys(200003u, kKeys[5], Dist::Special, rng);
  checkTypedSort(s, makeCase(kKeys[5], kValues[2], true, {0, 0, "all bits"}, "portable indirect"), keys,
                 int64_t(123457));
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
    const uint32_t n = 5 * t + 3;
    VksortMemoryRequirements req;
    REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &req) == VKSORT_SUCCESS);
    GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage);
    VksortSortInfo si{};
    si.count = n;
    si.keys = kb.range();
    si.alt = ab.range();
    si.temp = tb.range();
    si.temp.size -= 4;
    VkCommandBuffer cmd = gCtx->beginCommands();
    VksortResultBuffer where;
    CHECK(vksortRecordSort(s.sorter, cmd, &si, &where) == VKSORT_ERROR_BUFFER_TOO_SMALL);
    MESSAGE(std::string(vksortGetLastError()));
    submitOrDie(cmd, "portable temp too small");
  }
  // Onesweep's temp stays constant.
  SorterHolder onesweep(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  VksortMemoryRequirements a, b;
  REQUIRE(vksortGetMemoryRequirements(onesweep.sorter, 1000, &a) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(onesweep.sorter, VKSORT_MAX_COUNT, &b) == VKSORT_SUCCESS);
  CHECK(a.tempSize == b.tempSize);
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

TEST_CASE("portable: debug labels and small tiles") {
  auto rng = caseRng(24);
  // Every dispatch labelled (VK_EXT_debug_utils is on in this harness).
  {
    SorterHolder s(nullptr, VKSORT_KEY_I64, VKSORT_VALUE_INDEX, VKSORT_ALGORITHM_PORTABLE, 4, true);
    checkTypedSort(s, makeCase(kKeys[4], kValues[3], true, {0, 0, "all bits"}, "portable, labels"),
                   makeKeys(4 * s.tile() + 9, kKeys[4], Dist::Special, rng));
  }
  // Tiles of a few keys (128 is the smallest that 8-bit digits allow): many
  // tiles and many scan blocks for few keys.
  const uint32_t wg = std::max(64u, deviceSubgroupSize());
  for (uint32_t kpt : {2u, 3u}) {
    VksortTuning tuning{};
    tuning.workgroupSize = wg;
    tuning.keysPerThread = kpt;
    const uint32_t radixBits = kpt == 2 ? 8 : 2;
    SorterHolder s(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_32, VKSORT_ALGORITHM_PORTABLE, radixBits);
    const std::string what = "portable, " + std::to_string(wg) + " x " + std::to_string(kpt) + " tiles, " +
                             std::to_string(radixBits) + "-bit";
    for (uint32_t n : {wg - 1, wg + 1, 70001u})
      checkTypedSort(s, makeCase(kKeys[0], kValues[1], false, {0, 0, "all bits"}, what),
                     makeKeys(n, kKeys[0], Dist::Uniform, rng));
  }
  // More scan blocks than one workgroup scans at once (2048; 2149 with tiles
  // of 128 keys): the scan of the block sums carries from chunk to chunk.
  VksortTuning tuning{};
  tuning.workgroupSize = wg;
  tuning.keysPerThread = 2;
  SorterHolder s(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE, 8);
  const uint32_t n = 2148 * 2048 / 256 * (2 * wg) + 1;  // 2148 full blocks and one more entry
  checkTypedSort(s, makeCase(kKeys[0], kValues[0], false, {0, 16, "bits [0,16)"}, "portable, 2149 scan blocks"),
                 makeKeys(n, kKeys[0], Dist::Uniform, rng));
}

TEST_CASE("both algorithms: workgroup sizes that are not powers of two") {
  // 3, 5 and 12 subgroups: digit loops over 256 digits then take different
  // numbers of turns in different invocations, and the digit scan gives the
  // last invocations fewer digits than the others.
  auto rng = caseRng(25);
  const uint32_t sg = deviceSubgroupSize();
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    for (uint32_t wg : {3 * sg, 5 * sg, 12 * sg}) {
      if (wg > 1024) continue;
      VksortTuning tuning{};
      tuning.workgroupSize = wg;
      tuning.keysPerThread = 8;
      SorterHolder s(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_INDEX, algorithm);
      const std::string what = std::string(algorithm == VKSORT_ALGORITHM_ONESWEEP ? "Onesweep" : "portable") +
                               ", workgroupSize " + std::to_string(wg);
      for (uint32_t n : {s.tile(), 5 * s.tile() + 3})
        checkTypedSort(s, makeCase(kKeys[0], kValues[3], false, {0, 0, "all bits"}, what),
                       makeKeys(n, kKeys[0], Dist::Uniform, rng));
    }
  }
}

TEST_CASE("both algorithms: 64-bit keys and values staged a word at a time") {
  // Tiles too large for both words of every 64-bit item in shared memory:
  // the kernels stage the low words, then the high words (tile_sort.glsl,
  // ONE_WORD_STAGING; the default shape on NVIDIA, never on lavapipe by
  // default).
  auto rng = caseRng(26);
  const uint32_t sg = deviceSubgroupSize();
  const uint32_t maxShared = gCtx->properties.limits.maxComputeSharedMemorySize;
  const uint32_t wg = std::min(16 * sg, 512u);
  // Room for the tile at one word per key beside the kernels' other shared
  // arrays (about 1,100 words: onesweepSharedBytes in vksort.cpp).
  const uint32_t kpt = std::min(40u, (maxShared / 4 - 1100 - wg / sg) / wg);
  REQUIRE(2 * wg * kpt * 4 > maxShared);
  struct Type {
    int key, value;
    bool descending;
    uint32_t endBit;  // 0: all bits; 24: three passes, so a step repeated every pass does not cancel out
  };
  const Type types[] = {{3, 0, false, 0}, {4, 1, true, 0},   {0, 2, false, 0},
                        {5, 2, true, 0},  {0, 2, false, 24}, {4, 3, false, 0}};
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    for (const Type& t : types) {
      VksortTuning tuning{};
      tuning.workgroupSize = wg;
      tuning.keysPerThread = kpt;
      SorterHolder s(&tuning, kKeys[t.key].type, kValues[t.value].type, algorithm);
      const std::string what = std::string(algorithm == VKSORT_ALGORITHM_ONESWEEP ? "Onesweep" : "portable") + ", " +
                               std::to_string(wg) + " x " + std::to_string(kpt) + " tiles";
      for (uint32_t n : {s.tile() - 1, s.tile() + 1, 3 * s.tile() + 7})
        checkTypedSort(s,
                       makeCase(kKeys[t.key], kValues[t.value], t.descending,
                                {0, t.endBit, t.endBit ? "bits [0,24)" : "all bits"}, what),
                       makeKeys(n, kKeys[t.key], Dist::Uniform, rng));
    }
  }
}

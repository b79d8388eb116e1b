// The header's paths by count and shape (VksortTuning), each at its
// boundaries: the bitonic networks, the one-workgroup kernels (in shared
// memory or through the buffers, wide), the mid-size path, the portable digit
// widths and tiles, and 64-bit items staged a word at a time.
#include <algorithm>
#include <string>
#include <vector>

#include "typed_check.h"

TEST_CASE("sorts every edge size: 0, 1, 2, tile +- 1, 2^k +- 1, primes, 1M, 4M" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  SorterHolder s;
  const uint32_t t = s.tile();
  std::vector<uint32_t> sizes = {0,     1,         2,    3,      t - 1,   t,        t + 1,   2 * t - 1,
                                 2 * t, 2 * t + 1, 7919, 104729, 1299709, 1u << 20, 1u << 22};
  for (uint32_t k : {4u, 8u, 10u, 13u, 16u, 17u}) {
    sizes.push_back((1u << k) - 1);
    sizes.push_back((1u << k) + 1);
  }
  const uint32_t small = s.oneWorkgroupKeys();  // the first one-workgroup kernel up to here
  for (uint32_t n : {small - 1, small, small + 1}) sizes.push_back(n);
  // Where the other paths end, where they are on (on lavapipe by default
  // only the one-workgroup path, which ends at `small`).
  VksortTuning tuning;
  REQUIRE(vksortGetTuning(s.sorter, &tuning) == VKSORT_SUCCESS);
  for (uint32_t end :
       {tuning.oneWorkgroupMaxCount, tuning.midsizeMaxCount, tuning.bitonicMaxCount, tuning.bitonicKeysMaxCount})
    if (end != VKSORT_TUNING_OFF)
      for (uint32_t n : {end - 1, end, end + 1}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  auto rng = caseRng(1);
  const SortCase c = makeCase(kKeys[0], kValues[0], false, kAllBits, "edge sizes, uniform");
  for (uint32_t n : sizes) checkTypedSort(s, c, makeKeys(n, kKeys[0], Dist::Uniform, rng));
}

TEST_CASE("the bitonic path: every key type x value type x order x bit range, both algorithms" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  // One workgroup, a bitonic network over (key, index) pairs (on by default
  // on NVIDIA only). Bit ranges of 2, 3 and 4 or 8 passes leave the result in
  // keys (written over the input) or in alt; counts from 1 to the capacity,
  // then one past it (the radix sort's one-workgroup path). Up to 128 the
  // kernel of half the capacity sorts. Keys-only sorters run twice: with
  // the network over the keys alone off (the indexed one sorts all bits
  // too), and on up to 256 keys, where it sorts every "all bits" case
  // (kernels of 256, 128 and 64 keys) and the indexed one the others.
  auto rng = caseRng(18);
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
    for (const KeyInfo& key : kKeys) {
      const BitRange ranges[] = {{0, 0, "all bits"},
                                 {0, 16, "bits [0,16)"},
                                 key.bits == 32 ? BitRange{8, 32, "bits [8,32)"} : BitRange{20, 44, "bits [20,44)"}};
      for (const ValueInfo& value : kValues)
        for (uint32_t keysMax : {VKSORT_TUNING_OFF, 256u}) {
          // The portable algorithm's passes are 8-bit too: the same result buffers.
          if (algorithm == VKSORT_ALGORITHM_PORTABLE && (&value != &kValues[1] || key.bits != 32)) continue;
          if (keysMax != VKSORT_TUNING_OFF && value.type != VKSORT_VALUE_NONE) continue;
          VksortTuning tuning{};
          tuning.bitonicMaxCount = 256;
          tuning.bitonicKeysMaxCount = keysMax;
          SorterHolder s(&tuning, key.type, value.type, algorithm);
          int variant = 0;
          for (bool descending : {false, true})
            for (const BitRange& range : ranges) {
              SortCase c{&key, &value, descending, range.begin, range.end, ""};
              c.label = std::string(keysMax == VKSORT_TUNING_OFF ? "bitonic, " : "bitonic without index up to 256, ") +
                        (algorithm == VKSORT_ALGORITHM_PORTABLE ? "portable, " : "") + key.name + ", " + value.name +
                        (descending ? ", descending, " : ", ascending, ") + range.name;
              for (uint32_t n : {1u, 2u, 3u, 17u, 63u, 64u, 65u, 100u, 128u, 129u, 255u, 256u, 257u})
                checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
            }
        }
    }
  // A sorter with values has no network without the index, whatever the
  // tuning asks.
  {
    VksortTuning tuning{};
    tuning.bitonicKeysMaxCount = 256;
    SorterHolder s(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_32);
    VksortTuning got;
    REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
    CHECK(got.bitonicKeysMaxCount == VKSORT_TUNING_OFF);
  }
  // An indirect count within the bitonic path, clamped to maxCount: argsort
  // (the network with the index) and keys only (without it).
  VksortTuning tuning{};
  tuning.bitonicMaxCount = 256;
  tuning.bitonicKeysMaxCount = 256;
  const std::vector<uint64_t> keys = makeKeys(200, kKeys[0], Dist::Few, rng);
  for (const ValueInfo* value : {&kValues[3], &kValues[0]}) {
    SorterHolder s(&tuning, VKSORT_KEY_U32, value->type);
    SortCase c{&kKeys[0], value, false, 0, 0, std::string("bitonic, indirect, ") + value->name};
    for (int64_t count : {int64_t(0), int64_t(1), int64_t(100), int64_t(200), int64_t(207), int64_t(0xffffffffu)})
      checkTypedSort(s, c, keys, count);
  }
}

TEST_CASE("the one-workgroup path through the buffers, when keys and values do not fit in shared memory") {
  // The one-workgroup path keeps keys and values in shared memory between
  // passes where they fit together; otherwise (64-bit keys with values in
  // the default 512 x 8 shape on NVIDIA) its passes go through the keys and
  // alt buffers. A 128 x K shape whose keys fit but whose keys plus 64-bit
  // values do not takes the buffer path on any device (lavapipe: K = 17).
  auto rng = caseRng(16);
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(gCtx->physicalDevice, &props);
  VksortTuning tuning{};
  tuning.oneWorkgroupSize = 128;
  tuning.oneWorkgroupKeysPerThread = props.limits.maxComputeSharedMemorySize / (128 * 16) + 1;  // 16 bytes per key
  for (const ValueInfo* value : {&kValues[2], &kValues[3], &kValues[0]}) {
    SorterHolder s(&tuning, VKSORT_KEY_I64, value->type, VKSORT_ALGORITHM_ONESWEEP);
    const uint32_t small = s.oneWorkgroupKeys();
    REQUIRE(small == 128 * tuning.oneWorkgroupKeysPerThread);
    const BitRange ranges[] = {{0, 0, "all bits"}, {20, 44, "bits [20,44)"}, {0, 16, "bits [0,16)"}};
    int variant = 0;
    for (const BitRange& range : ranges)
      for (bool descending : {false, true}) {
        SortCase c{&kKeys[4], value, descending, range.begin, range.end, ""};
        c.label = std::string("one workgroup, 128 x ") + std::to_string(tuning.oneWorkgroupKeysPerThread) + ", i64, " +
                  value->name + (descending ? ", descending, " : ", ascending, ") + range.name;
        for (uint32_t n : {2u, small / 2 + 1, small})
          checkTypedSort(s, c, makeKeys(n, kKeys[4], Dist(variant++ % 3), rng));
      }
  }
}

TEST_CASE("the one-workgroup path with more than 32 keys per invocation, partly filled") {
  // With 33 or more keys per invocation lavapipe keeps the per-key loops as
  // loops, and a partly filled tile leaves some subgroups without keys. When
  // those skipped the loops (fewer turns than the others), lavapipe sorted
  // wrongly and wrote outside its buffers (session 5; README driver notes).
  auto rng = caseRng(17);
  VksortTuning tuning{};
  tuning.oneWorkgroupSize = 64;
  tuning.oneWorkgroupKeysPerThread = 33;
  for (const KeyInfo* key : {&kKeys[0], &kKeys[4]})
    for (const ValueInfo* value : {&kValues[0], &kValues[1]}) {
      SorterHolder s(&tuning, key->type, value->type, VKSORT_ALGORITHM_ONESWEEP);
      const uint32_t small = s.oneWorkgroupKeys();
      REQUIRE(small == 64 * 33);
      SortCase c{key, value, false, 0, 0, std::string("64 x 33, ") + key->name + ", " + value->name};
      for (uint32_t n : {2u, 100u, small / 2 + 1, small - 1, small})
        checkTypedSort(s, c, makeKeys(n, *key, Dist::Uniform, rng));
    }
}

TEST_CASE("the wide one-workgroup kernel: every key type x value type, up to oneWorkgroupMaxCount") {
  // Counts above the one-workgroup shape's (64 x 4) and up to oneWorkgroupMaxCount (twice
  // that) go to a one-workgroup kernel of 128 invocations (on by default on
  // NVIDIA only, for 32-bit keys without values, up to 1.25 times); one
  // more goes to the mid-size path.
  auto rng = caseRng(19);
  VksortTuning tuning{};
  tuning.oneWorkgroupSize = 64;
  tuning.oneWorkgroupKeysPerThread = 4;
  tuning.oneWorkgroupMaxCount = 512;
  tuning.midsizeMaxCount = 1u << 14;
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      SorterHolder s(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP);
      VksortTuning got;
      REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
      REQUIRE(got.oneWorkgroupMaxCount == 512);
      int variant = 0;
      for (bool descending : {false, true}) {
        SortCase c{&key, &value, descending, 0, descending ? 24u : 0u, ""};
        c.label = std::string(key.name) + ", " + value.name +
                  (descending ? ", descending, bits [0,24)" : ", ascending") + ", wide one-workgroup kernel";
        for (uint32_t n : {257u, 300u, 511u, 512u, 513u})
          checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
      }
    }
  // A count between the one-workgroup shape's and twice it ends the wide
  // kernel there.
  tuning.oneWorkgroupMaxCount = 320;
  SorterHolder between(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_32, VKSORT_ALGORITHM_ONESWEEP);
  for (uint32_t n : {319u, 320u, 321u})
    checkTypedSort(between, SortCase{&kKeys[0], &kValues[1], false, 0, 0, "u32, u32, wide kernel up to 320"},
                   makeKeys(n, kKeys[0], Dist::Uniform, rng));
  // The default without a one-workgroup shape of one's own: doubled on NVIDIA only
  // where it fits; a given one-workgroup shape keeps one kernel.
  VksortTuning shape{};
  shape.oneWorkgroupSize = 64;
  SorterHolder s(&shape, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  VksortTuning got;
  REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
  CHECK(got.oneWorkgroupMaxCount == got.oneWorkgroupSize * got.oneWorkgroupKeysPerThread);
}

TEST_CASE("the mid-size path: Onesweep in the one-workgroup tiles, up to midsizeMaxCount" *
          doctest::test_suite(kSuiteFaults)) {
  // On by default on NVIDIA only, so turned on here: counts above the
  // one-workgroup path and up to midsizeMaxCount go through Onesweep in tiles
  // of the one-workgroup shape (with half the keys per invocation up to
  // half of midsizeMaxCount), one more is the regular tile. Also with a tiny ring,
  // no patience and delayed status, as in the faults case.
  // (midsizeMaxCount, ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  const uint32_t shapes[][6] = {{1u << 17, 0, 0, 0, 0, 0}, {1u << 17, 5, 2, 2, 1, 40}, {1u << 17, 0, 0, 0, 2, 1000}};
  auto rng = caseRng(9);
  for (auto& sh : shapes) {
    FaultShape f = faultTuning(sh + 1);
    f.tuning.midsizeMaxCount = sh[0];
    SorterHolder s(&f.tuning, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 0, false, &f.hooks);
    VksortTuning got;
    REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
    REQUIRE(got.midsizeMaxCount == sh[0]);
    const uint32_t small = s.oneWorkgroupKeys(), m = sh[0];
    const std::string label = faultLabel("mid-size, ", sh + 1);
    const SortCase c = makeCase(kKeys[0], kValues[0], false, kAllBits, label);
    // Tiles of half the keys per invocation up to m / 2.
    for (uint32_t n :
         {small + 1, 2 * small - 1, 2 * small + 1, 7 * small + 3, 7919u, m / 2, m / 2 + 1, 104729u, m, m + 1})
      checkTypedSort(s, c, makeKeys(n, kKeys[0], Dist::Uniform, rng));
    checkTypedSort(s, c, makeKeys(9 * small, kKeys[0], Dist::Few, rng));
  }
  // Up to the one-workgroup paths' count, the mid-size path is off (and reported so).
  VksortTuning off{};
  off.midsizeMaxCount = 1;
  SorterHolder s(&off, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  VksortTuning got;
  REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
  CHECK(got.midsizeMaxCount == VKSORT_TUNING_OFF);
  checkTypedSort(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "mid-size path off"),
                 makeKeys(3 * s.oneWorkgroupKeys() + 1, kKeys[0], Dist::Uniform, rng));
}

TEST_CASE("chained passes up to chainedMaxCount, a dispatch per pass above it, every key type x value type") {
  // chainedMaxCount set to a few tiles: counts up to it run every pass in
  // one dispatch, one more a dispatch per pass; with an indirect count the
  // recorded count decides, and a live count below a tile leaves the later
  // passes' items empty. Each key and value type, both orders, a bit range
  // of three passes (result in alt) on u32 keys; and off.
  auto rng = caseRng(31);
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      VksortTuning tuning{};
      SorterHolder probe(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP);
      tuning.chainedMaxCount = 3 * probe.tile();
      SorterHolder s(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP);
      VksortTuning got;
      REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
      REQUIRE(got.chainedMaxCount == tuning.chainedMaxCount);
      const uint32_t m = tuning.chainedMaxCount;
      int variant = 0;
      for (bool descending : {false, true}) {
        SortCase c{&key, &value, descending, 0, 0, ""};
        if (key.type == VKSORT_KEY_U32 && descending) c.endBit = 24;
        c.label = std::string(key.name) + ", " + value.name + (descending ? ", descending" : ", ascending") +
                  (c.endBit ? ", bits [0, 24)" : "") + ", chainedMaxCount " + std::to_string(m);
        for (uint32_t n : {m - 1, m, m + 1}) checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
      }
    }
  // With an indirect count the recorded count (maxCount) decides; live
  // counts from one key (sorted by the first kernel, every item after it
  // empty) to maxCount.
  {
    VksortTuning tuning{};
    SorterHolder probe(&tuning, VKSORT_KEY_U32, kValues[3].type, VKSORT_ALGORITHM_ONESWEEP);
    tuning.chainedMaxCount = 3 * probe.tile();
    SorterHolder s(&tuning, VKSORT_KEY_U32, kValues[3].type, VKSORT_ALGORITHM_ONESWEEP);
    const uint32_t t = s.tile(), m = tuning.chainedMaxCount;
    for (uint32_t maxCount : {m, m + 1}) {
      const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Few, rng);
      const SortCase c =
          makeCase(kKeys[0], kValues[3], false, kAllBits,
                   "indirect, maxCount " + std::to_string(maxCount) + ", chainedMaxCount " + std::to_string(m));
      for (int64_t count : {int64_t(1), int64_t(s.oneWorkgroupKeys() + 1), int64_t(t + 1), int64_t(maxCount)})
        checkTypedSort(s, c, keys, count);
    }
  }
  VksortTuning off{};
  off.chainedMaxCount = VKSORT_TUNING_OFF;
  SorterHolder s(&off, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  VksortTuning got;
  REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
  CHECK(got.chainedMaxCount == VKSORT_TUNING_OFF);
  checkTypedSort(s, makeCase(kKeys[0], kValues[0], false, kAllBits, "chained passes off"),
                 makeKeys(5 * s.tile() + 3, kKeys[0], Dist::Uniform, rng));
}

TEST_CASE("an indirect count runs its passes in the tile shape of its live count") {
  // Only the chain of the tile shape that a direct sort of the live count
  // takes sorts: mid-size half tiles, mid-size tiles or the tile shape,
  // each chained or a dispatch per pass. Live
  // counts at each shape's ends, with every pass chained, the smallest
  // shape alone chained, and none.
  auto rng = caseRng(33);
  VksortTuning tuning{};
  tuning.midsizeMaxCount = 1u << 16;
  SorterHolder probe(&tuning, VKSORT_KEY_U32, kValues[3].type, VKSORT_ALGORITHM_ONESWEEP);
  const uint32_t m = tuning.midsizeMaxCount, maxCount = m + 3 * probe.tile() + 5;
  for (uint32_t chained : {1u << 20, m / 2, uint32_t(VKSORT_TUNING_OFF)}) {
    tuning.chainedMaxCount = chained;
    SorterHolder s(&tuning, VKSORT_KEY_U32, kValues[3].type, VKSORT_ALGORITHM_ONESWEEP);
    const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Uniform, rng);
    const SortCase c = makeCase(kKeys[0], kValues[3], false, kAllBits,
                                "indirect, maxCount " + std::to_string(maxCount) + ", chainedMaxCount " +
                                    (chained == VKSORT_TUNING_OFF ? std::string("off") : std::to_string(chained)));
    for (uint32_t count : {s.oneWorkgroupKeys() + 1, m / 2, m / 2 + 1, m, m + 1, maxCount})
      checkTypedSort(s, c, keys, int64_t(count));
  }
}

TEST_CASE("an indirect count runs the path of its live count: the bitonic kernel, one workgroup, or the passes") {
  // The one-workgroup kernel sorts a live count only where a direct sort of
  // it would take the one-workgroup path (here a wide kernel of 512 keys
  // that ends at 400), the bitonic kernel beside it smaller ones (keys-only
  // up to 128 where a sort covers every key bit, else with the index up to
  // 64), and the passes larger ones. Bit ranges of 3 and 4
  // passes leave the result in alt and in keys, where the bitonic kernel
  // writes it too.
  auto rng = caseRng(34);
  VksortTuning tuning{};
  tuning.bitonicMaxCount = 64;
  tuning.bitonicKeysMaxCount = 128;
  tuning.oneWorkgroupSize = 64;
  tuning.oneWorkgroupKeysPerThread = 4;
  tuning.oneWorkgroupMaxCount = 400;
  const BitRange ranges[] = {kAllBits, {0, 24, "bits [0,24)"}};
  for (const ValueInfo* value : {&kValues[0], &kValues[1], &kValues[3]}) {
    SorterHolder s(&tuning, VKSORT_KEY_U32, value->type, VKSORT_ALGORITHM_ONESWEEP);
    const uint32_t maxCount = 2 * s.tile() + 513;
    const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Few, rng);
    for (const BitRange& range : ranges)
      for (bool descending : {false, true}) {
        const SortCase c =
            makeCase(kKeys[0], *value, descending, range, "indirect, maxCount " + std::to_string(maxCount));
        for (uint32_t count : {0u, 1u, 63u, 64u, 65u, 128u, 129u, 400u, 401u, 512u, 513u, maxCount, ~0u})
          checkTypedSort(s, c, keys, int64_t(count));
      }
  }
}

TEST_CASE("the mid-size path sorts every key type x value type") {
  // Onesweep in the one-workgroup tiles, every pass in one dispatch, as on
  // NVIDIA (where both are on by default).
  auto rng = caseRng(14);
  VksortTuning tuning{};
  tuning.midsizeMaxCount = 1u << 16;
  tuning.chainedMaxCount = 1u << 20;
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      SorterHolder s(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP);
      const uint32_t small = s.oneWorkgroupKeys();
      int variant = 0;
      for (bool descending : {false, true}) {
        SortCase c{&key, &value, descending, 0, 0, ""};
        c.label = std::string(key.name) + ", " + value.name + (descending ? ", descending" : ", ascending") +
                  ", mid-size path";
        for (uint32_t n : {small + 1, 5 * small + 7}) checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
      }
    }
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

TEST_CASE("portable: small tiles and many scan blocks") {
  auto rng = caseRng(24);
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
  // arrays (about 1,100 words, and one padding word per 32: onesweepSharedBytes in tuning.cpp).
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

namespace {

// Sorts of every kind of item through tiles of wg x keysPerThread keys staged
// in `rounds` rounds, at a partial tile, a tile and a key, and three tiles
// and a few keys; returns the number of sorts.
int checkRounds(VksortAlgorithm algorithm, uint32_t radixBits, uint32_t wg, uint32_t keysPerThread, uint32_t rounds,
                std::mt19937_64& rng) {
  struct Type {
    int key, value;
    bool descending;
    uint32_t endBit;  // 0: all bits
  };
  const Type types[] = {{0, 0, false, 0}, {2, 1, true, 0}, {1, 3, false, 24}, {3, 2, false, 0}, {5, 0, true, 0}};
  int sorts = 0;
  for (const Type& t : types) {
    VksortTuning tuning{};
    tuning.workgroupSize = wg;
    tuning.keysPerThread = keysPerThread;
    tuning.stagingRounds = rounds;
    tuning.midsizeMaxCount = VKSORT_TUNING_OFF;
    tuning.oneWorkgroupSize = std::min(wg, 64u);  // every count here above the one-workgroup path's
    tuning.oneWorkgroupKeysPerThread = 1;
    SorterHolder s(&tuning, kKeys[t.key].type, kValues[t.value].type, algorithm, radixBits);
    VksortTuning used{};
    REQUIRE(vksortGetTuning(s.sorter, &used) == VKSORT_SUCCESS);
    REQUIRE(used.stagingRounds == rounds);
    const std::string what = std::string(algorithm == VKSORT_ALGORITHM_ONESWEEP ? "Onesweep" : "portable") + ", " +
                             std::to_string(wg) + " x " + std::to_string(keysPerThread) + " tiles in " +
                             std::to_string(rounds) + " rounds";
    for (uint32_t n : {s.tile() - 1, s.tile() + 1, 3 * s.tile() + 7}) {
      checkTypedSort(s,
                     makeCase(kKeys[t.key], kValues[t.value], t.descending,
                              {0, t.endBit, t.endBit ? "bits [0,24)" : "all bits"}, what),
                     makeKeys(n, kKeys[t.key], Dist::Uniform, rng));
      ++sorts;
    }
  }
  return sorts;
}

}  // namespace

TEST_CASE("both algorithms: the sorted tile staged in rounds") {
  // The tile's keys and values stay in registers and go out through shared
  // memory in stagingRounds rounds (tile_sort.glsl): rounds of equal and of
  // unequal size, and one key per invocation per round.
  auto rng = caseRng(35);
  const uint32_t wg = std::min(16 * deviceSubgroupSize(), 512u);
  struct Shape {
    uint32_t keysPerThread, rounds;
  };
  const Shape shapes[] = {{8, 2}, {7, 3}, {5, 5}};
  int sorts = 0;
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
    for (const Shape& shape : shapes) sorts += checkRounds(algorithm, 0, wg, shape.keysPerThread, shape.rounds, rng);
  MESSAGE("sorts with the tile staged in rounds checked: " << sorts);
}

TEST_CASE("portable: 64-bit items staged a word at a time in each round") {
  // Rounds too large for both words of every 64-bit item: each round stages
  // the low words, then the high words. 4-bit digits keep the per-subgroup
  // histograms small, so that 256 invocations with few keys each fill a
  // round (the code is tile_sort.glsl's, which Onesweep shares).
  auto rng = caseRng(36);
  const uint32_t maxShared = gCtx->properties.limits.maxComputeSharedMemorySize;
  const uint32_t wg = 256;                          // lavapipe's largest workgroup with full subgroups of 8
  const uint32_t round = maxShared / (8 * wg) + 1;  // keys per invocation per round
  REQUIRE(2 * wg * round * 4 > maxShared);
  checkRounds(VKSORT_ALGORITHM_PORTABLE, 4, wg, 2 * round - 1, 2, rng);
}

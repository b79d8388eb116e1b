// The header's "What it sorts", for both algorithms: every key type x value
// type x order x bit range, floats by IEEE-754 totalOrder, key distributions
// and the indirect count (clamped), against std::stable_sort (typed_check.h).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "typed_check.h"

namespace {

// An indirect count below, at and above maxCount (clamped; maxCount three
// tiles and a few keys), and a descending 30-bit sort of a count in the
// middle.
void indirectCounts(const SorterHolder& s, const ValueInfo& value, const std::string& what, std::mt19937_64& rng) {
  const uint32_t t = s.tile();
  const uint32_t maxCount = 3 * t + 5;
  const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Few, rng);
  const SortCase c = makeCase(kKeys[0], value, false, kAllBits, what);
  // Onesweep's first dispatch sorts a live count up to the one-workgroup
  // path's size itself, and sizes the others to larger ones.
  const int64_t oneWorkgroup = s.oneWorkgroupKeys();
  for (int64_t count : {int64_t(0), int64_t(1), oneWorkgroup, oneWorkgroup + 1, int64_t(t), int64_t(maxCount - 1),
                        int64_t(maxCount), int64_t(maxCount + 7), int64_t(0xffffffffu)})
    checkTypedSort(s, c, keys, count);
  checkTypedSort(s, makeCase(kKeys[0], value, true, {0, 30, "bits [0,30)"}, what), keys, 2 * t + 1);
}

}  // namespace

// Onesweep's in two halves, which ctest can run side by side.
TEST_CASE("every key type x value type x order x bit range, at edge sizes: 32-bit keys") {
  everyTypeOrderAndRange(VKSORT_ALGORITHM_ONESWEEP, 32, 11);
}

TEST_CASE("every key type x value type x order x bit range, at edge sizes: 64-bit keys") {
  everyTypeOrderAndRange(VKSORT_ALGORITHM_ONESWEEP, 64, 10);
}

TEST_CASE("portable: every key type x value type x order x bit range, at edge sizes") {
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 0, 21);
}

// The smallest limits Vulkan allows: shapes chosen for 16 KiB of shared
// memory and 128 invocations per workgroup.
TEST_CASE("portable: every type within 16 KiB of shared memory and 128 invocations, 8-bit digits") {
  const VksortTestingHooks smallest{0, 0, 16 * 1024, 128};
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 0, 25, 8, &smallest);
}

TEST_CASE("portable: every type within 16 KiB of shared memory and 128 invocations, 4-bit digits") {
  const VksortTestingHooks smallest{0, 0, 16 * 1024, 128};
  everyTypeOrderAndRange(VKSORT_ALGORITHM_PORTABLE, 0, 26, 4, &smallest);
}

TEST_CASE("floats follow IEEE-754 totalOrder in both directions" * doctest::test_suite(kSuiteSubgroupSizes)) {
  // -NaN < -inf < -max < -1 < -denormal < -0 < +0 < +denormal < 1 < max < +inf < +NaN,
  // written out here rather than taken from the CPU reference's order rule.
  const float f32[] = {-std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::max(),
                       -1.0f,
                       -std::numeric_limits<float>::denorm_min(),
                       -0.0f,
                       0.0f,
                       std::numeric_limits<float>::denorm_min(),
                       1.0f,
                       std::numeric_limits<float>::max(),
                       std::numeric_limits<float>::infinity()};
  std::vector<uint64_t> expected32 = {0xffc00000u};  // -NaN
  for (float x : f32) {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    expected32.push_back(b);
  }
  expected32.push_back(0x7fc00000u);  // +NaN
  const double f64[] = {-std::numeric_limits<double>::infinity(), -1.0, -0.0, 0.0, 1.0,
                        std::numeric_limits<double>::infinity()};
  std::vector<uint64_t> expected64 = {0xfff8000000000000ull};
  for (double x : f64) {
    uint64_t b;
    std::memcpy(&b, &x, 8);
    expected64.push_back(b);
  }
  expected64.push_back(0x7ff8000000000000ull);

  auto rng = caseRng(12);
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
    for (int which = 0; which < 2; ++which) {
      const KeyInfo& key = kKeys[which == 0 ? 2 : 5];
      const std::vector<uint64_t>& ascending = which == 0 ? expected32 : expected64;
      SorterHolder s(nullptr, key.type, VKSORT_VALUE_NONE, algorithm);
      for (bool descending : {false, true}) {
        std::vector<uint64_t> keys = ascending, expected = ascending;
        std::shuffle(keys.begin(), keys.end(), rng);
        if (descending) std::reverse(expected.begin(), expected.end());
        checkTypedSort(
            s, makeCase(key, kValues[0], descending, kAllBits, "totalOrder, " + std::string(algorithmName(algorithm))),
            keys, -1, &expected);
      }
    }
}

TEST_CASE("sorts every distribution") {
  auto rng = caseRng(2);
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_NONE, algorithm);
    const uint32_t t = s.tile();
    for (Dist d :
         {Dist::Uniform, Dist::AllEqual, Dist::Few, Dist::Sorted, Dist::Reversed, Dist::HighByte, Dist::Special})
      for (uint32_t n : {t + 1, 7 * t + 3, 100003u})
        checkTypedSort(
            s,
            makeCase(kKeys[0], kValues[0], false, kAllBits, std::string(algorithmName(algorithm)) + ", " + distName(d)),
            makeKeys(n, kKeys[0], d, rng));
  }
}

TEST_CASE("indirect count: below, at and above maxCount (clamped)" * doctest::test_suite(kSuiteSubgroupSizes)) {
  auto rng = caseRng(13);
  for (const ValueInfo* value : {&kValues[0], &kValues[3]}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, value->type, VKSORT_ALGORITHM_ONESWEEP);
    indirectCounts(s, *value, "Onesweep indirect", rng);
    // maxCount within the one-workgroup path.
    const uint32_t small = s.oneWorkgroupKeys();
    const std::vector<uint64_t> few = makeKeys(small, kKeys[0], Dist::Few, rng);
    const SortCase c = makeCase(kKeys[0], *value, false, kAllBits, "Onesweep indirect, one workgroup");
    for (int64_t count : {int64_t(0), int64_t(1), int64_t(small / 2 + 1), int64_t(small), int64_t(small + 3)})
      checkTypedSort(s, c, few, count);
  }
}

TEST_CASE("portable: indirect count below, at and above maxCount (clamped)" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  auto rng = caseRng(23);
  const struct {
    uint32_t radixBits;
    const ValueInfo* value;
  } combos[] = {{8, &kValues[0]}, {4, &kValues[3]}};
  for (const auto& combo : combos) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, combo.value->type, VKSORT_ALGORITHM_PORTABLE, combo.radixBits);
    indirectCounts(s, *combo.value, "portable " + std::to_string(combo.radixBits) + "-bit indirect", rng);
  }
  // 64-bit keys and values, many scan blocks, a count in the middle of a tile.
  SorterHolder s(nullptr, VKSORT_KEY_F64, VKSORT_VALUE_64, VKSORT_ALGORITHM_PORTABLE);
  const std::vector<uint64_t> keys = makeKeys(200003u, kKeys[5], Dist::Special, rng);
  checkTypedSort(s, makeCase(kKeys[5], kValues[2], true, kAllBits, "portable indirect"), keys, int64_t(123457));
}

// Segmented sorts (vksortRecordSegmentedSort): every segment sorted on its
// own and stable, at the size classes' edges, against std::stable_sort per
// segment (typed_check.h, checkSegmentedSort).
#include <algorithm>
#include <string>
#include <vector>

#include "typed_check.h"

namespace {

// CSR offsets of segments of the given sizes, from `first`.
std::vector<uint32_t> offsetsOf(const std::vector<uint32_t>& sizes, uint32_t first = 0) {
  std::vector<uint32_t> offsets{first};
  for (uint32_t size : sizes) offsets.push_back(offsets.back() + size);
  return offsets;
}

VksortSegmentedSortPlan segmentedPlan(const SorterHolder& s, uint32_t count) {
  VksortSegmentedSortInfo info{};
  info.sort.count = count;
  info.segmentCount = 1;
  VksortSegmentedSortPlan plan;
  REQUIRE(vksortGetSegmentedSortPlan(s.sorter, &info, &plan) == VKSORT_SUCCESS);
  return plan;
}

}  // namespace

TEST_CASE("segmented: sizes around every class boundary, both algorithms" * doctest::test_suite(kSuiteSubgroupSizes)) {
  for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm, 0, false, nullptr, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s, 1 << 16);
    std::mt19937_64 rng = caseRng(1);
    std::vector<uint32_t> sizes;
    for (uint32_t edge : {1u, p.tinyMaxCount, p.smallMaxCount, p.smallMaxCount + p.tileKeys})
      for (uint32_t d : {0u, 1u, 2u})
        if (edge + d >= 1) sizes.push_back(edge + d - 1);
    sizes.push_back(0);
    sizes.push_back(3 * p.tileKeys + 17);
    uint32_t total = 5;
    for (uint32_t size : sizes) total += size;
    const std::vector<uint32_t> offsets = offsetsOf(sizes, 3);
    const std::vector<uint64_t> keys = makeKeys(total, kKeys[0], Dist::Few, rng);
    checkSegmentedSort(
        s, makeCase(kKeys[0], kValues[1], false, kAllBits, std::string("segmented ") + algorithmName(algorithm)), keys,
        offsets);
  }
}

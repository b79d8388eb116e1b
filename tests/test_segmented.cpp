// Segmented sorts (vksortRecordSegmentedSort): every segment sorted on its
// own and stable, at the size classes' edges, against std::stable_sort per
// segment (typed_check.h, checkSegmentedSort), with keys and values outside
// every segment untouched in both buffers, and bad offsets (past the count,
// decreasing, overlapping) that write nothing outside the ranges.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "typed_check.h"

namespace {

constexpr VksortAlgorithm kAlgorithms[2] = {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE};

// The bit range of case 1: not a multiple of 8 bits, and an odd number of
// passes for 64-bit keys (the result in alt) and an even one for 32-bit keys.
BitRange partialRange(const KeyInfo& key) {
  return key.bits == 32 ? BitRange{3, 29, "bits [3,29)"} : BitRange{5, 45, "bits [5,45)"};
}

std::string what(VksortAlgorithm algorithm, const std::string& rest) {
  return std::string("segmented ") + algorithmName(algorithm) + ", " + rest;
}

// Every key type of keyBits bits x value type x order, each with a partial
// bit range, in segments of every size class, for one algorithm.
void everyTypeInEveryClass(VksortAlgorithm algorithm, uint32_t keyBits, uint64_t salt) {
  std::mt19937_64 rng = caseRng(salt);
  int variant = 0;
  for (const KeyInfo& key : kKeys) {
    if (key.bits != keyBits) continue;
    for (const ValueInfo& value : kValues) {
      SegmentedSorter s(key.type, value.type, algorithm);
      const VksortSegmentedSortPlan p = segmentedPlan(s);
      for (bool descending : {false, true}) {
        const Dist dist = Dist(variant++ % 3);
        checkSegments(s, makeCase(key, value, descending, partialRange(key), what(algorithm, distName(dist))),
                      everyClassSizes(p, rng), dist, rng);
      }
    }
  }
}

// Segment sizes at every class boundary +-1: micro/tiny, tiny/half-subgroup,
// half-subgroup/subgroup, subgroup/small, small/medium, medium/large, and large segments of whole
// tiles +-1 (the fewest tiles a large segment has, and one and two more).
std::vector<uint32_t> boundarySizes(const VksortSegmentedSortPlan& p) {
  const uint32_t tile = p.tileKeys, fewest = p.mediumMaxCount / tile + 1;
  std::vector<uint32_t> sizes = {0, 1, 2};
  for (uint32_t top : segmentClassTops(p)) sizes.insert(sizes.end(), {top - 1, top, top + 1});
  sizes.push_back(p.mediumMaxCount + 2);
  for (uint32_t tiles : {fewest, fewest + 1, fewest + 2})
    for (uint32_t d : {0u, 1u, 2u}) sizes.push_back(tiles * tile + d - 1);
  sizes.push_back((fewest + 4) * tile + 17);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  // Interleave empty and one-key segments between the others.
  std::vector<uint32_t> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(sizes[i]);
    if (i % 3 == 1) out.push_back(i % 2 ? 0 : 1);
  }
  return out;
}

}  // namespace

TEST_CASE("segmented: sizes around every class boundary, both algorithms" * doctest::test_suite(kSuiteSubgroupSizes)) {
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm, 0, false, nullptr, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s, 1 << 16);
    std::mt19937_64 rng = caseRng(1);
    std::vector<uint32_t> sizes;
    for (uint32_t edge : {1u, p.microMaxCount, p.tinyMaxCount, p.halfMaxCount, p.subgroupMaxCount, p.smallMaxCount,
                          p.mediumMaxCount, p.mediumMaxCount + p.tileKeys})
      for (uint32_t d : {0u, 1u, 2u})
        if (edge + d >= 1) sizes.push_back(edge + d - 1);
    sizes.push_back(0);
    sizes.push_back(p.mediumMaxCount + 3 * p.tileKeys + 17);
    uint32_t total = 5;
    for (uint32_t size : sizes) total += size;
    const std::vector<uint32_t> offsets = segmentOffsetsOf(sizes, 3);
    const std::vector<uint64_t> keys = makeKeys(total, kKeys[0], Dist::Few, rng);
    checkSegmentedSort(
        s, makeCase(kKeys[0], kValues[1], false, kAllBits, std::string("segmented ") + algorithmName(algorithm)), keys,
        offsets);
  }
}

// The kernels of lanes stage keys and values in shared memory where it
// holds them (every device here); where it does not (128-lane subgroups
// with 32 KiB), they read and write memory directly.
TEST_CASE("segmented: segments of lanes without staging in shared memory, as where it does not fit" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  std::mt19937_64 rng = caseRng(125);
  VksortTestingHooks hooks{};
  hooks.segmentNoStage = 1;
  // Key, value (indices into kKeys, kValues) and whether every bit is
  // sorted (keys alone: the network without the index).
  const struct {
    int key, value;
    bool allBits;
  } kinds[] = {{0, 0, true}, {0, 1, false}, {2, 3, false}, {1, 2, false}, {3, 2, false}, {5, 1, true}, {4, 0, false}};
  int variant = 0;
  for (const auto& kind : kinds) {
    const KeyInfo& key = kKeys[kind.key];
    const ValueInfo& value = kValues[kind.value];
    SegmentedSorter s(key.type, value.type, VKSORT_ALGORITHM_ONESWEEP, 0, &hooks);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    std::vector<uint32_t> sizes = {0, 1, 2};
    for (uint32_t top : segmentClassTops(p))
      if (top <= p.subgroupMaxCount) sizes.insert(sizes.end(), {top - 1, top, top + 1});
    for (int i = 0; i < 40; ++i) sizes.push_back(uint32_t(rng() % (p.subgroupMaxCount + 1)));
    const Dist dist = Dist(variant % 3);
    checkSegments(s,
                  makeCase(key, value, variant++ % 2 == 1, kind.allBits ? kAllBits : partialRange(key),
                           what(VKSORT_ALGORITHM_ONESWEEP, std::string("unstaged, ") + distName(dist))),
                  sizes, dist, rng);
  }
}

TEST_CASE("segmented: chained large segments count their own digits, every key type, at every class boundary") {
  // With every pass in one dispatch (chainedMaxCount, off by default on
  // lavapipe), that dispatch also counts each large segment's digits, and a
  // segment's pass-0 tiles wait for its histograms alone.
  std::mt19937_64 rng = caseRng(126);
  VksortTuning tuning{};
  tuning.chainedMaxCount = 1u << 20;
  int variant = 0;
  for (const KeyInfo& key : kKeys) {
    const ValueInfo& value = kValues[variant % 4];
    SorterHolder s(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP, 0, false, nullptr, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const bool descending = variant % 2 == 1;
    const Dist dist = Dist(variant++ % 3);
    checkSegments(s,
                  makeCase(key, value, descending, variant % 3 == 0 ? kAllBits : partialRange(key),
                           what(VKSORT_ALGORITHM_ONESWEEP, std::string("chained, ") + distName(dist))),
                  boundarySizes(p), dist, rng);
  }
}

TEST_CASE("segmented: medium segments of one tile, in shared memory and through the buffers") {
  // lavapipe's one-workgroup tile (128 x 4 keys) makes a medium segment
  // several tiles; a tile of 128 x 32 keys holds the largest in one. Keys
  // alone then stay in shared memory between passes; with values they do
  // not fit there (32 KiB) and the passes go through the buffers
  // (test_plan.cpp checks which).
  std::mt19937_64 rng = caseRng(127);
  VksortTuning tuning{};
  tuning.oneWorkgroupSize = 128;
  tuning.oneWorkgroupKeysPerThread = 32;
  struct Medium {
    int key, value;
    BitRange ranges[2];
  };
  const Medium cases[] = {{0, 0, {kAllBits, BitRange{4, 20, "bits [4,20)"}}},
                          {2, 3, {kAllBits, BitRange{0, 24, "bits [0,24)"}}}};
  int variant = 0;
  for (const Medium& m : cases) {
    const KeyInfo& key = kKeys[m.key];
    const ValueInfo& value = kValues[m.value];
    SorterHolder s(&tuning, key.type, value.type, VKSORT_ALGORITHM_ONESWEEP, 0, false, nullptr, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    REQUIRE(p.mediumMaxCount > p.smallMaxCount);
    for (const BitRange& range : m.ranges) {
      std::vector<uint32_t> sizes = {p.smallMaxCount,      p.smallMaxCount + 1,  0, p.mediumMaxCount, 1,
                                     p.mediumMaxCount - 1, p.mediumMaxCount + 1, 7};
      for (int i = 0; i < 4; ++i)
        sizes.push_back(p.smallMaxCount + 1 + uint32_t(rng() % (p.mediumMaxCount - p.smallMaxCount)));
      const Dist dist = Dist(variant++ % 3);
      checkSegments(s,
                    makeCase(key, value, variant % 2 == 0, range,
                             what(VKSORT_ALGORITHM_ONESWEEP, std::string("medium in one tile, ") + distName(dist))),
                    sizes, dist, rng, 3, 5);
    }
  }
}

TEST_CASE("segmented: large segments split by their top digit, and kept whole where their keys crowd into a few" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  // A large segment whose top digit (the last pass's) spreads its keys into
  // buckets of at most bucketMaxCount is sorted by that digit in pass 0,
  // then bucket by bucket in the class kernels (high-byte and uniform keys
  // over every bit; bits [0,20) of uniform keys, whose top digit is 4 bits
  // wide, and a range that starts above bit 0), except the largest. Keys that crowd into a few top digits keep
  // every pass: all equal, and in all but the smaller segments few unique
  // keys, or a top digit of 2 bits over bits [3,29). Sizes from just past the medium class
  // to half of every bucket full, every key type, with values, indices and
  // keys alone, both orders.
  std::mt19937_64 rng = caseRng(128);
  const struct {
    Dist dist;
    bool split;
  } kinds[] = {{Dist::HighByte, true}, {Dist::Uniform, true}, {Dist::AllEqual, false}, {Dist::Few, false}};
  const int values[6] = {3, 1, 0, 2, 3, 1};  // per key type: indices into kValues
  int variant = 0;
  for (int k = 0; k < 6; ++k) {
    const KeyInfo& key = kKeys[k];
    const ValueInfo& value = kValues[values[k]];
    SegmentedSorter s(key.type, value.type, VKSORT_ALGORITHM_ONESWEEP);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    REQUIRE(p.bucketMaxCount == p.subgroupMaxCount);
    for (const auto& kind : kinds) {
      const bool descending = variant % 2 == 1;
      BitRange range = kAllBits;
      if (kind.dist == Dist::Uniform && variant % 3 == 0) range = BitRange{0, 20, "bits [0,20)"};
      // A range that starts above bit 0, with a whole top digit: buckets of
      // 32-bit keys sort the bits between its start and the top digit.
      if (kind.dist == Dist::Uniform && variant % 3 == 1)
        range = key.bits == 32 ? BitRange{4, 28, "bits [4,28)"} : BitRange{7, 63, "bits [7,63)"};
      if (kind.dist == Dist::Few) range = partialRange(key);
      if (key.bits == 64 && range.end == 20) range = BitRange{0, 52, "bits [0,52)"};
      const uint32_t most = (range.end == 20 || range.end == 52 ? 16u : 256u) * p.bucketMaxCount;
      std::vector<uint32_t> sizes = {p.mediumMaxCount + 1, 0, p.mediumMaxCount + p.tileKeys + 3, 1,
                                     std::min(most, 3 * p.tileKeys + 17)};
      for (int i = 0; i < 3; ++i) sizes.push_back(p.mediumMaxCount + 1 + uint32_t(rng() % (most / 4)));
      // Half as large as full buckets allow: they have room for chance. And
      // one four times as large as they allow, which keeps its passes beside
      // the split ones (where every segment splits, the passes after the
      // first have no workgroups).
      if (kind.split) {
        sizes.push_back(most / 2);
        sizes.push_back(4 * most);
      }
      checkSegments(s,
                    makeCase(key, value, descending, range,
                             what(VKSORT_ALGORITHM_ONESWEEP,
                                  std::string(kind.split ? "spread, " : "crowded, ") + distName(kind.dist))),
                    sizes, kind.dist, rng);
      ++variant;
    }
  }
}

TEST_CASE("segmented: Onesweep, every 32-bit key type x value type x order with a bit range, in every size class") {
  everyTypeInEveryClass(VKSORT_ALGORITHM_ONESWEEP, 32, 121);
}

TEST_CASE("segmented: Onesweep, every 64-bit key type x value type x order with a bit range, in every size class") {
  everyTypeInEveryClass(VKSORT_ALGORITHM_ONESWEEP, 64, 122);
}

TEST_CASE("segmented: portable, every 32-bit key type x value type x order with a bit range, in every size class") {
  everyTypeInEveryClass(VKSORT_ALGORITHM_PORTABLE, 32, 123);
}

TEST_CASE("segmented: portable, every 64-bit key type x value type x order with a bit range, in every size class") {
  everyTypeInEveryClass(VKSORT_ALGORITHM_PORTABLE, 64, 124);
}

TEST_CASE("segmented: portable with 4-bit digits, 32- and 64-bit keys with bit ranges, in every size class") {
  // [3,29) takes 7 passes of 4 bits (the result in alt), [5,45) 10.
  std::mt19937_64 rng = caseRng(103);
  for (const KeyInfo* key : {&kKeys[2], &kKeys[4]}) {
    SegmentedSorter s(key->type, VKSORT_VALUE_32, VKSORT_ALGORITHM_PORTABLE, 4);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    for (bool descending : {false, true})
      checkSegments(
          s,
          makeCase(*key, kValues[1], descending, partialRange(*key), what(VKSORT_ALGORITHM_PORTABLE, "4-bit digits")),
          everyClassSizes(p, rng), Dist::Special, rng);
  }
}

TEST_CASE("segmented: every class boundary +-1 and large segments of 1, 1 + 1 and several tiles, 64-bit keys") {
  std::mt19937_64 rng = caseRng(104);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_F64, VKSORT_VALUE_64, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    MESSAGE(what(algorithm, "f64 with 64-bit values: micro up to ")
            << p.microMaxCount << ", tiny up to " << p.tinyMaxCount << ", half-subgroup up to " << p.halfMaxCount
            << ", subgroup up to " << p.subgroupMaxCount << ", small up to " << p.smallMaxCount << ", medium up to "
            << p.mediumMaxCount << ", tiles of " << p.tileKeys);
    checkSegments(s, makeCase(kKeys[5], kValues[2], true, kAllBits, what(algorithm, "boundaries")), boundarySizes(p),
                  Dist::Special, rng, 7, 11);
    SegmentedSorter u(VKSORT_KEY_U64, VKSORT_VALUE_INDEX, algorithm);
    checkSegments(u,
                  makeCase(kKeys[3], kValues[3], false, BitRange{0, 40, "bits [0,40)"}, what(algorithm, "boundaries")),
                  boundarySizes(segmentedPlan(u)), Dist::Uniform, rng, 0, 0);
  }
}

TEST_CASE("segmented: stability of equal keys in empty, one-key and boundary-straddling segments, argsort") {
  // Equal keys (all equal, 7 distinct, or equal in the sorted bits only) in
  // segments on both sides of every class boundary: the values (argsort:
  // each key's position in the whole range) show the order of the ties,
  // which must be the input order in both directions.
  std::mt19937_64 rng = caseRng(105);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    struct Stable {
      const KeyInfo* key;
      const ValueInfo* value;
      Dist dist;
      BitRange range;
    };
    const Stable cases[] = {
        {&kKeys[0], &kValues[3], Dist::AllEqual, kAllBits},
        {&kKeys[5], &kValues[2], Dist::Few, kAllBits},
        {&kKeys[3], &kValues[3], Dist::Uniform, BitRange{61, 64, "bits [61,64)"}},
        {&kKeys[1], &kValues[1], Dist::Uniform, BitRange{30, 32, "bits [30,32)"}},
    };
    for (const Stable& st : cases) {
      SegmentedSorter s(st.key->type, st.value->type, algorithm);
      const VksortSegmentedSortPlan p = segmentedPlan(s);
      // Both sides of every class boundary, runs of micro and tiny segments
      // (several share a subgroup) with empty and one-key ones between them.
      std::vector<uint32_t> sizes = {0, 1, 0, 1, 1};
      for (uint32_t top : segmentClassTops(p)) {
        for (uint32_t k = 0; k < 5; ++k) sizes.insert(sizes.end(), {top, k % 2, top + 1, top - 1});
        sizes.push_back(0);
      }
      sizes.insert(sizes.end(), {p.tileKeys, p.tileKeys + 1, 2, 0, p.mediumMaxCount + 2 * p.tileKeys + 3, 1});
      for (bool descending : {false, true})
        checkSegments(s, makeCase(*st.key, *st.value, descending, st.range, what(algorithm, distName(st.dist))), sizes,
                      st.dist, rng, 9, 4);
    }
  }
}

TEST_CASE("segmented: no segments or no keys record nothing and succeed") {
  std::mt19937_64 rng = caseRng(106);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm);
    const SortCase c = makeCase(kKeys[0], kValues[1], false, kAllBits, what(algorithm, "nothing to sort"));
    const std::vector<uint64_t> keys = makeKeys(5000, kKeys[0], Dist::Uniform, rng);
    // segmentCount 0: one offset, whatever it holds (checkSegmentedSort also
    // checks that temp was not touched: nothing was recorded).
    for (uint32_t only : {0u, 17u, 5000u, 0xffffffffu}) checkSegmentedSort(s, c, keys, {only});
    // count 0, with segments (all empty, or past the count).
    checkSegmentedSort(s, c, {}, {0, 0, 0});
    checkSegmentedSort(s, c, {}, {0, 10, 300});
  }
}

TEST_CASE("segmented: one segment over every key, and one in the middle with keys before and after untouched") {
  std::mt19937_64 rng = caseRng(107);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_I32, VKSORT_VALUE_INDEX, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    int variant = 0;
    for (uint32_t n : {1u, p.microMaxCount, p.tinyMaxCount + 1, p.halfMaxCount + 1, p.subgroupMaxCount + 1,
                       p.smallMaxCount + 1, p.mediumMaxCount + 1, p.mediumMaxCount + 3 * p.tileKeys + 5, 40000u}) {
      const Dist dist = Dist(variant++ % 3);
      const bool descending = variant % 2 == 0;
      const std::vector<uint64_t> keys = makeKeys(n, kKeys[1], dist, rng);
      checkSegmentedSort(s, makeCase(kKeys[1], kValues[3], descending, kAllBits, what(algorithm, "one segment")), keys,
                         {0, n});
      // The middle: [n / 4, n - n / 3), keys on both sides in no segment.
      const std::vector<uint64_t> around = makeKeys(n + 200, kKeys[1], dist, rng);
      checkSegmentedSort(s,
                         makeCase(kKeys[1], kValues[3], !descending, kAllBits, what(algorithm, "one middle segment")),
                         around, {100 + n / 4, 100 + n - n / 3});
    }
  }
}

TEST_CASE("segmented: 2^20 segments, mostly empty and tiny, a few small and large") {
  std::mt19937_64 rng = caseRng(108);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const uint32_t segments = 1u << 20;
    std::vector<uint32_t> sizes(segments, 0);
    auto at = [&]() -> uint32_t& { return sizes[rng() % segments]; };
    auto between = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(rng() % (hi - lo + 1)); };
    for (int i = 0; i < 30000; ++i) at() = between(1, p.microMaxCount);
    for (int i = 0; i < 1000; ++i) at() = between(1, p.tinyMaxCount);
    for (int i = 0; i < 200; ++i) at() = between(p.tinyMaxCount, p.subgroupMaxCount);  // half-subgroup and subgroup
    for (int i = 0; i < 8; ++i) at() = between(p.subgroupMaxCount, p.smallMaxCount);
    if (p.mediumMaxCount > p.smallMaxCount)
      for (int i = 0; i < 3; ++i) at() = between(p.smallMaxCount + 1, p.mediumMaxCount);
    for (int i = 0; i < 2; ++i) at() = between(p.mediumMaxCount + 1, p.mediumMaxCount + 2 * p.tileKeys);
    sizes.front() = 3;
    sizes.back() = p.subgroupMaxCount;
    checkSegments(s,
                  makeCase(kKeys[0], kValues[1], algorithm == VKSORT_ALGORITHM_PORTABLE, kAllBits,
                           what(algorithm, "2^20 segments")),
                  sizes, Dist::Uniform, rng, 1, 1);
  }
}

TEST_CASE("segmented: a GPU-written segment count below, equal to and above segmentCount (clamped)") {
  std::mt19937_64 rng = caseRng(109);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U64, VKSORT_VALUE_32, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    std::vector<uint32_t> sizes = everyClassSizes(p, rng);
    const std::vector<uint32_t> more = everyClassSizes(p, rng);
    sizes.insert(sizes.end(), more.begin(), more.end());
    const std::vector<uint32_t> offsets = segmentOffsetsOf(sizes, 2);
    const uint32_t segmentCount = uint32_t(sizes.size());
    const std::vector<uint64_t> keys = makeKeys(offsets.back() + 3, kKeys[3], Dist::Uniform, rng);
    for (int64_t gpuCount : {int64_t(0), int64_t(1), int64_t(segmentCount / 2), int64_t(segmentCount - 1),
                             int64_t(segmentCount), int64_t(segmentCount + 1), int64_t(0xffffffffu)})
      checkSegmentedSort(s,
                         makeCase(kKeys[3], kValues[1], gpuCount % 2 != 0, kAllBits,
                                  what(algorithm, "GPU segment count " + std::to_string(gpuCount))),
                         keys, offsets, gpuCount);
  }
}

TEST_CASE("segmented: offsets past count are clamped to count") {
  std::mt19937_64 rng = caseRng(110);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_F32, VKSORT_VALUE_32, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const SortCase c = makeCase(kKeys[2], kValues[1], false, kAllBits, what(algorithm, "offsets past count"));
    const uint32_t n = p.mediumMaxCount + 3 * p.tileKeys;
    const std::vector<uint64_t> keys = makeKeys(n, kKeys[2], Dist::Special, rng);
    // The last segments cross the count or lie past it.
    checkSegmentedSort(s, c, keys, {5, 70, n - p.tinyMaxCount / 2, n + 7, n + 5000, 0xfffffff0u, 0xffffffffu});
    checkSegmentedSort(s, c, keys, {1, n - p.smallMaxCount / 2, 2 * n});          // small once clamped
    checkSegmentedSort(s, c, keys, {3, p.tinyMaxCount, n + 1000000});             // large, clamped
    checkSegmentedSort(s, c, keys, {n - 10, 0xffffffffu});                        // tiny once clamped
    checkSegmentedSort(s, c, keys, {n, n + 1, n + p.tileKeys * 4, 0xffffffffu});  // all empty
    checkSegmentedSort(s, c, keys, {n + 5, n + 10});
  }
}

TEST_CASE("segmented: a decreasing pair of offsets makes an empty segment") {
  std::mt19937_64 rng = caseRng(111);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_I64, VKSORT_VALUE_64, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const SortCase c = makeCase(kKeys[4], kValues[2], true, kAllBits, what(algorithm, "decreasing offsets"));
    const uint32_t tiny = p.tinyMaxCount, small = p.smallMaxCount, tile = p.tileKeys;
    const uint32_t n = p.mediumMaxCount + 2 * tile + 100;
    const std::vector<uint64_t> keys = makeKeys(n, kKeys[4], Dist::Uniform, rng);
    // A decreasing pair at the start (keys before the second offset and
    // after the last one are in no segment) and at the end: no overlap.
    checkSegmentedSort(s, c, keys, {n - 1, 10, 10 + tiny, 10 + tiny + small, n - 50});
    checkSegmentedSort(s, c, keys, {0, tiny + 1, small + tiny, n - 1, 5});
    checkSegmentedSort(s, c, keys, {0, n - 3, 0});
    checkSegmentedSort(s, c, keys, {0xffffffffu, 0, n});
  }
}

TEST_CASE("segmented: overlapping segments write nothing outside the ranges and do not hang") {
  // What ends in an overlap is undefined: checkSegmentedSort checks only
  // the guard bands and the validation layer here.
  std::mt19937_64 rng = caseRng(112);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_INDEX, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const SortCase c = makeCase(kKeys[0], kValues[3], false, kAllBits, what(algorithm, "overlapping segments"));
    const uint32_t tiny = p.tinyMaxCount, small = p.smallMaxCount, medium = p.mediumMaxCount, tile = p.tileKeys;
    const uint32_t n = medium + 3 * tile + 7;
    const std::vector<uint64_t> keys = makeKeys(n, kKeys[0], Dist::Uniform, rng);
    // Overlaps within each class, across classes, and large segments whose
    // tiles together no longer fit temp (each covers every key).
    const uint32_t micro = p.microMaxCount, sub = p.subgroupMaxCount;
    checkSegmentedSort(s, c, keys, {0, micro, 2, micro + 2, 1, 3, 0, micro}, -1, true);
    checkSegmentedSort(s, c, keys, {0, tiny, tiny / 2, tiny + 3}, -1, true);
    checkSegmentedSort(s, c, keys, {0, sub, sub / 2, sub + sub / 2, 0, sub, 5, micro}, -1, true);
    checkSegmentedSort(s, c, keys, {0, small, 100, small + 100, 50, 60}, -1, true);
    checkSegmentedSort(s, c, keys, {0, medium, 100, medium + 100, 50, small + 60}, -1, true);
    checkSegmentedSort(s, c, keys, {0, 2 * tile, tile, 3 * tile, 1, tiny, 0, n}, -1, true);
    checkSegmentedSort(s, c, keys, {0, n / 2, 0, n / 2, 1, n / 2 + 1}, -1, true);  // the tiles still fit
    checkSegmentedSort(s, c, keys, {0, n, 0, n, 0, n, 0, n, 0, n}, -1, true);
    checkSegmentedSort(s, c, keys, {n, 0, n, 0, n, 0xffffffffu, 0, 0xffffffffu}, -1, true);
    // The same with the count from the GPU.
    checkSegmentedSort(s, c, keys, {0, n, 0, n, 0, n}, 0xffffffff, true);
  }
}

TEST_CASE("segmented: a large segment whose keys another one changes between its passes writes only in itself") {
  // Large segments A = [h, n) and B = [0, 2h) overlap in [h, 2h), and A ends
  // where the keys do. Every key is below 2^24 (one top digit: no segment
  // is split by it); B's own keys, in [0, h), have 0xFF as their second
  // byte, and A's none. B's first pass (by the low byte) writes its keys
  // into the overlap, over A's, and A's second pass (by the second byte)
  // then reads keys of digit 0xFF that its histograms never counted: their
  // places start at A's end. Keys and values may only land inside the
  // segment, never past the keys range (the guard bands).
  std::mt19937_64 rng = caseRng(129);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_INDEX, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const SortCase c =
        makeCase(kKeys[0], kValues[3], false, kAllBits, what(algorithm, "a segment overlapping a large one's end"));
    const uint32_t h = std::max(p.mediumMaxCount, 2 * p.tileKeys) + 5, n = 3 * h;
    std::vector<uint64_t> keys(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t low = uint32_t(rng()) & 0xff, mid = uint32_t(rng()) & 0x7f;
      keys[i] = i < h ? 0xff00u | low | (uint32_t(rng()) & 0xff0000u) : (mid << 8) | low;
    }
    for (int run = 0; run < 3; ++run) checkSegmentedSort(s, c, keys, {h, n, 0, 2 * h}, -1, true);
  }
}

// Whether the segment histogram kernel splits the segment [begin, end) of
// `keys` (all bits, four or more passes) on its top two digits, by its
// rule (histogram.comp): at least 256 x (mediumMaxCount + 1) keys, a top
// digit whose largest bucket holds more than bucketMaxCount keys, and the
// two top digits' largest buckets at most size x bucketMaxCount / 2
// multiplied, the smaller at most 8 x (mediumMaxCount + 1). The order does
// not matter: descending sorts only renumber each digit's buckets.
bool splitsOnTwoDigits(const VksortSegmentedSortPlan& p, const KeyInfo& key, const std::vector<uint64_t>& keys,
                       uint32_t begin, uint32_t end) {
  const uint64_t size = end - begin, least = 256 * uint64_t(p.mediumMaxCount + 1);
  if (size < least) return false;
  std::vector<uint64_t> top(256, 0), below(256, 0);
  for (uint32_t i = begin; i < end; ++i) {
    const uint64_t bits = orderBits(keys[i], key);
    ++top[(bits >> (key.bits - 8)) & 0xff];
    ++below[(bits >> (key.bits - 16)) & 0xff];
  }
  const uint64_t a = *std::max_element(top.begin(), top.end()), b = *std::max_element(below.begin(), below.end());
  return a > p.bucketMaxCount && a * b <= size * (p.bucketMaxCount / 2) && std::min(a, b) <= 8 * (least / 256);
}

TEST_CASE("segmented: overlapping segments split on their top two digits write only in themselves" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  // Two segments of uniform keys that each split on their top two digits,
  // overlapping: each one's passes change the other's keys, so the buckets
  // found after pass 1 no longer hold what the histograms counted. They
  // must still lie within their segment (the guard bands), and the sort
  // must end with no validation message. (Their tiles fit the temp memory
  // of `n` keys, and its two-digit area has room for both.)
  std::mt19937_64 rng = caseRng(130);
  SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_INDEX, VKSORT_ALGORITHM_ONESWEEP);
  const VksortSegmentedSortPlan p = segmentedPlan(s);
  const SortCase c = makeCase(kKeys[0], kValues[3], false, kAllBits,
                              what(VKSORT_ALGORITHM_ONESWEEP, "overlapping segments split on two digits"));
  const uint32_t least = 256 * (p.mediumMaxCount + 1), n = 2 * least + 1000;
  const std::vector<uint64_t> keys = makeKeys(n, kKeys[0], Dist::Uniform, rng);
  for (const std::vector<uint32_t>& offsets :
       {std::vector<uint32_t>{0, least + 500, 300, least + 900}, std::vector<uint32_t>{0, least + 10, 5, least + 15}}) {
    uint32_t splits = 0;
    checkSegmentedSort(s, c, keys, offsets, -1, true, 0, &splits);
    const uint32_t expected = (splitsOnTwoDigits(p, kKeys[0], keys, offsets[0], offsets[1]) ? 1u : 0u) +
                              (splitsOnTwoDigits(p, kKeys[0], keys, offsets[2], offsets[3]) ? 1u : 0u);
    CHECK(splits == expected);
  }
}

TEST_CASE("segmented: offsets all 0xFFFFFFFF make empty segments") {
  std::mt19937_64 rng = caseRng(113);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_F64, VKSORT_VALUE_32, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const SortCase c = makeCase(kKeys[5], kValues[1], false, kAllBits, what(algorithm, "offsets all 0xFFFFFFFF"));
    const std::vector<uint64_t> keys = makeKeys(p.smallMaxCount + 2 * p.tileKeys, kKeys[5], Dist::Special, rng);
    checkSegmentedSort(s, c, keys, std::vector<uint32_t>(1001, 0xffffffffu));
    checkSegmentedSort(s, c, keys, std::vector<uint32_t>(2, 0xffffffffu));
  }
}

TEST_CASE("segmented: temp sized for more segments than segmentCount") {
  // The temp memory of maxSegments serves any segmentCount up to it.
  std::mt19937_64 rng = caseRng(114);
  SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_AUTO);
  const VksortSegmentedSortPlan p = segmentedPlan(s);
  const std::vector<uint32_t> sizes = everyClassSizes(p, rng);
  const std::vector<uint32_t> offsets = segmentOffsetsOf(sizes);
  const std::vector<uint64_t> keys = makeKeys(offsets.back(), kKeys[0], Dist::Few, rng);
  checkSegmentedSort(s, makeCase(kKeys[0], kValues[0], true, kAllBits, "segmented AUTO, maxSegments 4096"), keys,
                     offsets, -1, false, 4096);
}

TEST_CASE(
    "segmented: two segmented sorts and a plain one on the same buffers, with the header's barrier, labels and "
    "timestamps") {
  // The header's one barrier between sorts, and nothing else: synchronization
  // validation is on, and each sort's clearing of temp follows the earlier
  // sort's writes and indirect reads. Segmented, segmented again (stable: no
  // change), then a plain sort of every key, on the same keys, values and
  // temp; debug labels on, timestamps around the first.
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 2;
  VkQueryPool queries;
  REQUIRE(vkCreateQueryPool(gCtx->device, &qci, nullptr, &queries) == VK_SUCCESS);
  std::mt19937_64 rng = caseRng(115);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, VKSORT_VALUE_32, algorithm, 0, true, nullptr, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const std::vector<uint32_t> offsets = segmentOffsetsOf(everyClassSizes(p, rng), 4);
    const uint32_t n = offsets.back() + 6, segmentCount = uint32_t(offsets.size() - 1);
    const std::vector<uint64_t> keys = makeKeys(n, kKeys[0], Dist::Few, rng);
    VksortMemoryRequirements plainReq, req;
    REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &plainReq) == VKSORT_SUCCESS);
    REQUIRE(vksortGetSegmentedMemoryRequirements(s.sorter, n, segmentCount, &req) == VKSORT_SUCCESS);
    GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage),
        tb(std::max(req.tempSize, plainReq.tempSize), req.tempUsage | plainReq.tempUsage),
        vb(req.valuesSize, req.valuesUsage), avb(req.valuesSize, req.valuesUsage),
        ob(offsets.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::vector<std::pair<uint32_t, uint32_t>> expected(n);
    for (uint32_t i = 0; i < n; ++i) {
      expected[i] = {uint32_t(keys[i]), i * 2654435761u};
      kb.data()[i] = expected[i].first;
      vb.data()[i] = expected[i].second;
    }
    std::memcpy(ob.bytes(), offsets.data(), offsets.size() * 4);
    using Pair = std::pair<uint32_t, uint32_t>;
    auto byKey = [](const Pair& a, const Pair& b) { return a.first < b.first; };
    for (uint32_t seg = 0; seg < segmentCount; ++seg)
      std::stable_sort(expected.begin() + offsets[seg], expected.begin() + offsets[seg + 1], byKey);
    std::stable_sort(expected.begin(), expected.end(), byKey);

    VksortSegmentedSortInfo info{};
    info.sort.count = n;
    info.sort.keys = kb.range();
    info.sort.alt = ab.range();
    info.sort.temp = tb.range();
    info.sort.values = vb.range();
    info.sort.altValues = avb.range();
    info.segmentCount = segmentCount;
    info.segmentOffsets = ob.range();
    VkCommandBuffer cmd = gCtx->beginCommands();
    vkCmdResetQueryPool(cmd, queries, 0, 2);
    auto headerBarrier = [&]() {
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr,
                         VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr,
                           0, nullptr);
    };
    VksortSegmentedSortInfo timed = info;
    timed.sort.timestampQueryPool = queries;
    timed.sort.firstTimestampQuery = 0;
    VksortResultBuffer first, second, third;
    REQUIRE_MESSAGE(vksortRecordSegmentedSort(s.sorter, cmd, &timed, &first) == VKSORT_SUCCESS,
                    std::string(vksortGetLastError()));
    REQUIRE(first == VKSORT_RESULT_IN_KEYS);  // 4 passes: the next sort reads this one's result
    headerBarrier();
    REQUIRE_MESSAGE(vksortRecordSegmentedSort(s.sorter, cmd, &info, &second) == VKSORT_SUCCESS,
                    std::string(vksortGetLastError()));
    REQUIRE(second == VKSORT_RESULT_IN_KEYS);
    headerBarrier();
    REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &info.sort, &third) == VKSORT_SUCCESS,
                    std::string(vksortGetLastError()));
    REQUIRE(third == VKSORT_RESULT_IN_KEYS);
    barrierToHost(cmd);
    submitOrDie(cmd, what(algorithm, "three sorts back to back"));

    INFO(what(algorithm, "three sorts back to back") << ": N = " << n << ", seed = " << gSeed);
    size_t bad = n;
    for (uint32_t i = 0; i < n && bad == n; ++i)
      if (kb.data()[i] != expected[i].first || vb.data()[i] != expected[i].second) bad = i;
    CHECK_MESSAGE(bad == n, "first mismatch at " << bad);
    for (const GuardedRange* g : {&kb, &ab, &tb, &vb, &avb, &ob})
      CHECK_MESSAGE(g->guardsIntact(), "write outside a range");
    uint64_t stamps[2] = {0, 0};
    REQUIRE(vkGetQueryPoolResults(gCtx->device, queries, 0, 2, sizeof stamps, stamps, 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS);
    if (gCtx->timestampValidBits) CHECK(stamps[1] >= stamps[0]);
    requireNoValidationMessages();
  }
  vkDestroyQueryPool(gCtx->device, queries, nullptr);
}

TEST_CASE("segmented: many large segments of whole tiles + 1 and just past the medium class fill the tile table") {
  std::mt19937_64 rng = caseRng(116);
  for (VksortAlgorithm algorithm : kAlgorithms) {
    SegmentedSorter s(VKSORT_KEY_U32, VKSORT_VALUE_NONE, algorithm);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    std::vector<uint32_t> sizes;
    const uint32_t tilesPlusOne = (p.mediumMaxCount / p.tileKeys + 1) * p.tileKeys + 1;
    for (int i = 0; i < 12; ++i) sizes.insert(sizes.end(), {tilesPlusOne, p.mediumMaxCount + 1});
    checkSegments(s,
                  makeCase(kKeys[0], kValues[0], false, BitRange{0, 12, "bits [0,12)"}, what(algorithm, "tile table")),
                  sizes, Dist::Uniform, rng, 0, 0);
    // Every key in segments just past the medium class: the most tiles the
    // header promises temp for (count / (mediumMaxCount + 1) of them, plus
    // count / tileKeys).
    checkSegments(s, makeCase(kKeys[0], kValues[0], true, kAllBits, what(algorithm, "tile table")),
                  std::vector<uint32_t>(30, p.mediumMaxCount + 1), Dist::Uniform, rng, 0, 0);
  }
}

TEST_CASE("faults: segmented Onesweep's large segments with delayed status, tiny rings and no patience" *
          doctest::test_suite(kSuiteFaults)) {
  // Onesweep sorts the large segments with look-backs that end at each
  // segment's first tile: tiles that hold back their status, rings of a few
  // slots (wrapped many times over) and a spin budget of one round must not
  // change the result, hang, or let a look-back cross into another segment.
  // (ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  // The first shape with every pass in one dispatch (chainedMaxCount, off
  // by default on lavapipe), the second with a dispatch per pass.
  const uint32_t shapes[][5] = {{3, 1, 1, 1, 0}, {4, 2, 2, 0, 400}};
  std::mt19937_64 rng = caseRng(117);
  bool chained = true;
  for (auto& sh : shapes) {
    FaultShape f = faultTuning(sh);
    f.tuning.chainedMaxCount = chained ? 1u << 20 : VKSORT_TUNING_OFF;
    chained = !chained;
    SorterHolder s(&f.tuning, VKSORT_KEY_U32, VKSORT_VALUE_32, VKSORT_ALGORITHM_ONESWEEP, 0, false, &f.hooks, true);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    const uint32_t t = p.tileKeys, m = p.mediumMaxCount;
    const std::vector<uint32_t> sizes = {
        m + 3 * t + 1, p.smallMaxCount + 1, 0, m + 2 * t + 5, p.microMaxCount, m + 1, 1};
    checkSegments(s, makeCase(kKeys[0], kValues[1], false, kAllBits, faultLabel("segmented, ", sh)), sizes,
                  Dist::Uniform, rng);
    checkSegments(s,
                  makeCase(kKeys[0], kValues[1], true, BitRange{0, 16, "bits [0,16)"}, faultLabel("segmented, ", sh)),
                  sizes, Dist::Few, rng);
  }
}

TEST_CASE("segmented: large segments split on their top two digits, with buckets of every class" *
          doctest::test_suite(kSuiteSubgroupSizes)) {
  // A segment of at least 256 x (mediumMaxCount + 1) keys whose top digit's
  // buckets are too large for the kernels of lanes, but whose top two
  // digits promise small buckets, is sorted by the digit below the top in
  // pass 0 and by the top one in pass 1; its buckets (one value of the two
  // digits each) are then found and sorted as segments. Uniform keys of every
  // width, with values, indices and keys alone, both orders, beside other
  // large and small segments; keys whose two top bytes are equal, so that
  // each bucket holds a few thousand keys (the small and medium kernels'
  // part); and workgroups of 128 invocations, two digits per invocation of
  // the kernel that finds the buckets.
  std::mt19937_64 rng = caseRng(129);
  struct Case {
    int key, value;
    bool descending;
    std::vector<uint32_t> extra;  // keys past the least size of a two-digit split, and other segments
    bool equalTopBytes;
    bool smallWorkgroups = false;
  };
  const Case cases[] = {{0, 1, false, {3, 5000, 3, 0}, false},
                        {2, 3, true, {1000}, false},
                        {1, 0, false, {17}, false},
                        {3, 2, false, {17}, false},
                        {0, 1, true, {40000}, true},
                        {0, 1, false, {9}, false, true}};
  bool anySplit = false;
  uint32_t bucketMax = 0;
  for (const Case& k : cases) {
    const KeyInfo& key = kKeys[k.key];
    const ValueInfo& value = kValues[k.value];
    VksortTestingHooks hooks{};
    hooks.maxComputeWorkGroupInvocations = k.smallWorkgroups ? 128 : 0;
    SegmentedSorter s(key.type, value.type, VKSORT_ALGORITHM_ONESWEEP, 0, &hooks);
    const VksortSegmentedSortPlan p = segmentedPlan(s);
    std::vector<uint32_t> sizes = {256 * (p.mediumMaxCount + 1) + k.extra[0]};
    sizes.insert(sizes.end(), k.extra.begin() + 1, k.extra.end());
    const std::vector<uint32_t> offsets = segmentOffsetsOf(sizes, 3);
    std::vector<uint64_t> keys = makeKeys(offsets.back() + 5, key, Dist::Uniform, rng);
    if (k.equalTopBytes)  // 32-bit keys: byte 2 = byte 3
      for (uint64_t& x : keys) x = (x & 0xff00ffffu) | ((x >> 8) & 0x00ff0000u);
    uint32_t splits = 0;
    checkSegmentedSort(s,
                       makeCase(key, value, k.descending, kAllBits,
                                what(VKSORT_ALGORITHM_ONESWEEP, k.equalTopBytes ? "equal top bytes" : "uniform")),
                       keys, offsets, -1, false, 0, &splits);
    const bool expected = splitsOnTwoDigits(p, key, keys, offsets[0], offsets[1]);
    CHECK_MESSAGE(splits == (expected ? 1u : 0u), "the first segment's split on its top two digits");
    anySplit = anySplit || expected;
    bucketMax = p.bucketMaxCount;
  }
  // With subgroups of 8 lanes or more (buckets of up to 64 keys or more)
  // the uniform segments above split so: the path runs.
  if (bucketMax >= 64) CHECK(anySplit);
}

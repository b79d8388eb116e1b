// The header's Onesweep look-back under stress, and shapes it allows: fault
// injection (delayed status, no patience), status rings that wrap many times,
// the look-back walked by several lanes, repeated sorts, and workgroup sizes
// that are not powers of two (both algorithms).
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "typed_check.h"

namespace {

// u32 keys only with `s`: uniform keys at each of `sizes`, then `fewCount`
// keys of a few distinct values.
void sortU32(const SorterHolder& s, const std::string& label, std::initializer_list<uint32_t> sizes, uint32_t fewCount,
             std::mt19937_64& rng) {
  const SortCase c = makeCase(kKeys[0], kValues[0], false, kAllBits, label);
  for (uint32_t n : sizes) checkTypedSort(s, c, makeKeys(n, kKeys[0], Dist::Uniform, rng));
  checkTypedSort(s, c, makeKeys(fewCount, kKeys[0], Dist::Few, rng));
}

}  // namespace

TEST_CASE("faults: delayed status, tiny rings and no patience still sort correctly" *
          doctest::test_suite(kSuiteFaults)) {
  // Fault injection: tiles hold back their status by varying amounts, rings
  // are a few slots, and with a spin budget of one round every tile stops
  // waiting almost at once and takes the fallback (counting a predecessor's
  // digits itself). None of it may change the result or hang.
  // (ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  const uint32_t shapes[][5] = {{0, 0, 0, 1, 0},   {3, 1, 1, 1, 0},    {4, 2, 2, 1, 40},  {5, 2, 2, 0, 200},
                                {8, 3, 4, 4, 400}, {0, 0, 0, 0, 1000}, {0, 0, 0, 2, 1000}};
  // Two shapes (a tiny ring with no patience, and delays) with every pass in
  // one dispatch (chainedMaxCount, off by default on lavapipe), whose tiles
  // also wait for the pass before theirs; the others with a dispatch per
  // pass. (This suite runs at every thread count and subgroup size.)
  auto rng = caseRng(8);
  uint32_t shape = 0;
  for (auto& sh : shapes) {
    const bool chained = shape++ % 3 == 1;
    FaultShape f = faultTuning(sh);
    f.tuning.chainedMaxCount = chained ? 1u << 20 : VKSORT_TUNING_OFF;
    SorterHolder s(&f.tuning, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 0, false, &f.hooks);
    const uint32_t t = s.tile();
    sortU32(s, faultLabel(chained ? "chained passes, " : "a dispatch per pass, ", sh), {t * 9 + 1, 100003u}, t * 6,
            rng);
  }
}

TEST_CASE("the status ring wraps around many times") {
  // Tiny rings make every tile reuse a slot many times over; the tail iterator
  // and the tags must keep that correct. (ring, lookback, tailGroup)
  const uint32_t shapes[][3] = {{3, 1, 1}, {4, 2, 1}, {5, 2, 2}, {8, 3, 4}, {17, 8, 8}};
  // Every other shape with every pass in one dispatch (chainedMaxCount).
  auto rng = caseRng(3);
  bool chained = true;
  for (auto& sh : shapes) {
    VksortTuning tuning{};
    tuning.ringSlots = sh[0];
    tuning.lookback = sh[1];
    tuning.tailGroup = sh[2];
    tuning.chainedMaxCount = chained ? 1u << 20 : VKSORT_TUNING_OFF;
    SorterHolder s(&tuning, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
    const uint32_t t = s.tile();
    char label[96];
    std::snprintf(label, sizeof label, "ring %u lookback %u tailGroup %u, %s", sh[0], sh[1], sh[2],
                  chained ? "chained passes" : "a dispatch per pass");
    chained = !chained;
    sortU32(s, label, {t * 5 + 1, t * 37, 200003u}, t * 20, rng);
  }
}

TEST_CASE("the look-back walked by several lanes per digit" * doctest::test_suite(kSuiteSubgroupSizes)) {
  // By default only workgroups of 512 invocations or more walk a digit's
  // look-back with several lanes, which lavapipe's workgroups are not; so
  // here the lanes are forced, with several digits per cluster, and with
  // tiny rings, no patience and delayed status, so that lanes meet missing
  // entries and inclusive prefixes at every position of a step.
  // (lookbackLanes, ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  const uint32_t shapes[][6] = {{2, 0, 0, 0, 0, 0}, {4, 0, 0, 0, 0, 0},   {8, 0, 0, 0, 0, 0},    {4, 5, 2, 2, 1, 40},
                                {8, 3, 1, 1, 1, 0}, {2, 8, 3, 4, 4, 400}, {4, 0, 0, 0, 2, 1000}, {8, 17, 8, 8, 0, 200}};
  auto rng = caseRng(15);
  for (auto& sh : shapes) {
    if (sh[0] > deviceSubgroupSize()) {  // a cluster of lanes lies within one subgroup
      MESSAGE("lookbackLanes " << sh[0] << " skipped: the subgroup has " << deviceSubgroupSize() << " invocations");
      continue;
    }
    FaultShape f = faultTuning(sh + 1);
    f.tuning.lookbackLanes = sh[0];
    SorterHolder s(&f.tuning, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 0, false, &f.hooks);
    VksortTuning got;
    REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
    REQUIRE(got.lookbackLanes == sh[0]);
    const uint32_t t = s.tile();
    sortU32(s, faultLabel("lanes " + std::to_string(sh[0]) + ", ", sh + 1), {t + 1, t * 3 - 1, t * 9 + 1, 100003u},
            t * 6, rng);
  }
}

TEST_CASE("repeated sorts give the right answer every time (races)") {
  SorterHolder s;
  VksortTuning small{};
  small.ringSlots = 5;
  small.lookback = 2;
  small.tailGroup = 2;
  SorterHolder tiny(&small, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP);
  auto rng = caseRng(4);
  const SortCase repeat = makeCase(kKeys[0], kValues[0], false, kAllBits, "repeat");
  const SortCase repeatTiny = makeCase(kKeys[0], kValues[0], false, kAllBits, "repeat, tiny ring");
  for (int i = 0; i < 12; ++i) {
    checkTypedSort(s, repeat, makeKeys(60000 + uint32_t(rng() % 60000), kKeys[0], Dist::Uniform, rng));
    checkTypedSort(tiny, repeatTiny, makeKeys(30000 + uint32_t(rng() % 30000), kKeys[0], Dist::Few, rng));
  }
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
      const std::string what = std::string(algorithmName(algorithm)) + ", workgroupSize " + std::to_string(wg);
      for (uint32_t n : {s.tile(), 5 * s.tile() + 3})
        checkTypedSort(s, makeCase(kKeys[0], kValues[3], false, kAllBits, what),
                       makeKeys(n, kKeys[0], Dist::Uniform, rng));
    }
  }
}

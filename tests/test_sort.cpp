// vksort tests: one case per promise in include/vksort/vksort.h, checked
// against std::stable_sort on fresh random data. Every case runs with the
// Khronos validation layer (and synchronization validation) on; any message
// fails it. Every GPU wait has a timeout: a hang is a failure, not a stall.
//
// The seed is logged; set VKSORT_TEST_SEED to replay a run.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"

namespace {

enum class Dist { Uniform, AllEqual, FewUnique, Sorted, Reversed, HighByte };
const char* distName(Dist d) {
  switch (d) {
    case Dist::Uniform: return "uniform";
    case Dist::AllEqual: return "all-equal";
    case Dist::FewUnique: return "few-unique";
    case Dist::Sorted: return "sorted";
    case Dist::Reversed: return "reversed";
    case Dist::HighByte: return "high-byte";
  }
  return "?";
}

std::vector<uint32_t> makeKeys(uint32_t n, Dist dist, std::mt19937_64& rng) {
  std::vector<uint32_t> k(n);
  const uint32_t c = uint32_t(rng());
  for (uint32_t i = 0; i < n; ++i) {
    switch (dist) {
      case Dist::Uniform: k[i] = uint32_t(rng()); break;
      case Dist::AllEqual: k[i] = c; break;
      case Dist::FewUnique: k[i] = c ^ (uint32_t(rng() % 5) * 0x01010101u); break;
      case Dist::Sorted:
      case Dist::Reversed: k[i] = uint32_t(rng()); break;
      case Dist::HighByte: k[i] = (uint32_t(rng()) & 0xff000000u) | (c & 0x00ffffffu); break;
    }
  }
  if (dist == Dist::Sorted) std::sort(k.begin(), k.end());
  if (dist == Dist::Reversed) std::sort(k.begin(), k.end(), [](uint32_t a, uint32_t b) { return a > b; });
  return k;
}

// Sorts `keys` on the GPU with `sorter` and checks the result against
// std::stable_sort, the guard bands and the validation layer.
void checkSort(const SorterHolder& s, const std::vector<uint32_t>& keys, const char* label) {
  const uint32_t n = uint32_t(keys.size());
  INFO(label << ": N = " << n << ", seed = " << gSeed);
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &req) == VKSORT_SUCCESS);
  GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage);
  if (n) std::memcpy(kb.data(), keys.data(), size_t(n) * 4);

  VksortSortInfo si{};
  si.count = n;
  si.keys = kb.range();
  si.alt = ab.range();
  si.temp = tb.range();
  VkCommandBuffer cmd = gCtx->beginCommands();
  VksortResultBuffer where;
  REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &si, &where) == VKSORT_SUCCESS, vksortGetLastError());
  barrierToHost(cmd);
  submitOrDie(cmd, std::string(label) + ", N = " + std::to_string(n));

  std::vector<uint32_t> expected = keys;
  std::stable_sort(expected.begin(), expected.end());
  const uint32_t* got = where == VKSORT_RESULT_IN_KEYS ? kb.data() : ab.data();
  size_t firstBad = n;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != expected[i]) {
      firstBad = i;
      break;
    }
  CHECK_MESSAGE(firstBad == n, "first mismatch at " << firstBad);
  CHECK_MESSAGE(kb.guardsIntact(), "write outside the keys range");
  CHECK_MESSAGE(ab.guardsIntact(), "write outside the alt range");
  CHECK_MESSAGE(tb.guardsIntact(), "write outside the temp range");
  requireNoValidationMessages();
}

// The fault-injection fields of a test table row, in this order: ringSlots,
// lookback, tailGroup, spinBudget, faultPublishDelay (0 = default).
VksortTuning faultTuning(const uint32_t* f) {
  VksortTuning tuning{};
  tuning.ringSlots = f[0];
  tuning.lookback = f[1];
  tuning.tailGroup = f[2];
  tuning.spinBudget = f[3];
  tuning.faultPublishDelay = f[4];
  return tuning;
}

// A label naming those fields, after `what`.
std::string faultLabel(const std::string& what, const uint32_t* f) {
  char label[96];
  std::snprintf(label, sizeof label, "ring %u lookback %u tailGroup %u spinBudget %u delay %u", f[0], f[1], f[2], f[3],
                f[4]);
  return what + label;
}

}  // namespace

TEST_CASE("sorts every edge size: 0, 1, 2, tile +- 1, 2^k +- 1, primes, 1M, 4M") {
  SorterHolder s;
  const uint32_t t = s.tile();
  std::vector<uint32_t> sizes = {0,     1,         2,    3,      t - 1,   t,        t + 1,   2 * t - 1,
                                 2 * t, 2 * t + 1, 7919, 104729, 1299709, 1u << 20, 1u << 22};
  for (uint32_t k : {4u, 8u, 10u, 13u, 16u, 17u}) {
    sizes.push_back((1u << k) - 1);
    sizes.push_back((1u << k) + 1);
  }
  const uint32_t small = s.smallSortKeys();  // the first one-workgroup kernel up to here
  for (uint32_t n : {small - 1, small, small + 1}) sizes.push_back(n);
  // Where the other paths end, where they are on (on lavapipe by default
  // only the one-workgroup path, which ends at `small`).
  VksortTuning tuning;
  REQUIRE(vksortGetTuning(s.sorter, &tuning) == VKSORT_SUCCESS);
  for (uint32_t end : {tuning.smallMaxCount, tuning.mediumMaxCount, tuning.bitonicMaxCount, tuning.bitonicKeysMaxCount})
    if (end > 1)
      for (uint32_t n : {end - 1, end, end + 1}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  auto rng = caseRng(1);
  for (uint32_t n : sizes) checkSort(s, makeKeys(n, Dist::Uniform, rng), "uniform");
}

TEST_CASE("sorts every distribution") {
  SorterHolder s;
  const uint32_t t = s.tile();
  auto rng = caseRng(2);
  for (Dist d : {Dist::Uniform, Dist::AllEqual, Dist::FewUnique, Dist::Sorted, Dist::Reversed, Dist::HighByte})
    for (uint32_t n : {t + 1, 7 * t + 3, 100003u}) checkSort(s, makeKeys(n, d, rng), distName(d));
}

TEST_CASE("the status ring wraps around many times") {
  // Tiny rings make every tile reuse a slot many times over; the tail iterator
  // and the tags must keep that correct. (ring, lookback, tailGroup)
  const uint32_t shapes[][3] = {{3, 1, 1}, {4, 2, 1}, {5, 2, 2}, {8, 3, 4}, {17, 8, 8}};
  auto rng = caseRng(3);
  for (auto& sh : shapes) {
    VksortTuning tuning{};
    tuning.ringSlots = sh[0];
    tuning.lookback = sh[1];
    tuning.tailGroup = sh[2];
    SorterHolder s(&tuning);
    const uint32_t t = s.tile();
    char label[64];
    std::snprintf(label, sizeof label, "ring %u lookback %u tailGroup %u", sh[0], sh[1], sh[2]);
    for (uint32_t n : {t * 5 + 1, t * 37, 200003u}) checkSort(s, makeKeys(n, Dist::Uniform, rng), label);
    checkSort(s, makeKeys(t * 20, Dist::FewUnique, rng), label);
  }
}

TEST_CASE("faults: delayed status, tiny rings and no patience still sort correctly") {
  // Fault injection: tiles hold back their status by varying amounts, rings
  // are a few slots, and with a spin budget of one round every tile stops
  // waiting almost at once and takes the fallback (counting a predecessor's
  // digits itself). None of it may change the result or hang.
  // (ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  const uint32_t shapes[][5] = {{0, 0, 0, 1, 0},   {3, 1, 1, 1, 0},    {4, 2, 2, 1, 40},  {5, 2, 2, 0, 200},
                                {8, 3, 4, 4, 400}, {0, 0, 0, 0, 1000}, {0, 0, 0, 2, 1000}};
  auto rng = caseRng(8);
  for (auto& sh : shapes) {
    const VksortTuning tuning = faultTuning(sh);
    SorterHolder s(&tuning);
    const uint32_t t = s.tile();
    const std::string label = faultLabel("", sh);
    for (uint32_t n : {t * 9 + 1, 100003u}) checkSort(s, makeKeys(n, Dist::Uniform, rng), label.c_str());
    checkSort(s, makeKeys(t * 6, Dist::FewUnique, rng), label.c_str());
  }
}

TEST_CASE("the look-back walked by several lanes per digit") {
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
    VksortTuning tuning = faultTuning(sh + 1);
    tuning.lookbackLanes = sh[0];
    SorterHolder s(&tuning);
    VksortTuning got;
    REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
    REQUIRE(got.lookbackLanes == sh[0]);
    const uint32_t t = s.tile();
    const std::string label = faultLabel("lanes " + std::to_string(sh[0]) + ", ", sh + 1);
    for (uint32_t n : {t + 1, t * 3 - 1, t * 9 + 1, 100003u})
      checkSort(s, makeKeys(n, Dist::Uniform, rng), label.c_str());
    checkSort(s, makeKeys(t * 6, Dist::FewUnique, rng), label.c_str());
  }
}

TEST_CASE("the mid-size path: Onesweep in the small path's tiles, up to mediumMaxCount") {
  // On by default on NVIDIA only, so turned on here: counts above the
  // one-workgroup path and up to mediumMaxCount go through Onesweep in tiles
  // of the small shape, one more is the regular tile. Also with a tiny ring,
  // no patience and delayed status, as in the faults case.
  // (mediumMaxCount, ring, lookback, tailGroup, spinBudget, faultPublishDelay); 0 = default
  const uint32_t shapes[][6] = {{1u << 17, 0, 0, 0, 0, 0}, {1u << 17, 5, 2, 2, 1, 40}, {1u << 17, 0, 0, 0, 2, 1000}};
  auto rng = caseRng(9);
  for (auto& sh : shapes) {
    VksortTuning tuning = faultTuning(sh + 1);
    tuning.mediumMaxCount = sh[0];
    SorterHolder s(&tuning);
    VksortTuning got;
    REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
    REQUIRE(got.mediumMaxCount == sh[0]);
    const uint32_t small = s.smallSortKeys(), m = sh[0];
    const std::string label = faultLabel("mid-size, ", sh + 1);
    for (uint32_t n : {small + 1, 2 * small - 1, 2 * small + 1, 7 * small + 3, 7919u, 104729u, m, m + 1})
      checkSort(s, makeKeys(n, Dist::Uniform, rng), label.c_str());
    checkSort(s, makeKeys(9 * small, Dist::FewUnique, rng), label.c_str());
  }
  // Up to the small path's count, the mid-size path is off (and reported so).
  VksortTuning off{};
  off.mediumMaxCount = 1;
  SorterHolder s(&off);
  VksortTuning got;
  REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
  CHECK(got.mediumMaxCount == 0);
  checkSort(s, makeKeys(3 * s.smallSortKeys() + 1, Dist::Uniform, rng), "mid-size path off");
}

TEST_CASE("repeated sorts give the right answer every time (races)") {
  SorterHolder s;
  VksortTuning small{};
  small.ringSlots = 5;
  small.lookback = 2;
  small.tailGroup = 2;
  SorterHolder tiny(&small);
  auto rng = caseRng(4);
  for (int i = 0; i < 12; ++i) {
    checkSort(s, makeKeys(60000 + uint32_t(rng() % 60000), Dist::Uniform, rng), "repeat");
    checkSort(tiny, makeKeys(30000 + uint32_t(rng() % 30000), Dist::FewUnique, rng), "repeat, tiny ring");
  }
}

TEST_CASE("the temporary buffer has a constant size, independent of N") {
  SorterHolder s;
  VksortMemoryRequirements a, b, c;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, 1024, &a) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(s.sorter, 1u << 28, &b) == VKSORT_SUCCESS);
  REQUIRE(vksortGetMemoryRequirements(s.sorter, VKSORT_MAX_COUNT, &c) == VKSORT_SUCCESS);
  CHECK(a.tempSize == b.tempSize);
  CHECK(a.tempSize == c.tempSize);
  CHECK(a.tempSize <= 2u * 1024 * 1024);
  CHECK(b.keysSize == (VkDeviceSize(1) << 30));
  CHECK(b.altSize == b.keysSize);
  CHECK((a.tempUsage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0);
  CHECK((a.tempUsage & VK_BUFFER_USAGE_TRANSFER_DST_BIT) != 0);
  CHECK((a.keysUsage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != 0);
  MESSAGE("temp bytes: " << a.tempSize);
}

TEST_CASE("bad input returns an error with a message and records nothing") {
  SorterHolder s;
  const uint32_t n = 1000;
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &req) == VKSORT_SUCCESS);
  GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage);
  VksortSortInfo good{};
  good.count = n;
  good.keys = kb.range();
  good.alt = ab.range();
  good.temp = tb.range();

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

  VkCommandBuffer cmd = gCtx->beginCommands();
  for (const Bad& b : cases) {
    VksortResultBuffer where;
    INFO(b.what);
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
  std::memset(ab.data(), 0x3c, size_t(req.altSize));
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
  // 1 (off) or a power of two from twice the subgroup size whose keys fit
  // in shared memory. smallMaxCount: the small shape's count or twice that.
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
      {&VksortTuning::smallMaxCount, "smallMaxCount", 3u},
      {&VksortTuning::smallMaxCount, "smallMaxCount", 1u << 30},
  };
  for (const auto& bf : badFields) {
    VksortTuning badField{};
    badField.*bf.field = bf.value;
    ci.pTuning = &badField;
    CHECK(vksortCreateSorter(&ci, &sorter) == VKSORT_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(vksortGetLastError()).find(bf.name) != std::string::npos);
    CHECK(sorter == nullptr);
  }
  CHECK(vksortCheckDeviceSupport(gCtx->instance, gCtx->physicalDevice, vkGetInstanceProcAddr) == VKSORT_SUCCESS);
  requireNoValidationMessages();
}

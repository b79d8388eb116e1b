// vksort tests for every key type, value type, order, bit range and the
// indirect count, against std::stable_sort on the CPU.
//
// The CPU reference defines the promised order independently of the shaders:
// signed keys by value, floats by IEEE-754 totalOrder, ties (equal in the
// sorted bits) in input order, in both directions.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "typed_check.h"

TEST_CASE("every key type x value type x order x bit range, at edge sizes") {
  auto rng = caseRng(11);
  int sorts = 0;
  for (const KeyInfo& key : kKeys) {
    const BitRange ranges[] = {{0, 0, "all bits"},
                               {0, 16, "bits [0,16)"},
                               {0, 30, "bits [0,30) (Morton)"},
                               key.bits == 32 ? BitRange{8, 20, "bits [8,20)"} : BitRange{20, 44, "bits [20,44)"}};
    for (const ValueInfo& value : kValues) {
      SorterHolder s(nullptr, key.type, value.type);
      const uint32_t t = s.tile();
      int variant = 0;
      for (bool descending : {false, true}) {
        for (const BitRange& range : ranges) {
          SortCase c{&key, &value, descending, range.begin, range.end, ""};
          c.label = std::string(key.name) + ", " + value.name + ", " + (descending ? "descending" : "ascending") +
                    ", " + range.name;
          const Dist dist = Dist(variant++ % 3);
          // 1 to small: the one-workgroup path (every pass count: 16, 24 and
          // 12-bit ranges take 2 or 3 passes).
          const uint32_t small = s.smallSortKeys();
          for (uint32_t n : {1u, small / 2 + 1, small - 1, small + 1, t - 1, t + 1, 65537u}) {
            checkTypedSort(s, c, makeKeys(n, key, dist, rng));
            ++sorts;
          }
        }
        // One large sort per order, over every bit.
        SortCase big{
            &key, &value, descending,
            0,    0,      std::string(key.name) + ", " + value.name + (descending ? ", descending" : ", ascending")};
        checkTypedSort(s, big, makeKeys((1u << 20) + 3, key, Dist::Special, rng));
        ++sorts;
      }
      SortCase empty{&key, &value, false, 0, 0, std::string(key.name) + ", " + value.name + ", empty"};
      checkTypedSort(s, empty, {});
      ++sorts;
    }
  }
  MESSAGE("typed sorts checked: " << sorts);
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
  tuning.smallWorkgroupSize = 128;
  tuning.smallKeysPerThread = props.limits.maxComputeSharedMemorySize / (128 * 16) + 1;  // 16 bytes per key
  for (const ValueInfo* value : {&kValues[2], &kValues[3], &kValues[0]}) {
    SorterHolder s(&tuning, VKSORT_KEY_I64, value->type);
    const uint32_t small = s.smallSortKeys();
    REQUIRE(small == 128 * tuning.smallKeysPerThread);
    const BitRange ranges[] = {{0, 0, "all bits"}, {20, 44, "bits [20,44)"}, {0, 16, "bits [0,16)"}};
    int variant = 0;
    for (const BitRange& range : ranges)
      for (bool descending : {false, true}) {
        SortCase c{&kKeys[4], value, descending, range.begin, range.end, ""};
        c.label = std::string("one workgroup, 128 x ") + std::to_string(tuning.smallKeysPerThread) + ", i64, " +
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
  tuning.smallWorkgroupSize = 64;
  tuning.smallKeysPerThread = 33;
  for (const KeyInfo* key : {&kKeys[0], &kKeys[4]})
    for (const ValueInfo* value : {&kValues[0], &kValues[1]}) {
      SorterHolder s(&tuning, key->type, value->type);
      const uint32_t small = s.smallSortKeys();
      REQUIRE(small == 64 * 33);
      SortCase c{key, value, false, 0, 0, std::string("64 x 33, ") + key->name + ", " + value->name};
      for (uint32_t n : {2u, 100u, small / 2 + 1, small - 1, small})
        checkTypedSort(s, c, makeKeys(n, *key, Dist::Uniform, rng));
    }
}

TEST_CASE("the bitonic path: every key type x value type x order x bit range, both algorithms") {
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
        for (uint32_t keysMax : {1u, 256u}) {
          // The portable algorithm's passes are 8-bit too: the same result buffers.
          if (algorithm == VKSORT_ALGORITHM_PORTABLE && (&value != &kValues[1] || key.bits != 32)) continue;
          if (keysMax != 1 && value.type != VKSORT_VALUE_NONE) continue;
          VksortTuning tuning{};
          tuning.bitonicMaxCount = 256;
          tuning.bitonicKeysMaxCount = keysMax;
          SorterHolder s(&tuning, key.type, value.type, algorithm);
          int variant = 0;
          for (bool descending : {false, true})
            for (const BitRange& range : ranges) {
              SortCase c{&key, &value, descending, range.begin, range.end, ""};
              c.label = std::string(keysMax == 1 ? "bitonic, " : "bitonic without index up to 256, ") +
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
    CHECK(got.bitonicKeysMaxCount == 1);
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

TEST_CASE("the wide one-workgroup kernel: every key type x value type, up to smallMaxCount") {
  // Counts above the small shape's (64 x 4) and up to smallMaxCount (twice
  // that) go to a one-workgroup kernel of 128 invocations (on by default on
  // NVIDIA only, for 32-bit keys without values); one more goes to the
  // mid-size path.
  auto rng = caseRng(19);
  VksortTuning tuning{};
  tuning.smallWorkgroupSize = 64;
  tuning.smallKeysPerThread = 4;
  tuning.smallMaxCount = 512;
  tuning.mediumMaxCount = 1u << 14;
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      SorterHolder s(&tuning, key.type, value.type);
      VksortTuning got;
      REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
      REQUIRE(got.smallMaxCount == 512);
      int variant = 0;
      for (bool descending : {false, true}) {
        SortCase c{&key, &value, descending, 0, descending ? 24u : 0u, ""};
        c.label = std::string(key.name) + ", " + value.name +
                  (descending ? ", descending, bits [0,24)" : ", ascending") + ", wide one-workgroup kernel";
        for (uint32_t n : {257u, 300u, 511u, 512u, 513u})
          checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
      }
    }
  // The default without a small shape of one's own: doubled on NVIDIA only
  // where it fits; a given small shape keeps one kernel.
  VksortTuning shape{};
  shape.smallWorkgroupSize = 64;
  SorterHolder s(&shape);
  VksortTuning got;
  REQUIRE(vksortGetTuning(s.sorter, &got) == VKSORT_SUCCESS);
  CHECK(got.smallMaxCount == got.smallWorkgroupSize * got.smallKeysPerThread);
}

TEST_CASE("the mid-size path sorts every key type x value type") {
  // Onesweep in the small path's tiles (on by default on NVIDIA only).
  auto rng = caseRng(14);
  VksortTuning tuning{};
  tuning.mediumMaxCount = 1u << 16;
  for (const KeyInfo& key : kKeys)
    for (const ValueInfo& value : kValues) {
      SorterHolder s(&tuning, key.type, value.type);
      const uint32_t small = s.smallSortKeys();
      int variant = 0;
      for (bool descending : {false, true}) {
        SortCase c{&key, &value, descending, 0, 0, ""};
        c.label = std::string(key.name) + ", " + value.name + (descending ? ", descending" : ", ascending") +
                  ", mid-size path";
        for (uint32_t n : {small + 1, 5 * small + 7}) checkTypedSort(s, c, makeKeys(n, key, Dist(variant++ % 3), rng));
      }
    }
}

TEST_CASE("floats follow IEEE-754 totalOrder in both directions") {
  // -NaN < -inf < -max < -1 < -denormal < -0 < +0 < +denormal < 1 < max < +inf < +NaN
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
  for (int which = 0; which < 2; ++which) {
    const KeyInfo& key = kKeys[which == 0 ? 2 : 5];
    const std::vector<uint64_t>& expected = which == 0 ? expected32 : expected64;
    SorterHolder s(nullptr, key.type, VKSORT_VALUE_NONE);
    for (bool descending : {false, true}) {
      std::vector<uint64_t> keys = expected;
      std::shuffle(keys.begin(), keys.end(), rng);
      VksortMemoryRequirements req;
      const uint32_t n = uint32_t(keys.size());
      REQUIRE(vksortGetMemoryRequirements(s.sorter, n, &req) == VKSORT_SUCCESS);
      GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage);
      for (uint32_t i = 0; i < n; ++i) writeElement(kb.bytes(), i, key.bits / 8, keys[i]);
      VksortSortInfo si{};
      si.count = n;
      si.keys = kb.range();
      si.alt = ab.range();
      si.temp = tb.range();
      si.descending = descending;
      VkCommandBuffer cmd = gCtx->beginCommands();
      VksortResultBuffer where;
      REQUIRE(vksortRecordSort(s.sorter, cmd, &si, &where) == VKSORT_SUCCESS);
      barrierToHost(cmd);
      submitOrDie(cmd, "totalOrder");
      const void* got = where == VKSORT_RESULT_IN_ALT ? ab.bytes() : kb.bytes();
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t want = descending ? expected[n - 1 - i] : expected[i];
        CHECK_MESSAGE(readElement(got, i, key.bits / 8) == want,
                      key.name << (descending ? " descending" : " ascending") << ", position " << i);
      }
    }
  }
  requireNoValidationMessages();
}

TEST_CASE("indirect count: below, at and above maxCount (clamped)") {
  auto rng = caseRng(13);
  for (const ValueInfo* value : {&kValues[0], &kValues[3]}) {
    SorterHolder s(nullptr, VKSORT_KEY_U32, value->type);
    const uint32_t t = s.tile();
    const uint32_t maxCount = 3 * t + 5;
    const std::vector<uint64_t> keys = makeKeys(maxCount, kKeys[0], Dist::Few, rng);
    SortCase c{&kKeys[0], value, false, 0, 0, std::string("indirect, ") + value->name};
    for (int64_t count : {int64_t(0), int64_t(1), int64_t(t), int64_t(maxCount - 1), int64_t(maxCount),
                          int64_t(maxCount + 7), int64_t(0xffffffffu)})
      checkTypedSort(s, c, keys, count);
    SortCase desc{&kKeys[0], value, true, 0, 30, std::string("indirect, descending, 30 bits, ") + value->name};
    checkTypedSort(s, desc, keys, 2 * t + 1);
    // maxCount within the one-workgroup path.
    const uint32_t small = s.smallSortKeys();
    const std::vector<uint64_t> few = makeKeys(small, kKeys[0], Dist::Few, rng);
    for (int64_t count : {int64_t(0), int64_t(1), int64_t(small / 2 + 1), int64_t(small), int64_t(small + 3)})
      checkTypedSort(s, c, few, count);
  }
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
    INFO(b.what);
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

// vksort tests for every key type, value type, order, bit range and the
// indirect count, against std::stable_sort on the CPU.
//
// The CPU reference defines the promised order independently of the shaders:
// signed keys by value, floats by IEEE-754 totalOrder, ties (equal in the
// sorted bits) in input order, in both directions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "harness.h"

namespace {

struct KeyInfo {
  VksortKeyType type;
  const char* name;
  uint32_t bits;
  enum Kind { Unsigned, Signed, Float } kind;
};

const KeyInfo kKeys[] = {
    {VKSORT_KEY_U32, "u32", 32, KeyInfo::Unsigned}, {VKSORT_KEY_I32, "i32", 32, KeyInfo::Signed},
    {VKSORT_KEY_F32, "f32", 32, KeyInfo::Float},    {VKSORT_KEY_U64, "u64", 64, KeyInfo::Unsigned},
    {VKSORT_KEY_I64, "i64", 64, KeyInfo::Signed},   {VKSORT_KEY_F64, "f64", 64, KeyInfo::Float},
};

struct ValueInfo {
  VksortValueType type;
  const char* name;
  uint32_t bytes;
};

const ValueInfo kValues[] = {
    {VKSORT_VALUE_NONE, "keys only", 0},
    {VKSORT_VALUE_32, "32-bit values", 4},
    {VKSORT_VALUE_64, "64-bit values", 8},
    {VKSORT_VALUE_INDEX, "argsort", 4},
};

// The order-preserving unsigned pattern of a key (the CPU's own definition:
// integers by value, floats by totalOrder).
uint64_t orderBits(uint64_t raw, const KeyInfo& k) {
  const uint64_t sign = uint64_t(1) << (k.bits - 1);
  const uint64_t all = k.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << k.bits) - 1;
  raw &= all;
  switch (k.kind) {
    case KeyInfo::Unsigned: return raw;
    case KeyInfo::Signed: return raw ^ sign;
    case KeyInfo::Float: return (raw & sign) ? (~raw & all) : (raw | sign);
  }
  return raw;
}

uint64_t rangeBits(uint64_t ordered, uint32_t begin, uint32_t end) {
  const uint32_t width = end - begin;
  const uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  return (ordered >> begin) & mask;
}

enum class Dist { Uniform, Few, Special };

// Keys as raw bits (32-bit types in the low half).
std::vector<uint64_t> makeKeys(uint32_t n, const KeyInfo& k, Dist dist, std::mt19937_64& rng) {
  std::vector<uint64_t> special;
  if (k.kind == KeyInfo::Float && k.bits == 32) {
    const float f[] = {0.0f,
                       -0.0f,
                       1.0f,
                       -1.0f,
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::denorm_min(),
                       -std::numeric_limits<float>::denorm_min(),
                       std::numeric_limits<float>::max(),
                       -std::numeric_limits<float>::max(),
                       1e-40f,
                       -1e-40f};
    for (float x : f) {
      uint32_t b;
      std::memcpy(&b, &x, 4);
      special.push_back(b);
    }
    for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0x7fffffffu, 0xffc00000u, 0xff800001u, 0xffffffffu})
      special.push_back(nan);
  } else if (k.kind == KeyInfo::Float) {
    const double f[] = {0.0,
                        -0.0,
                        1.0,
                        -1.0,
                        std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::denorm_min(),
                        -std::numeric_limits<double>::denorm_min(),
                        std::numeric_limits<double>::max(),
                        -std::numeric_limits<double>::max(),
                        1e-310,
                        -1e-310};
    for (double x : f) {
      uint64_t b;
      std::memcpy(&b, &x, 8);
      special.push_back(b);
    }
    for (uint64_t nan : {0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000000000ull, 0xffffffffffffffffull})
      special.push_back(nan);
  } else {
    const uint64_t top = uint64_t(1) << (k.bits - 1);
    special = {0, 1, top - 1, top, top + 1, (k.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << k.bits) - 1)};
  }
  std::vector<uint64_t> few(7);
  for (uint64_t& f : few) f = rng();
  std::vector<uint64_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) {
    switch (dist) {
      case Dist::Uniform: keys[i] = rng(); break;
      case Dist::Few: keys[i] = few[rng() % few.size()]; break;
      case Dist::Special: keys[i] = rng() % 3 == 0 ? rng() : special[rng() % special.size()]; break;
    }
    if (k.bits == 32) keys[i] &= 0xffffffffu;
  }
  return keys;
}

struct SortCase {
  const KeyInfo* key;
  const ValueInfo* value;
  bool descending = false;
  uint32_t beginBit = 0, endBit = 0;  // 0, 0: every bit
  std::string label;
};

// What the CPU expects: the input indices in sorted order.
std::vector<uint32_t> referenceOrder(const std::vector<uint64_t>& keys, const SortCase& c) {
  const uint32_t begin = c.endBit ? c.beginBit : 0, end = c.endBit ? c.endBit : c.key->bits;
  std::vector<uint64_t> sortKey(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) sortKey[i] = rangeBits(orderBits(keys[i], *c.key), begin, end);
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  if (c.descending)
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return sortKey[a] > sortKey[b]; });
  else
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return sortKey[a] < sortKey[b]; });
  return order;
}

uint64_t valueOf(uint32_t i, const ValueInfo& v, uint64_t salt) {
  const uint32_t lo = i * 2654435761u ^ uint32_t(salt);  // distinct for distinct i
  if (v.type == VKSORT_VALUE_INDEX) return i;
  if (v.type == VKSORT_VALUE_64) return (salt & 0xffffffff00000000ull) | lo;
  return lo;
}

uint64_t readElement(const void* base, size_t i, uint32_t bytes) {
  if (bytes == 8) {
    uint64_t v;
    std::memcpy(&v, static_cast<const uint8_t*>(base) + i * 8, 8);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, static_cast<const uint8_t*>(base) + i * 4, 4);
  return v;
}

void writeElement(void* base, size_t i, uint32_t bytes, uint64_t v) {
  if (bytes == 8)
    std::memcpy(static_cast<uint8_t*>(base) + i * 8, &v, 8);
  else {
    const uint32_t w = uint32_t(v);
    std::memcpy(static_cast<uint8_t*>(base) + i * 4, &w, 4);
  }
}

// Sorts keys (and values) on the GPU and compares keys and values with the
// stable CPU reference. indirectCount >= 0: the count is read from a GPU
// buffer holding that value, with keys.size() as the maximum.
void checkTypedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys,
                    int64_t indirectCount = -1) {
  const uint32_t maxCount = uint32_t(keys.size());
  const uint32_t n = indirectCount < 0 ? maxCount : uint32_t(std::min<int64_t>(indirectCount, maxCount));
  INFO(c.label << ": N = " << n << " (max " << maxCount << "), seed = " << gSeed);
  const uint32_t keyBytes = c.key->bits / 8, valueBytes = c.value->bytes;
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(s.sorter, maxCount, &req) == VKSORT_SUCCESS);
  CHECK(req.valuesSize == VkDeviceSize(maxCount) * valueBytes);
  GuardedRange kb(req.keysSize, req.keysUsage), ab(req.altSize, req.altUsage), tb(req.tempSize, req.tempUsage);
  const VkBufferUsageFlags valueUsage =
      valueBytes ? req.valuesUsage : VkBufferUsageFlags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  GuardedRange vb(req.valuesSize, valueUsage), avb(req.valuesSize, valueUsage);
  GuardedRange cb(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const uint64_t salt = gSeed * 0x9e3779b97f4a7c15ull + maxCount;
  for (uint32_t i = 0; i < maxCount; ++i) {
    writeElement(kb.bytes(), i, keyBytes, keys[i]);
    if (valueBytes && c.value->type != VKSORT_VALUE_INDEX)
      writeElement(vb.bytes(), i, valueBytes, valueOf(i, *c.value, salt));
  }
  if (indirectCount >= 0) *cb.data() = uint32_t(indirectCount);

  VksortSortInfo si{};
  si.count = maxCount;
  si.keys = kb.range();
  si.alt = ab.range();
  si.temp = tb.range();
  if (valueBytes) {
    si.values = vb.range();
    si.altValues = avb.range();
  }
  si.descending = c.descending ? VK_TRUE : VK_FALSE;
  si.beginBit = c.beginBit;
  si.endBit = c.endBit;
  if (indirectCount >= 0) si.countBuffer = cb.range();
  VkCommandBuffer cmd = gCtx->beginCommands();
  VksortResultBuffer where;
  REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &si, &where) == VKSORT_SUCCESS, vksortGetLastError());
  barrierToHost(cmd);
  submitOrDie(cmd, c.label + ", N = " + std::to_string(n));

  const std::vector<uint64_t> input(keys.begin(), keys.begin() + n);
  const std::vector<uint32_t> order = referenceOrder(input, c);
  const bool inAlt = where == VKSORT_RESULT_IN_ALT;
  const void* gotKeys = inAlt ? ab.bytes() : kb.bytes();
  const void* gotValues = inAlt ? avb.bytes() : vb.bytes();
  size_t badKey = n, badValue = n;
  for (size_t i = 0; i < n && (badKey == n || badValue == n); ++i) {
    if (badKey == n && readElement(gotKeys, i, keyBytes) != keys[order[i]]) badKey = i;
    if (badValue == n && valueBytes && readElement(gotValues, i, valueBytes) != valueOf(order[i], *c.value, salt))
      badValue = i;
  }
  CHECK_MESSAGE(badKey == n, "first key mismatch at " << badKey);
  CHECK_MESSAGE(badValue == n, "first value mismatch at " << badValue << " (stability or payload)");
  for (const GuardedRange* g : {&kb, &ab, &tb, &vb, &avb, &cb})
    CHECK_MESSAGE(g->guardsIntact(), "write outside a range");
  requireNoValidationMessages();
}

struct BitRange {
  uint32_t begin, end;
  const char* name;
};

}  // namespace

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
          for (uint32_t n : {1u, s.smallSortKeys() + 1, t - 1, t + 1, 65537u}) {
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

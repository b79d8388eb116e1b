// The typed sort checks shared by the test files (see typed_check.h).
#include "typed_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

const KeyInfo kKeys[6] = {
    {VKSORT_KEY_U32, "u32", 32, KeyInfo::Unsigned}, {VKSORT_KEY_I32, "i32", 32, KeyInfo::Signed},
    {VKSORT_KEY_F32, "f32", 32, KeyInfo::Float},    {VKSORT_KEY_U64, "u64", 64, KeyInfo::Unsigned},
    {VKSORT_KEY_I64, "i64", 64, KeyInfo::Signed},   {VKSORT_KEY_F64, "f64", 64, KeyInfo::Float},
};

const ValueInfo kValues[4] = {
    {VKSORT_VALUE_NONE, "keys only", 0},
    {VKSORT_VALUE_32, "32-bit values", 4},
    {VKSORT_VALUE_64, "64-bit values", 8},
    {VKSORT_VALUE_INDEX, "argsort", 4},
};

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

void checkTypedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys,
                    int64_t indirectCount) {
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
  // The result buffer follows the number of passes of the sorter's algorithm.
  VksortAlgorithm algorithm;
  uint32_t radixBits = 0;
  REQUIRE(vksortGetAlgorithm(s.sorter, &algorithm, &radixBits) == VKSORT_SUCCESS);
  const uint32_t sortedBits = c.endBit ? c.endBit - c.beginBit : c.key->bits;
  const uint32_t passes = (sortedBits + radixBits - 1) / radixBits;
  CHECK(where == (passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS));
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

// The one sort checker shared by the test files (see typed_check.h).
#include "typed_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

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

namespace {

uint64_t rangeBits(uint64_t ordered, uint32_t begin, uint32_t end) {
  const uint32_t width = end - begin;
  const uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  return (ordered >> begin) & mask;
}

}  // namespace

const char* distName(Dist d) {
  switch (d) {
    case Dist::Uniform: return "uniform";
    case Dist::Few: return "few-unique";
    case Dist::Special: return "special values";
    case Dist::AllEqual: return "all-equal";
    case Dist::Sorted: return "sorted";
    case Dist::Reversed: return "reversed";
    case Dist::HighByte: return "high-byte";
  }
  return "?";
}

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
  const uint64_t one = rng();                                // AllEqual's key, HighByte's other bits
  const uint64_t highByte = uint64_t(0xff) << (k.bits - 8);  // the key's top byte
  std::vector<uint64_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) {
    switch (dist) {
      case Dist::Uniform:
      case Dist::Sorted:
      case Dist::Reversed: keys[i] = rng(); break;
      case Dist::Few: keys[i] = few[rng() % few.size()]; break;
      case Dist::Special: keys[i] = rng() % 3 == 0 ? rng() : special[rng() % special.size()]; break;
      case Dist::AllEqual: keys[i] = one; break;
      case Dist::HighByte: keys[i] = (rng() & highByte) | (one & ~highByte); break;
    }
    if (k.bits == 32) keys[i] &= 0xffffffffu;
  }
  if (dist == Dist::Sorted || dist == Dist::Reversed) {
    const bool up = dist == Dist::Sorted;
    std::sort(keys.begin(), keys.end(), [&](uint64_t a, uint64_t b) {
      return up ? orderBits(a, k) < orderBits(b, k) : orderBits(a, k) > orderBits(b, k);
    });
  }
  return keys;
}

namespace {

// What the CPU expects: the input indices in sorted order (std::stable_sort
// of (sort bits, index) pairs by their sort bits).
std::vector<uint32_t> referenceOrder(const std::vector<uint64_t>& keys, const SortCase& c) {
  const uint32_t begin = c.endBit ? c.beginBit : 0, end = c.endBit ? c.endBit : c.key->bits;
  std::vector<std::pair<uint64_t, uint32_t>> sorted(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) sorted[i] = {rangeBits(orderBits(keys[i], *c.key), begin, end), uint32_t(i)};
  using Pair = std::pair<uint64_t, uint32_t>;
  if (c.descending)
    std::stable_sort(sorted.begin(), sorted.end(), [](const Pair& a, const Pair& b) { return a.first > b.first; });
  else
    std::stable_sort(sorted.begin(), sorted.end(), [](const Pair& a, const Pair& b) { return a.first < b.first; });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = sorted[i].second;
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

namespace {

VksortMemoryRequirements requirementsFor(VksortSorter sorter, uint32_t maxCount) {
  VksortMemoryRequirements req;
  REQUIRE(vksortGetMemoryRequirements(sorter, maxCount, &req) == VKSORT_SUCCESS);
  return req;
}

VkBufferUsageFlags valueUsage(const VksortMemoryRequirements& req) {
  return req.valuesSize ? req.valuesUsage : VkBufferUsageFlags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
}

}  // namespace

SortCase makeCase(const KeyInfo& key, const ValueInfo& value, bool descending, const BitRange& range,
                  const std::string& what) {
  SortCase c{&key, &value, descending, range.begin, range.end, ""};
  c.label =
      what + ", " + key.name + ", " + value.name + ", " + (descending ? "descending" : "ascending") + ", " + range.name;
  return c;
}

const char* algorithmName(VksortAlgorithm algorithm) {
  switch (algorithm) {
    case VKSORT_ALGORITHM_AUTO: return "AUTO";
    case VKSORT_ALGORITHM_ONESWEEP: return "Onesweep";
    case VKSORT_ALGORITHM_PORTABLE: return "portable";
  }
  return "?";
}

TypedSort::TypedSort(const SorterHolder& s, const SortCase& sc, const std::vector<uint64_t>& inputKeys,
                     int64_t indirectCount, bool uploadKeys)
    : sorter(s.sorter),
      sortCase(sc),
      input(inputKeys),
      count(indirectCount < 0 ? uint32_t(inputKeys.size())
                              : uint32_t(std::min<int64_t>(indirectCount, int64_t(inputKeys.size())))),
      salt(gSeed * 0x9e3779b97f4a7c15ull + inputKeys.size()),
      req(requirementsFor(s.sorter, uint32_t(inputKeys.size()))),
      keys(req.keysSize, req.keysUsage),
      alt(req.altSize, req.altUsage),
      temp(req.tempSize, req.tempUsage),
      values(req.valuesSize, valueUsage(req)),
      altValues(req.valuesSize, valueUsage(req)),
      countBuffer(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) {
  const uint32_t maxCount = uint32_t(input.size());
  const uint32_t keyBytes = sc.key->bits / 8, valueBytes = sc.value->bytes;
  CHECK(req.valuesSize == VkDeviceSize(maxCount) * valueBytes);
  for (uint32_t i = 0; i < maxCount; ++i) {
    if (uploadKeys) writeElement(keys.bytes(), i, keyBytes, input[i]);
    if (valueBytes && sc.value->type != VKSORT_VALUE_INDEX)
      writeElement(values.bytes(), i, valueBytes, valueOf(i, *sc.value, salt));
  }
  info.count = maxCount;
  info.keys = keys.range();
  info.alt = alt.range();
  info.temp = temp.range();
  if (valueBytes) {
    info.values = values.range();
    info.altValues = altValues.range();
  }
  info.descending = sc.descending ? VK_TRUE : VK_FALSE;
  info.beginBit = sc.beginBit;
  info.endBit = sc.endBit;
  if (indirectCount >= 0) {
    *countBuffer.data() = uint32_t(indirectCount);
    info.countBuffer = countBuffer.range();
  }
}

void TypedSort::check(VksortResultBuffer where, const std::vector<uint64_t>* expectedKeys) const {
  const SortCase& c = sortCase;
  const uint32_t n = count;
  INFO(c.label << ": N = " << n << " (max " << input.size() << "), seed = " << gSeed);
  const uint32_t keyBytes = c.key->bits / 8, valueBytes = c.value->bytes;
  // The result buffer follows the number of passes of the sorter's algorithm.
  VksortAlgorithm algorithm;
  uint32_t radixBits = 0;
  REQUIRE(vksortGetAlgorithm(sorter, &algorithm, &radixBits) == VKSORT_SUCCESS);
  const uint32_t sortedBits = c.endBit ? c.endBit - c.beginBit : c.key->bits;
  const uint32_t passes = (sortedBits + radixBits - 1) / radixBits;
  CHECK(where == (passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS));

  const std::vector<uint64_t> live(input.begin(), input.begin() + n);
  const std::vector<uint32_t> order = referenceOrder(live, c);
  const bool inAlt = where == VKSORT_RESULT_IN_ALT;
  const void* gotKeys = inAlt ? alt.bytes() : keys.bytes();
  const void* gotValues = inAlt ? altValues.bytes() : values.bytes();
  size_t badKey = n, badValue = n;
  for (size_t i = 0; i < n && (badKey == n || badValue == n); ++i) {
    if (badKey == n && readElement(gotKeys, i, keyBytes) != input[order[i]]) badKey = i;
    if (badValue == n && valueBytes && readElement(gotValues, i, valueBytes) != valueOf(order[i], *c.value, salt))
      badValue = i;
  }
  CHECK_MESSAGE(badKey == n, "first key mismatch at " << badKey);
  CHECK_MESSAGE(badValue == n, "first value mismatch at " << badValue << " (stability or payload)");
  if (expectedKeys) {
    REQUIRE(expectedKeys->size() == n);
    size_t badExpected = n;
    for (size_t i = 0; i < n && badExpected == n; ++i)
      if (readElement(gotKeys, i, keyBytes) != (*expectedKeys)[i]) badExpected = i;
    CHECK_MESSAGE(badExpected == n, "first mismatch with the expected keys at " << badExpected);
  }
  for (const GuardedRange* g : {&keys, &alt, &temp, &values, &altValues, &countBuffer})
    CHECK_MESSAGE(g->guardsIntact(), "write outside a range");
  requireNoValidationMessages();
}

void checkTypedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys, int64_t indirectCount,
                    const std::vector<uint64_t>* expectedKeys) {
  TypedSort t(s, c, keys, indirectCount);
  VkCommandBuffer cmd = gCtx->beginCommands();
  VksortResultBuffer where;
  {
    INFO(c.label << ": N = " << t.count << " (max " << keys.size() << "), seed = " << gSeed);
    REQUIRE_MESSAGE(vksortRecordSort(s.sorter, cmd, &t.info, &where) == VKSORT_SUCCESS, vksortGetLastError());
  }
  barrierToHost(cmd);
  submitOrDie(cmd, c.label + ", N = " + std::to_string(t.count));
  t.check(where, expectedKeys);
}

void checkSegmentedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& input,
                        const std::vector<uint32_t>& offsets, int64_t gpuSegmentCount, bool overlapping,
                        uint32_t maxSegments, uint32_t* twoDigitSplits) {
  REQUIRE(!offsets.empty());
  const uint32_t n = uint32_t(input.size());
  const uint32_t segmentCount = uint32_t(offsets.size() - 1);
  const uint32_t live = gpuSegmentCount < 0 ? segmentCount : uint32_t(std::min<int64_t>(gpuSegmentCount, segmentCount));
  INFO(c.label << ": N = " << n << ", " << segmentCount << " segments (" << live << " live), seed = " << gSeed);
  VksortMemoryRequirements req;
  REQUIRE(vksortGetSegmentedMemoryRequirements(s.sorter, n, maxSegments ? maxSegments : segmentCount, &req) ==
          VKSORT_SUCCESS);
  const uint32_t keyBytes = c.key->bits / 8, valueBytes = c.value->bytes;
  const uint64_t salt = gSeed * 0x9e3779b97f4a7c15ull + n + segmentCount;
  GuardedRange keys(req.keysSize, req.keysUsage), alt(req.altSize, req.altUsage), temp(req.tempSize, req.tempUsage),
      values(req.valuesSize, valueUsage(req)), altValues(req.valuesSize, valueUsage(req)),
      offsetsBuffer(offsets.size() * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT),
      countBuffer(4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  // Alt starts as a pattern that no sort writes outside the segments.
  constexpr uint64_t kUntouched = 0x5a5a5a5a5a5a5a5aull;
  for (uint32_t i = 0; i < n; ++i) {
    writeElement(keys.bytes(), i, keyBytes, input[i]);
    writeElement(alt.bytes(), i, keyBytes, kUntouched);
    if (valueBytes) {
      writeElement(values.bytes(), i, valueBytes, valueOf(i, *c.value, salt));
      writeElement(altValues.bytes(), i, valueBytes, kUntouched);
    }
  }
  std::memcpy(offsetsBuffer.bytes(), offsets.data(), offsets.size() * 4);
  VksortSegmentedSortInfo info{};
  info.sort.count = n;
  info.sort.keys = keys.range();
  info.sort.alt = alt.range();
  info.sort.temp = temp.range();
  if (valueBytes) {
    info.sort.values = values.range();
    info.sort.altValues = altValues.range();
  }
  info.sort.descending = c.descending ? VK_TRUE : VK_FALSE;
  info.sort.beginBit = c.beginBit;
  info.sort.endBit = c.endBit;
  info.segmentCount = segmentCount;
  info.segmentOffsets = offsetsBuffer.range();
  if (gpuSegmentCount >= 0) {
    *countBuffer.data() = uint32_t(gpuSegmentCount);
    info.segmentCountBuffer = countBuffer.range();
  }
  VkCommandBuffer cmd = gCtx->beginCommands();
  VksortResultBuffer where;
  REQUIRE_MESSAGE(vksortRecordSegmentedSort(s.sorter, cmd, &info, &where) == VKSORT_SUCCESS, vksortGetLastError());
  barrierToHost(cmd);
  submitOrDie(cmd, c.label);

  VksortAlgorithm algorithm;
  uint32_t radixBits = 0;
  REQUIRE(vksortGetAlgorithm(s.sorter, &algorithm, &radixBits) == VKSORT_SUCCESS);
  const uint32_t sortedBits = c.endBit ? c.endBit - c.beginBit : c.key->bits;
  CHECK(where == (((sortedBits + radixBits - 1) / radixBits) % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS));
  for (const GuardedRange* g : {&keys, &alt, &temp, &values, &altValues, &offsetsBuffer, &countBuffer})
    CHECK_MESSAGE(g->guardsIntact(), "write outside a range");
  requireNoValidationMessages();
  if (twoDigitSplits) {
    VkDeviceSize at = 0;
    REQUIRE(vksortTestingTwoDigitSplits(s.sorter, &info, &at) == VKSORT_SUCCESS);
    *twoDigitSplits = 0;
    if (at != VK_WHOLE_SIZE) std::memcpy(twoDigitSplits, static_cast<const uint8_t*>(temp.bytes()) + at, 4);
  }
  if (n == 0 || segmentCount == 0) {
    // Nothing was recorded: not even the clearing of temp's header.
    const uint8_t* t = static_cast<const uint8_t*>(temp.bytes());
    CHECK_MESSAGE(std::all_of(t, t + temp.size, [](uint8_t b) { return b == kCanary; }),
                  "temp was written by a sort with nothing to sort");
  }
  if (overlapping) return;

  const bool inAlt = where == VKSORT_RESULT_IN_ALT;
  const GuardedRange &resultKeys = inAlt ? alt : keys, &resultValues = inAlt ? altValues : values;
  std::vector<bool> covered(n, false);
  uint32_t badSegments = 0, firstBad = 0, badAt = 0, badSize = 0;
  for (uint32_t seg = 0; seg < live; ++seg) {
    const uint32_t begin = std::min(offsets[seg], n), end = std::max(begin, std::min(offsets[seg + 1], n));
    const std::vector<uint64_t> part(input.begin() + begin, input.begin() + end);
    const std::vector<uint32_t> order = referenceOrder(part, c);
    bool bad = false;
    for (uint32_t j = 0; j < end - begin; ++j) {
      const uint32_t from = begin + order[j];
      covered[begin + j] = true;
      if (!bad &&
          (readElement(resultKeys.bytes(), begin + j, keyBytes) != input[from] ||
           (valueBytes && readElement(resultValues.bytes(), begin + j, valueBytes) != valueOf(from, *c.value, salt)))) {
        bad = true;
        if (badSegments++ == 0) {
          firstBad = seg;
          badAt = j;
          badSize = end - begin;
        }
      }
    }
  }
  CHECK_MESSAGE(badSegments == 0, badSegments << " segments wrong; the first: segment " << firstBad << " of " << badSize
                                              << " keys, at its key " << badAt);
  size_t touched = n;
  for (uint32_t i = 0; i < n && touched == n; ++i) {
    if (covered[i]) continue;
    const bool keysSame =
        readElement(keys.bytes(), i, keyBytes) == input[i] &&
        readElement(alt.bytes(), i, keyBytes) == (kUntouched & (keyBytes == 8 ? ~0ull : 0xffffffffull));
    const bool valuesSame = !valueBytes || (readElement(values.bytes(), i, valueBytes) == valueOf(i, *c.value, salt) &&
                                            readElement(altValues.bytes(), i, valueBytes) ==
                                                (kUntouched & (valueBytes == 8 ? ~0ull : 0xffffffffull)));
    if (!keysSame || !valuesSame) touched = i;
  }
  CHECK_MESSAGE(touched == n, "a key or value outside every segment changed, first at " << touched);
}

std::vector<uint32_t> segmentOffsetsOf(const std::vector<uint32_t>& sizes, uint32_t first) {
  std::vector<uint32_t> offsets{first};
  for (uint32_t size : sizes) offsets.push_back(offsets.back() + size);
  return offsets;
}

VksortSegmentedSortPlan segmentedPlan(const SorterHolder& s, uint32_t count) {
  VksortSegmentedSortInfo info{};
  info.sort.count = count;
  info.segmentCount = 1;
  VksortSegmentedSortPlan plan{};
  REQUIRE_MESSAGE(vksortGetSegmentedSortPlan(s.sorter, &info, &plan) == VKSORT_SUCCESS,
                  std::string(vksortGetLastError()));
  REQUIRE(plan.microMaxCount >= 1);
  REQUIRE(plan.tinyMaxCount >= plan.microMaxCount);
  REQUIRE(plan.subgroupMaxCount >= plan.tinyMaxCount);
  REQUIRE(plan.smallMaxCount >= plan.subgroupMaxCount);
  REQUIRE(plan.mediumMaxCount >= plan.smallMaxCount);
  REQUIRE(plan.tileKeys >= 1);
  return plan;
}

std::vector<uint32_t> segmentClassTops(const VksortSegmentedSortPlan& p) {
  std::vector<uint32_t> tops;
  for (uint32_t top :
       {p.microMaxCount, p.tinyMaxCount, p.halfMaxCount, p.subgroupMaxCount, p.smallMaxCount, p.mediumMaxCount})
    if (tops.empty() || top > tops.back()) tops.push_back(top);
  return tops;
}

std::vector<uint32_t> everyClassSizes(const VksortSegmentedSortPlan& p, std::mt19937_64& rng) {
  auto between = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(rng() % (hi - lo + 1)); };
  std::vector<uint32_t> sizes = {0, 0, 1, 1};
  // The classes sorted by networks: the top size of each and random ones,
  // more of the classes that pack several segments into a subgroup.
  uint32_t lo = 1, copies = 6;
  for (uint32_t top : segmentClassTops(p)) {
    sizes.push_back(top);
    for (uint32_t i = 0; i < copies; ++i) sizes.push_back(between(lo, top));
    lo = top + 1;
    copies = copies > 2 ? copies / 2 : 1;
  }
  const uint32_t medium = p.mediumMaxCount, tile = p.tileKeys;
  sizes.push_back(between(medium + 1, std::max(medium + 1, tile)));  // one tile where the tile is larger
  sizes.push_back(between(std::max(medium + 1, 2 * tile + 1), std::max(medium + 1, 2 * tile + 1) + tile));
  std::shuffle(sizes.begin(), sizes.end(), rng);
  return sizes;
}

void checkSegments(const SorterHolder& s, const SortCase& c, const std::vector<uint32_t>& sizes, Dist dist,
                   std::mt19937_64& rng, uint32_t first, uint32_t tail) {
  const std::vector<uint32_t> offsets = segmentOffsetsOf(sizes, first);
  const std::vector<uint64_t> keys = makeKeys(offsets.back() + tail, *c.key, dist, rng);
  checkSegmentedSort(s, c, keys, offsets);
}

// Every key type (of keyBits bits; 0: all) x value type x order x bit range
// for one algorithm, at the tile's edges (with Onesweep also the
// one-workgroup path's: 16, 24 and 12-bit ranges take 2 or 3 passes there),
// one large sort per order over every bit (the portable algorithm's: many
// tiles and several scan blocks) and an empty one. radixBits: the portable
// algorithm's digit width (0: 8); hooks hold the shapes to smaller limits.
void everyTypeOrderAndRange(VksortAlgorithm algorithm, uint32_t keyBits, uint64_t salt, uint32_t radixBits,
                            const VksortTestingHooks* hooks) {
  const bool onesweep = algorithm == VKSORT_ALGORITHM_ONESWEEP;
  const uint32_t bigCount = onesweep ? (1u << 20) + 3 : 300007u;
  auto rng = caseRng(salt);
  int sorts = 0;
  for (const KeyInfo& key : kKeys) {
    if (keyBits && key.bits != keyBits) continue;
    std::vector<BitRange> ranges = {kAllBits,
                                    {0, 30, "bits [0,30) (Morton)"},
                                    key.bits == 32 ? BitRange{8, 20, "bits [8,20)"} : BitRange{20, 44, "bits [20,44)"}};
    if (onesweep) ranges.insert(ranges.begin() + 1, BitRange{0, 16, "bits [0,16)"});
    for (const ValueInfo& value : kValues) {
      SorterHolder s(nullptr, key.type, value.type, algorithm, radixBits, false, hooks);
      const uint32_t t = s.tile(), small = s.oneWorkgroupKeys();
      std::vector<uint32_t> sizes = {1u, t - 1, t + 1, 65537u};
      if (onesweep) sizes.insert(sizes.begin() + 1, {small / 2 + 1, small - 1, small + 1});
      int variant = 0;
      for (bool descending : {false, true}) {
        for (const BitRange& range : ranges) {
          const SortCase c = makeCase(key, value, descending, range, algorithmName(algorithm));
          const Dist dist = Dist(variant++ % 3);
          for (uint32_t n : sizes) {
            checkTypedSort(s, c, makeKeys(n, key, dist, rng));
            ++sorts;
          }
        }
        const SortCase big = makeCase(key, value, descending, kAllBits, algorithmName(algorithm));
        checkTypedSort(s, big, makeKeys(bigCount, key, Dist::Special, rng));
        ++sorts;
      }
      const SortCase empty = makeCase(key, value, false, kAllBits, std::string(algorithmName(algorithm)) + ", empty");
      checkTypedSort(s, empty, {});
      ++sorts;
    }
  }
  MESSAGE(algorithmName(algorithm) << " typed sorts checked: " << sorts);
}

// The one sort checker of the test files: key and value types, key
// generators (distributions and special values), the CPU reference
// (std::stable_sort over each key's order-preserving bits) and TypedSort /
// checkTypedSort, which sort on the GPU and compare keys, values, the result
// buffer, guard bands and validation messages.
//
// The CPU reference defines the promised order independently of the shaders:
// signed keys by value, floats by IEEE-754 totalOrder, ties (equal in the
// sorted bits) in input order, in both directions.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness.h"

struct KeyInfo {
  VksortKeyType type;
  const char* name;
  uint32_t bits;
  enum Kind { Unsigned, Signed, Float } kind;
};

// u32, i32, f32, u64, i64, f64, in VksortKeyType order.
extern const KeyInfo kKeys[6];

// The order-preserving unsigned pattern of a key (the CPU's own definition:
// integers by value, floats by totalOrder).
uint64_t orderBits(uint64_t raw, const KeyInfo& k);

struct ValueInfo {
  VksortValueType type;
  const char* name;
  uint32_t bytes;
};

// Keys only, 32-bit, 64-bit, argsort, in VksortValueType order.
extern const ValueInfo kValues[4];

// Uniform: random bits. Few: 7 distinct keys. Special: the type's edge values
// (zeros, extremes, infinities, denormals, NaNs with payloads) among random
// ones. AllEqual: one key. Sorted, Reversed: random keys already in (reverse)
// key order. HighByte: random top byte, every other bit the same. The first
// three are the ones cases rotate through with Dist(i % 3).
enum class Dist { Uniform, Few, Special, AllEqual, Sorted, Reversed, HighByte };
const char* distName(Dist d);

// Keys as raw bits (32-bit types in the low half).
std::vector<uint64_t> makeKeys(uint32_t n, const KeyInfo& k, Dist dist, std::mt19937_64& rng);

struct SortCase {
  const KeyInfo* key;
  const ValueInfo* value;
  bool descending = false;
  uint32_t beginBit = 0, endBit = 0;  // 0, 0: every bit
  std::string label;
};

// One typed sort's buffers: keys (and values) written, every range between
// guard bands, `info` filled in (with the indirect count if indirectCount >=
// 0: a GPU buffer holding that value, with keys.size() as the maximum). Record
// the sort with `info` in any command buffer, submit it, then call check().
// uploadKeys = false leaves the keys range for the GPU to write (the test's
// own shader), with `keys` as what it will hold.
struct TypedSort {
  TypedSort(const SorterHolder& s, const SortCase& sc, const std::vector<uint64_t>& inputKeys,
            int64_t indirectCount = -1, bool uploadKeys = true);
  TypedSort(const TypedSort&) = delete;
  TypedSort& operator=(const TypedSort&) = delete;

  // Checks that `where` follows the sorter's pass count (vksortGetAlgorithm),
  // that keys and values there match the stable CPU reference (and the keys
  // expectedKeys, in order, where given), that no guard band was touched and
  // that the validation layer said nothing.
  void check(VksortResultBuffer where, const std::vector<uint64_t>* expectedKeys = nullptr) const;
  const GuardedRange& resultKeys(VksortResultBuffer where) const { return where == VKSORT_RESULT_IN_ALT ? alt : keys; }

  VksortSorter sorter;
  SortCase sortCase;
  std::vector<uint64_t> input;
  uint32_t count;  // the keys the sort sees: keys.size(), or the indirect count clamped to it
  uint64_t salt;   // for the values
  VksortMemoryRequirements req;
  GuardedRange keys, alt, temp, values, altValues, countBuffer;
  VksortSortInfo info{};
};

// Sorts keys (and values) on the GPU in a command buffer of its own and
// checks them with TypedSort::check.
void checkTypedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys,
                    int64_t indirectCount = -1, const std::vector<uint64_t>* expectedKeys = nullptr);

// Segmented sorts: sorts keys (and values) in the segments of CSR `offsets`
// (segmentCount + 1 entries, as the GPU will read them; they may be bad)
// with vksortRecordSegmentedSort and checks, for every segment (offsets
// clamped as vksort.h says), the stable CPU reference in the result buffer;
// outside every segment, keys and values unchanged in both buffers; no
// write outside a range; no validation message. gpuSegmentCount >= 0: the
// segment count comes from a GPU buffer holding it (clamped to
// segmentCount). overlapping: the offsets make segments overlap, whose
// contents are then undefined: only the ranges and messages are checked.
// maxSegments: the temp memory's (0: segmentCount). twoDigitSplits: where
// to return how many segments the sort split on their top two digits
// (vksortTestingTwoDigitSplits).
void checkSegmentedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys,
                        const std::vector<uint32_t>& offsets, int64_t gpuSegmentCount = -1, bool overlapping = false,
                        uint32_t maxSegments = 0, uint32_t* twoDigitSplits = nullptr);

// A sorter with segmented sorts (VksortCreateInfo::segmented).
struct SegmentedSorter : SorterHolder {
  SegmentedSorter(VksortKeyType key, VksortValueType value, VksortAlgorithm algorithm = VKSORT_ALGORITHM_AUTO,
                  uint32_t portableRadixBits = 0, const VksortTestingHooks* hooks = nullptr)
      : SorterHolder(nullptr, key, value, algorithm, portableRadixBits, false, hooks, true) {}
};

// CSR offsets of consecutive segments of the given sizes, the first at `first`.
std::vector<uint32_t> segmentOffsetsOf(const std::vector<uint32_t>& sizes, uint32_t first = 0);

// The segmented sort plan (its size classes and tile) of one segment of
// `count` keys over every bit.
VksortSegmentedSortPlan segmentedPlan(const SorterHolder& s, uint32_t count = 1u << 16);

// The largest segment of each class sorted without tiles (micro, tiny,
// subgroup, small, medium), increasing; a class whose bound equals the one
// below (the device has none of it) is left out.
std::vector<uint32_t> segmentClassTops(const VksortSegmentedSortPlan& p);

// Segment sizes that cover every size class of p, in random order: empty,
// one key, the top of each network class and random sizes in it (several
// of the micro and tiny ones, which share a subgroup), a large segment of
// one tile (where tileKeys > mediumMaxCount; else just past the medium
// class) and one of several tiles.
std::vector<uint32_t> everyClassSizes(const VksortSegmentedSortPlan& p, std::mt19937_64& rng);

// checkSegmentedSort of `dist` keys in consecutive segments of `sizes`,
// the first at key `first`, with `tail` keys after the last one (keys in no
// segment, which must stay untouched).
void checkSegments(const SorterHolder& s, const SortCase& c, const std::vector<uint32_t>& sizes, Dist dist,
                   std::mt19937_64& rng, uint32_t first = 3, uint32_t tail = 5);

uint64_t readElement(const void* base, size_t i, uint32_t bytes);
void writeElement(void* base, size_t i, uint32_t bytes, uint64_t v);

struct BitRange {
  uint32_t begin, end;
  const char* name;
};
constexpr BitRange kAllBits{0, 0, "all bits"};

// A case labelled "what, key, value, order, range".
SortCase makeCase(const KeyInfo& key, const ValueInfo& value, bool descending, const BitRange& range,
                  const std::string& what);

// "Onesweep" or "portable".
const char* algorithmName(VksortAlgorithm algorithm);

// Every key type (of keyBits bits; 0: all) x value type x order x bit range
// for one algorithm, at the tile's edges, with a large sort per order and an
// empty one (typed_check.cpp). radixBits: the portable algorithm's digit width
// (0: 8); hooks hold the shapes to smaller limits.
void everyTypeOrderAndRange(VksortAlgorithm algorithm, uint32_t keyBits, uint64_t salt, uint32_t radixBits = 0,
                            const VksortTestingHooks* hooks = nullptr);

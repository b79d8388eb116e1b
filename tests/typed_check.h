// The typed sort checks shared by the test files: key and value types, key
// generators with special values, the CPU reference (std::stable_sort over
// each key's order-preserving bits) and checkTypedSort, which sorts on the GPU
// and compares keys, values, guard bands and validation messages.
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

struct ValueInfo {
  VksortValueType type;
  const char* name;
  uint32_t bytes;
};

// Keys only, 32-bit, 64-bit, argsort, in VksortValueType order.
extern const ValueInfo kValues[4];

enum class Dist { Uniform, Few, Special };

// Keys as raw bits (32-bit types in the low half).
std::vector<uint64_t> makeKeys(uint32_t n, const KeyInfo& k, Dist dist, std::mt19937_64& rng);

struct SortCase {
  const KeyInfo* key;
  const ValueInfo* value;
  bool descending = false;
  uint32_t beginBit = 0, endBit = 0;  // 0, 0: every bit
  std::string label;
};

// Sorts keys (and values) on the GPU and compares keys and values with the
// stable CPU reference. indirectCount >= 0: the count is read from a GPU
// buffer holding that value, with keys.size() as the maximum. Also checks
// that the result buffer follows the sorter's pass count (vksortGetAlgorithm).
void checkTypedSort(const SorterHolder& s, const SortCase& c, const std::vector<uint64_t>& keys,
                    int64_t indirectCount = -1);

uint64_t readElement(const void* base, size_t i, uint32_t bytes);
void writeElement(void* base, size_t i, uint32_t bytes, uint64_t v);

struct BitRange {
  uint32_t begin, end;
  const char* name;
};

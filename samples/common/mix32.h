// A 32-bit integer hash (xorshift-multiply, "lowbias32"), shared by the
// samples and tests that need cheap, repeatable pseudo-random numbers on the
// CPU. tests/shaders/make_keys.comp computes the same function on the GPU.
#pragma once

#include <cstdint>

inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

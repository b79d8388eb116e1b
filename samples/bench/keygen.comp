// Fills the benchmark's keys (and values) with fresh data for one run, so that
// every timed run sorts new data without a host upload. It is the GLSL twin
// of genKey / genValue32 / genValue64 in bench_common.h, which describes the
// distributions; keep the two in step (vksort_bench compares every verified
// run's input with bench_common.h).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U64Buf { uint64_t v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t keysAddress;
  uint64_t valuesAddress;  // 0: no values
  // bench::GenParams, field by field.
  uint64_t base;
  uint64_t step;
  uint count;
  uint valueMask;
  uint keyWords;    // 1 or 2
  uint dist;        // 0 uniform, 1 lowentropy, 2 morton, 3 presorted
  uint keyKind;     // 0 unsigned, 1 signed, 2 float
  uint valueWords;  // 0, 1 or 2
};

const uint DIST_LOWENTROPY = 1u;
const uint DIST_MORTON = 2u;
const uint DIST_PRESORTED = 3u;
const uint KIND_SIGNED = 1u;
const uint KIND_FLOAT = 2u;
const uint MORTON_BITS = 30u;
const uint64_t GOLDEN = 0x9E3779B97F4A7C15UL;

uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9UL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBUL;
  x ^= x >> 31;
  return x;
}

uint64_t randomWord(uint i, uint stream) { return mix64(base + (uint64_t(i) * 4UL + uint64_t(stream)) * GOLDEN); }

uint64_t keyFromOrdered(uint64_t u) {
  const uint64_t sign = keyWords == 1u ? 0x80000000UL : 0x8000000000000000UL;
  const uint64_t all = keyWords == 1u ? 0xFFFFFFFFUL : ~0UL;
  if (keyKind == KIND_SIGNED) return u ^ sign;
  if (keyKind == KIND_FLOAT) return (u & sign) != 0UL ? u ^ sign : ~u & all;
  return u;
}

uint64_t genKey(uint i) {
  if (dist == DIST_PRESORTED) return keyFromOrdered(uint64_t(i) * step);
  uint64_t r = randomWord(i, 0u);
  if (dist == DIST_MORTON) return r >> (64u - MORTON_BITS);
  if (dist == DIST_LOWENTROPY) r &= randomWord(i, 1u) & randomWord(i, 2u);
  return keyWords == 1u ? r >> 32 : r;
}

void main() {
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 256u) {
    const uint64_t k = genKey(i);
    if (keyWords == 1u)
      U32Buf(keysAddress).v[i] = uint(k);
    else
      U64Buf(keysAddress).v[i] = k;
    if (valueWords == 1u)
      U32Buf(valuesAddress).v[i] = i ^ valueMask;
    else if (valueWords == 2u)
      U64Buf(valuesAddress).v[i] = ((randomWord(i, 3u) >> 32) << 32) | uint64_t(i ^ valueMask);
  }
}

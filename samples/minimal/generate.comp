// The "other compute work" before the sort: writes pseudo-random u32 keys and
// zeroes the two result words that check.comp accumulates into.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t keys;    // device address of the keys
  uint64_t result;  // device address of {violations, sum}
  uint count;
  uint seed;
};

// lowbias32; minimal.cpp has the same function for the CPU reference.
uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i == 0) {
    Words(result).v[0] = 0u;
    Words(result).v[1] = 0u;
  }
  if (i < count) Words(keys).v[i] = mix32(i ^ seed);
}

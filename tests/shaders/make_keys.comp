// Test-only "other compute work" before a sort: keys[i] = hash(i ^ seed).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t keys;
  uint count;
  uint seed;
};

uint hash(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < count) U32Buf(keys).v[i] = hash(i ^ seed);
}

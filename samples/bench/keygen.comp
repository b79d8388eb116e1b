// Fills a buffer with fresh pseudo-random 32-bit keys for the benchmark, so
// that every timed run sorts new data without a host upload.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t address;
  uint count;
  uint seed;
};

// A 32-bit integer mix with good avalanche (lowbias32).
uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

void main() {
  U32Buf keys = U32Buf(address);
  const uint key = mix32(seed * 0x9e3779b9u + 0x632be5abu);
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 256u)
    keys.v[i] = mix32(mix32(i ^ key) + seed);
}

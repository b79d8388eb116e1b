// Test-only "other compute work" after a sort: counts the places where the
// result is out of order into result[0].
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t keys;
  uint64_t result;
  uint count;
};

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i + 1u < count && U32Buf(keys).v[i] > U32Buf(keys).v[i + 1u]) atomicAdd(U32Buf(result).v[0], 1u);
}

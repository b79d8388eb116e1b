#version 460
// One step of a chain of dependent dispatches: with COPY = 0 the workgroups
// do nothing; with COPY = 1 each invocation reads KEYS keys (striped across
// the workgroup, as vksort's reorder tiles load them) and writes them, xor 1,
// to the other buffer. The floor for a sort made of one dispatch per pass.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint KEYS = 8;
layout(constant_id = 2) const uint COPY = 1;
layout(buffer_reference, std430) buffer Keys { uint k[]; };
layout(push_constant) uniform Push { uint64_t src; uint64_t dst; uint count; } pc;
void main() {
  if (COPY == 0) return;
  Keys s = Keys(pc.src), d = Keys(pc.dst);
  uint base = gl_WorkGroupID.x * gl_WorkGroupSize.x * KEYS + gl_LocalInvocationID.x;
  uint v[KEYS];
  for (uint j = 0; j < KEYS; ++j) {
    uint i = base + j * gl_WorkGroupSize.x;
    v[j] = i < pc.count ? s.k[i] : 0u;
  }
  for (uint j = 0; j < KEYS; ++j) {
    uint i = base + j * gl_WorkGroupSize.x;
    if (i < pc.count) d.k[i] = v[j] ^ 1u;
  }
}

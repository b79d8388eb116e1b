#version 460
// Occupancy probe: how many workgroups of a given size and shared-memory
// footprint run at once on one SM. Each workgroup counts itself in on its SM
// (gl_SMIDNV), records the peak, spins, and counts itself out.
#extension GL_NV_shader_sm_builtins : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SHARED_WORDS = 1;
layout(buffer_reference, std430) buffer Counters { uint live[1024]; uint peak[1024]; uint sink; };
layout(push_constant) uniform Push { uint64_t counters; uint spin; } pc;
shared uint s[SHARED_WORDS];
void main() {
  Counters c = Counters(pc.counters);
  uint sm = gl_SMIDNV;
  if (gl_LocalInvocationIndex == 0) {
    uint v = atomicAdd(c.live[sm], 1u) + 1u;
    atomicMax(c.peak[sm], v);
  }
  for (uint i = gl_LocalInvocationIndex; i < SHARED_WORDS; i += gl_WorkGroupSize.x) s[i] = i * 2654435761u;
  barrier();
  uint x = s[(gl_LocalInvocationIndex * 7u) % SHARED_WORDS];
  for (uint i = 0; i < pc.spin; ++i) x = x * 1664525u + 1013904223u;
  if (x == 0x12345678u) c.sink = x;
  barrier();
  if (gl_LocalInvocationIndex == 0) atomicAdd(c.live[sm], 0xffffffffu);
}

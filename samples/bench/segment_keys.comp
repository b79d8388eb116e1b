// vksort_bench --segmented: the keys of the workaround without segmented
// sorts, one sort of 64-bit keys whose high word is the key's segment index
// and whose low word is its 32-bit key.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32Buf { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer U32x2Buf { uvec2 v[]; };
layout(push_constant, std430) uniform Push {
  uvec2 keys;        // u32 keys
  uvec2 segmentIds;  // u32 segment index per key
  uvec2 keys64;      // out: (key, segment index) as a u64
  uint count;
} pc;

void main() {
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += gl_NumWorkGroups.x * 256u)
    U32x2Buf(pc.keys64).v[i] = uvec2(U32Buf(pc.keys).v[i], U32Buf(pc.segmentIds).v[i]);
}

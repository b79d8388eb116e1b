// 30-bit Morton code of each triangle's centroid, normalised to the scene
// bounds: 10 bits per axis, interleaved x, y, z from the top.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "lbvh.glsl"
layout(local_size_x = 256) in;

// 10 bits -> 30 bits with two zeros between bits (Karras 2012).
uint expandBits(uint v) {
  v = (v * 0x00010001u) & 0xFF0000FFu;
  v = (v * 0x00000101u) & 0x0F00F00Fu;
  v = (v * 0x00000011u) & 0xC30C30C3u;
  v = (v * 0x00000005u) & 0x49249249u;
  return v;
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= count) return;
  Words b = Words(bounds);
  const vec3 lo = vec3(fromOrderedBits(b.v[0]), fromOrderedBits(b.v[1]), fromOrderedBits(b.v[2]));
  const vec3 hi = vec3(fromOrderedBits(b.v[4]), fromOrderedBits(b.v[5]), fromOrderedBits(b.v[6]));
  const vec3 t = clamp((centreOf(Triangles(triangles).t[i]) - lo) / max(hi - lo, vec3(1e-30)), 0.0, 1.0);
  const uvec3 q = min(uvec3(t * 1024.0), uvec3(1023u));
  Words(keys).v[i] = (expandBits(q.x) << 2) | (expandBits(q.y) << 1) | expandBits(q.z);
}

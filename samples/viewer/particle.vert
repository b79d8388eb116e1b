// One camera-facing quad (two triangles, 6 vertices) per instance. One draw
// per emitter: its instance k draws particle values[segmentBase + k], the
// emitter's k-th farthest visible particle, so the draw order is the sorted
// order.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "particles.glsl"
layout(location = 0) out vec2 outUv;
layout(location = 1) flat out vec4 outColor;

const vec2 kCorners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main() {
  const uint id = Words(values).v[segmentBase + uint(gl_InstanceIndex)];
  const Particle p = Particles(particles).p[id];
  const vec3 v = viewSpace(p.position);
  const vec2 corner = kCorners[gl_VertexIndex];
  const vec2 xy = v.xy + corner * up.w;
  gl_Position = vec4(focal.x * xy.x, -focal.y * xy.y, 0.0, v.z);
  outUv = corner;
  outColor = unpackUnorm4x8(p.color) * vec4(1.0, 1.0, 1.0, forward.w);
}

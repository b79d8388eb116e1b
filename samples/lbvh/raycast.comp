// Optional picture (--png): one primary ray per pixel through the BVH (stack
// traversal, nearest hit). Left half: the hit, shaded by its normal and
// tinted by depth. Right half: a heat map of the nodes each ray visited.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "lbvh.glsl"
layout(local_size_x = 8, local_size_y = 8) in;

vec3 heat(float v) {
  return clamp(vec3(1.5) - abs(4.0 * v - vec3(3.0, 2.0, 1.0)), 0.0, 1.0);
}

void main() {
  const uvec2 px = gl_GlobalInvocationID.xy;
  if (px.x >= width || px.y >= height) return;
  const vec3 eye = vec3(2.5 * sin(angle), 1.1, 2.5 * cos(angle));
  const vec3 fwd = normalize(-eye), right = normalize(cross(fwd, vec3(0, 1, 0))), up = cross(right, fwd);
  const vec2 ndc = (vec2(px) + 0.5) / vec2(width, height) * 2.0 - 1.0;
  const vec3 dir = normalize(fwd + right * (ndc.x * 0.55 * float(width) / float(height)) - up * (ndc.y * 0.55));
  const vec3 inv = 1.0 / dir;

  Nodes nodes_ = Nodes(nodes);
  float best = 1e30;
  vec3 normal = vec3(0);
  uint visits = 0u;
  uint stack[64];
  int sp = 0;
  stack[sp++] = 0u;
  while (sp > 0) {
    const Node n = nodes_.n[stack[--sp]];
    ++visits;
    const vec3 t0 = (n.lo.xyz - eye) * inv, t1 = (n.hi.xyz - eye) * inv;
    const vec3 tn = min(t0, t1), tf = max(t0, t1);
    const float tNear = max(max(tn.x, tn.y), max(tn.z, 0.0)), tFar = min(min(tf.x, tf.y), tf.z);
    if (tNear > tFar || tNear > best) continue;
    if (floatBitsToUint(n.hi.w) == kLeaf) {  // Moller-Trumbore
      const Triangle tri = Triangles(triangles).t[floatBitsToUint(n.lo.w)];
      const vec3 e1 = tri.b.xyz - tri.a.xyz, e2 = tri.c.xyz - tri.a.xyz, p = cross(dir, e2);
      const float det = dot(e1, p);
      if (abs(det) < 1e-12) continue;
      const vec3 s = eye - tri.a.xyz, q = cross(s, e1);
      const float u = dot(s, p) / det, v = dot(dir, q) / det, t = dot(e2, q) / det;
      if (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0 && t < best) {
        best = t;
        normal = normalize(cross(e1, e2));
      }
      continue;
    }
    if (sp < 62) {
      stack[sp++] = floatBitsToUint(n.lo.w);
      stack[sp++] = floatBitsToUint(n.hi.w);
    }
  }
  vec3 shaded = vec3(0.06, 0.06, 0.09);
  if (best < 1e30) {
    const float light = 0.25 + 0.75 * abs(dot(normal, normalize(vec3(0.4, 0.8, 0.3))));
    const float depth = clamp((best - 1.2) / 2.6, 0.0, 1.0);
    shaded = light * mix(vec3(1.0, 0.85, 0.6), vec3(0.45, 0.55, 1.0), depth);
  }
  Words img = Words(image);
  const uint row = px.y * 2u * width;
  img.v[row + px.x] = packUnorm4x8(vec4(shaded, 1.0));
  img.v[row + width + px.x] = packUnorm4x8(vec4(heat(clamp(float(visits) / 160.0, 0.0, 1.0)), 1.0));
}

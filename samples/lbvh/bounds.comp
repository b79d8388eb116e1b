// Scene bounds of the triangle centroids (to normalise the Morton codes):
// a grid-stride min/max per invocation, a subgroup reduction, then one atomic
// per subgroup on ordered-uint floats.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "lbvh.glsl"
layout(local_size_x = 256) in;

void main() {
  vec3 lo = vec3(3.0e38), hi = vec3(-3.0e38);
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 256u) {
    const vec3 c = centreOf(Triangles(triangles).t[i]);
    lo = min(lo, c);
    hi = max(hi, c);
  }
  Words b = Words(bounds);
  for (int a = 0; a < 3; ++a) {
    const uint l = subgroupMin(orderedBits(lo[a])), h = subgroupMax(orderedBits(hi[a]));
    if (subgroupElect()) {
      atomicMin(b.v[a], l);
      atomicMax(b.v[4 + a], h);
    }
  }
}

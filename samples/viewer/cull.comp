// Frustum culling and compaction: every visible particle appends its depth key
// and its id; the count goes to DrawArgs.instanceCount, which vksort reads as
// its indirect count and the draw reads as its instance count.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "particles.glsl"
layout(local_size_x = 256) in;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  const float near = eye.w, far = right.w, radius = up.w;
  bool visible = false;
  uint key = 0u;
  if (i < count) {
    const vec3 v = viewSpace(Particles(particles).p[i].position);
    // Kept if any part of its quad can be on screen (its centre inside [near, far]).
    visible = v.z >= near && v.z <= far && abs(v.x) - radius <= v.z / focal.x && abs(v.y) - radius <= v.z / focal.y;
    key = keyMode == 0u ? floatBitsToUint(v.z)  // positive floats order like their bits
                        : uint(clamp((v.z - near) / (far - near), 0.0, 1.0) * 4294967040.0);
  }
  // One atomic per subgroup: the elected invocation reserves room for all visible lanes.
  const uvec4 ballot = subgroupBallot(visible);
  const uint n = subgroupBallotBitCount(ballot);
  uint base = 0u;
  if (subgroupElect() && n > 0u) base = atomicAdd(DrawArgs(drawArgs).instanceCount, n);
  base = subgroupBroadcastFirst(base);
  if (visible) {
    const uint slot = base + subgroupBallotExclusiveBitCount(ballot);
    Words(keys).v[slot] = key;
    Words(values).v[slot] = i;
  }
}

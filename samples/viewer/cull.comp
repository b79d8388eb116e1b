// Frustum culling, per emitter. Invocation i handles the i-th active particle;
// it belongs to the emitter whose segment [segmentOffsets[e],
// segmentOffsets[e + 1]) holds i, and writes its depth key and particle id into
// that segment: visible particles packed from the segment's start (counted
// into the emitter's draw command), culled ones from its end with key 0. The
// segmented sort (descending, stable) keeps them there: each segment ends up
// as its visible particles far to near, then the culled ones, and the
// emitter's indirect draw takes the first instanceCount of them. Unsorted, the
// first instanceCount are still exactly the visible ones.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "particles.glsl"
layout(local_size_x = 256) in;

// Per workgroup and emitter: [0, kMaxEmitters) visible, [kMaxEmitters, 2 kMaxEmitters) culled particles.
shared uint sCount[2u * kMaxEmitters];
shared uint sBase[2u * kMaxEmitters];

void main() {
  const uint i = gl_GlobalInvocationID.x, lid = gl_LocalInvocationIndex;
  Emitters em = Emitters(emitters);
  if (lid < 2u * kMaxEmitters) sCount[lid] = 0u;
  barrier();

  const bool live = i < count;
  const float near = eye.w, far = right.w, radius = up.w;
  bool visible = false;
  uint e = 0u, particle = 0u, key = 0u, counter = 0u, local = 0u;
  if (live) {
    while (e + 1u < emitterCount && i >= em.segmentOffsets[e + 1u]) ++e;
    particle = em.firstParticle[e] + (i - em.segmentOffsets[e]);
    const vec3 v = viewSpace(Particles(particles).p[particle].position);
    // Kept if any part of its quad can be on screen (its centre inside [near, far]).
    visible = v.z >= near && v.z <= far && abs(v.x) - radius <= v.z / focal.x && abs(v.y) - radius <= v.z / focal.y;
    if (visible)
      key = keyMode == 0u ? floatBitsToUint(v.z)  // positive floats order like their bits
                          : uint(clamp((v.z - near) / (far - near), 0.0, 1.0) * 4294967040.0);
    counter = visible ? e : kMaxEmitters + e;
    local = atomicAdd(sCount[counter], 1u);
  }
  barrier();
  // One global atomic per workgroup, emitter and kind reserves room for the workgroup's particles.
  if (lid < 2u * kMaxEmitters && sCount[lid] > 0u)
    sBase[lid] = lid < kMaxEmitters ? atomicAdd(em.draw[lid].instanceCount, sCount[lid])
                                    : atomicAdd(em.culled[lid - kMaxEmitters], sCount[lid]);
  barrier();
  if (live) {
    const uint rank = sBase[counter] + local;
    const uint slot = visible ? em.segmentOffsets[e] + rank : em.segmentOffsets[e + 1u] - 1u - rank;
    Words(keys).v[slot] = key;
    Words(values).v[slot] = particle;
  }
}

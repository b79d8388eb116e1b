// Bottom-up bounding boxes: each leaf writes its triangle's box, then walks
// towards the root. At each internal node an atomic counter lets the first
// child to arrive stop; the second (which then sees both children's boxes)
// computes the union and goes on.
//
// Ordering: the counter's atomicAdd is acquire-release at queue-family scope
// (Vulkan memory model), so a child's box, written before its arrival, is
// visible to the sibling that arrives second. We do not use
// memoryBarrierBuffer() or device-scope semantics here: llvmpipe (Mesa 22.3)
// drops the rest of the walk for an invocation that meets one of those in
// divergent control flow when the workgroup is wider than 8 (see README.md).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
#include "lbvh.glsl"
layout(local_size_x = 256) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= count) return;
  Nodes nodes_ = Nodes(nodes);
  NodeWords nodeWords = NodeWords(nodes);
  Words parent = Words(parents), counter = Words(counters);
  const uint prim = Words(indices).v[k];
  const Triangle t = Triangles(triangles).t[prim];
  uint node = count - 1u + k;
  nodes_.n[node].lo = vec4(min(min(t.a.xyz, t.b.xyz), t.c.xyz), uintBitsToFloat(prim));
  nodes_.n[node].hi = vec4(max(max(t.a.xyz, t.b.xyz), t.c.xyz), uintBitsToFloat(kLeaf));
  for (;;) {
    const uint p = parent.v[node];
    if (p == kNoParent) break;  // the root is done
    const uint arrived = atomicAdd(counter.v[p], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    if (arrived == 0u) break;  // first child here: the sibling finishes p
    const uint l = nodeWords.n[p].lo.w, r = nodeWords.n[p].hi.w;
    nodes_.n[p].lo.xyz = min(nodes_.n[l].lo.xyz, nodes_.n[r].lo.xyz);
    nodes_.n[p].hi.xyz = max(nodes_.n[l].hi.xyz, nodes_.n[r].hi.xyz);
    node = p;
  }
}

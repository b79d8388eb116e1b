// Shared by the LBVH kernels: buffers (all reached by device address), the
// push constants (lbvh.cpp's Push) and the node layout.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

struct Triangle {
  vec4 a, b, c;  // xyz used
};
// 2N-1 nodes: internal nodes 0 ... N-2 (0 is the root), then leaf k (sorted position k) at N-1+k.
// Internal: lo.w and hi.w hold the child node indices (as float bits). Leaf: lo.w holds the
// primitive index, hi.w is kLeaf.
struct Node {
  vec4 lo;
  vec4 hi;
};
const uint kLeaf = 0xffffffffu;
const uint kNoParent = 0xffffffffu;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Triangles { Triangle t[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) coherent buffer Nodes { Node n[]; };
// The same nodes seen as integers, to read and write the child and primitive indices.
struct NodeBits {
  uvec4 lo;
  uvec4 hi;
};
layout(buffer_reference, std430, buffer_reference_align = 16) coherent buffer NodeWords { NodeBits n[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer Words { uint v[]; };

layout(push_constant, std430) uniform Push {
  uint64_t triangles;
  uint64_t keys;     // Morton codes (sorted in place by vksort)
  uint64_t indices;  // primitive index per sorted position (vksort's argsort output)
  uint64_t nodes;
  uint64_t parents;   // 2N-1 parent indices
  uint64_t counters;  // N-1 refit arrival counters, zeroed before refit
  uint64_t bounds;    // scene bounds of the centroids: 3 ordered-uint minima, pad, 3 maxima, pad
  uint64_t image;     // raycast: RGBA8 output, 2 * width * height
  uint count;         // N primitives
  uint width;         // raycast image size (one half)
  uint height;
  float angle;  // raycast camera orbit angle
};

vec3 centreOf(Triangle t) { return (t.a.xyz + t.b.xyz + t.c.xyz) * (1.0 / 3.0); }

// Floats as uints that order like the floats (for atomicMin/atomicMax).
uint orderedBits(float f) {
  const uint u = floatBitsToUint(f);
  return (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
}
float fromOrderedBits(uint u) { return uintBitsToFloat((u & 0x80000000u) != 0u ? u & 0x7fffffffu : ~u); }

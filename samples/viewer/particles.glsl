// Shared by cull.comp and particle.vert: the particle layout, the push
// constants (viewer.cpp's Push) and the camera transform.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

struct Particle {
  vec3 position;
  uint color;  // RGBA8 (unpackUnorm4x8)
};
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Particles { Particle p[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };
// The emitters: viewer.cpp's EmitterTable, rewritten by the host every frame
// (vkCmdUpdateBuffer). Emitter e's active particles are the particles
// [firstParticle[e], firstParticle[e] + n) and segment e of the keys and ids,
// [segmentOffsets[e], segmentOffsets[e + 1]) (n keys): vksort's CSR offsets.
const uint kMaxEmitters = 8u;
struct DrawCommand {  // a VkDrawIndirectCommand: the culling pass counts the visible particles into instanceCount
  uint vertexCount;
  uint instanceCount;
  uint firstVertex;
  uint firstInstance;
};
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Emitters {
  DrawCommand draw[kMaxEmitters];    // one indirect draw per emitter
  uint culled[kMaxEmitters];         // culling: culled particles, written from the segment's end
  uint firstParticle[kMaxEmitters];  // the emitter's first particle in Particles
  uint segmentOffsets[kMaxEmitters + 1u];
};

layout(push_constant, std430) uniform Push {
  vec4 eye;           // camera position; w: near plane distance
  vec4 right;         // camera basis; w: far plane distance
  vec4 up;            // w: particle radius (world units)
  vec4 forward;       // w: particle opacity
  vec2 focal;         // x_ndc = focal.x * x / z, y_ndc = -focal.y * y / z
  uint count;         // particles to cull (the active ones, all emitters)
  uint keyMode;       // 0: f32 view depth; 1: u32 depth quantised over [near, far]
  uint emitterCount;  // segments: 1 ... kMaxEmitters
  uint segmentBase;   // draw: where the drawn emitter's segment begins in values
  uint64_t particles;
  uint64_t keys;
  uint64_t values;  // cull: particle ids out; draw: the (sorted) ids in
  uint64_t emitters;
};

// View-space position: x right, y up, z forward (distance along the view axis).
vec3 viewSpace(vec3 position) {
  const vec3 d = position - eye.xyz;
  return vec3(dot(d, right.xyz), dot(d, up.xyz), dot(d, forward.xyz));
}

// The consumer after the sort: counts neighbours out of order and sums the
// keys (mod 2^32), so the CPU can tell sorted and still-a-permutation apart.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(push_constant, std430) uniform Push {
  uint64_t keys;    // device address of the sorted keys
  uint64_t result;  // device address of {violations, sum}
  uint count;
  uint seed;
};

void main() {
  const uint i = gl_GlobalInvocationID.x;
  Words keysBuf = Words(keys);
  Words out_ = Words(result);
  const uint key = i < count ? keysBuf.v[i] : 0u;
  if (i > 0 && i < count && keysBuf.v[i - 1] > key) atomicAdd(out_.v[0], 1u);
  const uint sum = subgroupAdd(key);  // one atomic per subgroup, not per key
  if (subgroupElect()) atomicAdd(out_.v[1], sum);
}

// Karras 2012, "Maximizing Parallelism in the Construction of BVHs, Octrees,
// and k-d Trees": internal node i (one invocation each, all in parallel)
// finds the range of sorted leaves it covers from the common prefixes of
// neighbouring Morton codes, then the split inside that range. Equal codes
// are told apart by their positions (the key is (code, position)).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "lbvh.glsl"
layout(local_size_x = 256) in;

// Length of the common prefix of the keys at sorted positions i and j; -1 outside [0, N).
int delta(int i, int j) {
  if (j < 0 || j >= int(count)) return -1;
  const uint a = Words(keys).v[i], b = Words(keys).v[j];
  if (a == b) return 32 + (31 - findMSB(uint(i ^ j)));
  return 31 - findMSB(a ^ b);
}

void main() {
  const int i = int(gl_GlobalInvocationID.x);
  if (i >= int(count) - 1) return;
  const int leaf0 = int(count) - 1;  // node index of leaf 0

  // Direction of the range: towards the neighbour with the longer common prefix.
  const int d = delta(i, i + 1) - delta(i, i - 1) >= 0 ? 1 : -1;
  // Upper bound on the range length (exponential search), then the exact end (binary search).
  const int deltaMin = delta(i, i - d);
  int lMax = 2;
  while (delta(i, i + lMax * d) > deltaMin) lMax *= 2;
  int l = 0;
  for (int t = lMax / 2; t >= 1; t /= 2)
    if (delta(i, i + (l + t) * d) > deltaMin) l += t;
  const int j = i + l * d;
  // The split: the last position that shares more than deltaNode bits with i.
  const int deltaNode = delta(i, j);
  int s = 0;
  int t = l;
  do {
    t = (t + 1) / 2;
    if (delta(i, i + (s + t) * d) > deltaNode) s += t;
  } while (t > 1);
  const int gamma = i + s * d + min(d, 0);

  const uint left = uint(min(i, j) == gamma ? leaf0 + gamma : gamma);
  const uint right = uint(max(i, j) == gamma + 1 ? leaf0 + gamma + 1 : gamma + 1);
  Nodes nodes_ = Nodes(nodes);
  nodes_.n[i].lo.w = uintBitsToFloat(left);
  nodes_.n[i].hi.w = uintBitsToFloat(right);
  Words parent = Words(parents);
  parent.v[left] = uint(i);
  parent.v[right] = uint(i);
  if (i == 0) parent.v[0] = kNoParent;
}

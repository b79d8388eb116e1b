// Puts segments in their size class's list (segments.glsl), for the kernels
// that sort each class: segment_bins.comp lists the caller's segments, the
// segment histogram kernel (histogram.comp) the buckets of the large
// segments it splits.
//
// The includer declares WG_SIZE and SG_SIZE, and includes common.glsl and
// segments.glsl first.

// The classes' largest segments, smallest class first.
layout(constant_id = VKSORT_SC_SEGMENT_MICRO_MAX) const uint MICRO_MAX = 16;
layout(constant_id = VKSORT_SC_SEGMENT_TINY_MAX) const uint TINY_MAX = 64;
layout(constant_id = VKSORT_SC_SEGMENT_HALF_MAX) const uint HALF_MAX = 128;  // TINY_MAX: no half-subgroup class
layout(constant_id = VKSORT_SC_SEGMENT_SUBGROUP_MAX) const uint SUBGROUP_MAX = 256;
layout(constant_id = VKSORT_SC_SEGMENT_SMALL_MAX) const uint SMALL_MAX = 2048;
layout(constant_id = VKSORT_SC_SEGMENT_MEDIUM_MAX) const uint MEDIUM_MAX = 2048;  // SMALL_MAX: no medium class
// The kernels of lanes: subgroups per workgroup, and the tiny class's lanes
// per segment. Segments per workgroup of each class's kernel:
layout(constant_id = VKSORT_SC_SEGMENT_GROUP) const uint GROUP = 4;
layout(constant_id = VKSORT_SC_SEGMENT_LANES) const uint TINY_LANES = 8;
// The segment histogram kernel: the largest bucket of a segment it splits
// (0: it splits none).
layout(constant_id = VKSORT_SC_SEGMENT_SPLIT_MAX) const uint SPLIT_BUCKET_MAX = 0;
const uint MICRO_PER_GROUP = GROUP * SG_SIZE;
const uint TINY_PER_GROUP = GROUP * SG_SIZE / TINY_LANES;
const uint HALF_PER_GROUP = 2u * GROUP;
const uint SUBGROUP_PER_GROUP = GROUP;

// The most segments the buckets' area holds (splitArea, below): as many as
// there may be segments larger than MEDIUM_MAX, the large ones.
uint splitCapacity() { return pc.count / (MEDIUM_MAX + 1u); }

// The buckets' area, after the histograms of min(segmentCount, numTiles)
// large segments (the dispatcher's splitAreaOffset), laid out as the
// segments' area (segments.glsl) for VKSORT_RADIX x splitCapacity()
// buckets: where the segment histogram kernel lists buckets, and where the
// class kernels find them (the dispatcher moves pc.temp for them). Here,
// not in segments.glsl: the plain reorder kernel includes that file, and
// NVIDIA's compiler made it slower for functions it never calls
// (docs/tuning.md).
Address splitArea() {
  const uint large = min(pc.segmentCount, pc.numTiles);
  uvec2 bytes;
  umulExtended(large, VKSORT_SEG_HISTOGRAM_WORDS(pc.passes) * 4u, bytes.y, bytes.x);
  return addressAdd(addressAdd(segmentTilesAddress(), pc.numTiles * 16u), bytes);
}

// Segments split on their top two digits (VKSORT_FLAG_SPLIT_TWO): at least
// VKSORT_RADIX x (MEDIUM_MAX + 1) keys each, so that claiming VKSORT_RADIX^2
// buckets each stays within as many as the buckets' area holds.
uint splitTwoMin() { return VKSORT_RADIX * (MEDIUM_MAX + 1u); }
// Their largest bucket whatever the keys (at most the top digit's or the
// one below's largest): the medium kernel sorts buckets of up to this many
// keys alone.
const uint SPLIT_TWO_BUCKET_MAX = 8u * (MEDIUM_MAX + 1u);
uint splitTwoCapacity() { return pc.count / splitTwoMin(); }
// The two-digit buckets' area, after the buckets' area (16 bytes per
// bucket): a header, then three lists of VKSORT_RADIX^2 x
// splitTwoCapacity() buckets (its small class holds every bucket of more
// than SUBGROUP_MAX keys).
Address splitTwoArea() {
  const uint buckets = VKSORT_RADIX * splitCapacity();  // < 2^30
  return addressAdd(splitArea(), uvec2(uint(VKSORT_SEG_HEADER_BYTES) + (buckets << 4), buckets >> 28));
}
// After its lists, per slot (splitTwoCapacity()): the segment's number among
// the large ones and its end, for segment_buckets.comp.
U32x2Buf splitTwoSlots() {
  uvec2 bytes;
  umulExtended(splitTwoCapacity(), 3u * VKSORT_RADIX * VKSORT_RADIX * 8u, bytes.y, bytes.x);
  return U32x2Buf(addressAdd(addressAdd(splitTwoArea(), uint(VKSORT_SEG_HEADER_BYTES)), bytes));
}

// segmentListIndex in a list of `capacity` segments (the buckets' list has
// its own).
uint listIndex(uint segmentClass, uint i, uint capacity) {
  return segmentClass == VKSORT_SEGMENT_CLASS_MICRO      ? capacity + i
         : segmentClass == VKSORT_SEGMENT_CLASS_TINY     ? i
         : segmentClass == VKSORT_SEGMENT_CLASS_HALF     ? capacity - 1u - i
         : segmentClass == VKSORT_SEGMENT_CLASS_SUBGROUP ? 2u * capacity - 1u - i
                                                         : 2u * capacity + i;
}

// Grows the indirect command at header word `command` to a grid of at least
// `groups` workgroups.
void growGrid(U32Buf header, uint command, uint groups) {
  const uint x = min(groups, VKSORT_SEG_GRID_X);
  const uint y = (groups + VKSORT_SEG_GRID_X - 1u) / VKSORT_SEG_GRID_X;
  atomicMax(header.v[command], x);
  atomicMax(header.v[command + 1u], y);
  atomicMax(header.v[command + 2u], 1u);
}

// Takes `n` slots of counter `counter` for this subgroup's lanes with `want`;
// returns the first of this lane's (the subgroup's first plus the lanes
// before it) and the subgroup's end in `end`. Uniform control flow.
uint takeSlots(U32Buf header, uint counter, uint n, out uint end) {
  const uint total = subgroupAdd(n);
  const uint before = subgroupExclusiveAdd(n);
  uint first = 0u;
  if (subgroupElect() && total != 0u) first = atomicAdd(header.v[counter], total);
  first = subgroupBroadcastFirst(first);
  end = first + total;
  return first + before;
}

// Lists the segment [begin, end) in its class, in the area whose header and
// list are given, of `capacity` segments: micro, tiny, half-subgroup,
// subgroup or small (small up to `smallMax` keys: the medium ones go to the
// small class's list, where the bitonic kernel leaves them to
// onesweep.comp's medium kernel). Empty and larger segments go nowhere.
// Each class's indirect dispatch command grows with atomicMax as segments
// arrive, so no workgroup waits for another: after the barrier that
// follows, the commands hold every class's grid. Called by whole subgroups
// (uniform control flow). One atomic per class per subgroup, all at once:
// lane c takes the slots of class c (lane 0 also those of the last class
// where subgroups have 4 lanes), so the subgroup waits for one round trip,
// not one per class.
const uint SEGMENT_CLASSES = 5u;
// The class of a segment of `size` keys (~0u: none).
uint segmentClassOf(uint size, uint smallMax) {
  return size == 0u             ? ~0u
         : size <= MICRO_MAX    ? VKSORT_SEGMENT_CLASS_MICRO
         : size <= TINY_MAX     ? VKSORT_SEGMENT_CLASS_TINY
         : size <= HALF_MAX     ? VKSORT_SEGMENT_CLASS_HALF
         : size <= SUBGROUP_MAX ? VKSORT_SEGMENT_CLASS_SUBGROUP
         : size <= smallMax     ? VKSORT_SEGMENT_CLASS_SMALL
                                : ~0u;
}
// Each class's dispatch command (header word) and segments per workgroup.
const uint CLASS_COMMANDS[SEGMENT_CLASSES] = {VKSORT_SEG_MICRO_DISPATCH, VKSORT_SEG_TINY_DISPATCH,
                                              VKSORT_SEG_HALF_DISPATCH, VKSORT_SEG_SUBGROUP_DISPATCH,
                                              VKSORT_SEG_SMALL_DISPATCH};
uint classPerGroup(uint c) {
  return c == VKSORT_SEGMENT_CLASS_MICRO ? MICRO_PER_GROUP
         : c == VKSORT_SEGMENT_CLASS_TINY ? TINY_PER_GROUP
         : c == VKSORT_SEGMENT_CLASS_HALF ? HALF_PER_GROUP
         : c == VKSORT_SEGMENT_CLASS_SUBGROUP ? SUBGROUP_PER_GROUP
                                              : 1u;
}
void listSegment(U32Buf header, U32x2Buf list, uint capacity, uint smallMax, uint begin, uint end) {
  const uint segmentClass = segmentClassOf(end - begin, smallMax);
  // The subgroup's segments of each class, and this lane's place among its
  // class's.
  uint total[SEGMENT_CLASSES];
  uint before = 0u;
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c) {
    const uvec4 ballot = subgroupBallot(segmentClass == c);
    total[c] = subgroupBallotBitCount(ballot);
    if (segmentClass == c) before = subgroupBallotExclusiveBitCount(ballot);
  }
  // Lane c's first slot of class c (first[0]) and of class c + SG_SIZE
  // (first[1]).
  uint first[2] = {0u, 0u};
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c)
    if (c % SG_SIZE == gl_SubgroupInvocationID && total[c] != 0u)
      first[c / SG_SIZE] = atomicAdd(header.v[segmentClassCount(c)], total[c]);
  [[unroll]] for (uint c = 0; c < SEGMENT_CLASSES; ++c)
    if (c % SG_SIZE == gl_SubgroupInvocationID && total[c] != 0u)
      growGrid(header, CLASS_COMMANDS[c], (first[c / SG_SIZE] + total[c] + classPerGroup(c) - 1u) / classPerGroup(c));
  const uint from = segmentClass % SG_SIZE;  // the lane that took this lane's class's slots
  const uint slot0 = subgroupShuffle(first[0], from), slot1 = subgroupShuffle(first[1], from);
  if (segmentClass != ~0u)
    list.v[listIndex(segmentClass, (segmentClass < SG_SIZE ? slot0 : slot1) + before, capacity)] = uvec2(begin, end);
}

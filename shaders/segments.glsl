// Shared by the kernels of segmented sorts (segment_bins.comp, bitonic.comp's
// segmented modes, portable_count.comp and portable_scatter.comp over the
// large segments' tiles): where the segments' area of temp is (push.h) and
// what a large segment's tile covers.
//
// The includer includes common.glsl first and defines TABLE_RADIX_BITS and
// SEGMENT_RING_SLOTS: what precedes the area in temp. With the portable
// algorithm (SEGMENT_RING_SLOTS 0) the large segments' tile table, of
// 2^TABLE_RADIX_BITS entries per tile, and its block sums; with Onesweep
// (SEGMENT_RING_SLOTS the ring's slots) the header and the status ring.

layout(buffer_reference, std430, buffer_reference_align = 16) buffer U32x4Buf { uvec4 v[]; };

// A 2D grid's workgroup index (the segmented dispatches' grids are rows of
// VKSORT_SEG_GRID_X workgroups; those past the work return at once).
uint segmentGridIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Bytes from temp's start to the segments' area: Onesweep's header and ring,
// or the tile table of pc.numTiles tiles and its block sums, rounded up to
// 16 bytes (the dispatcher's segmentAreaOffset in src/plan.cpp).
uvec2 segmentAreaOffset() {
  if (SEGMENT_RING_SLOTS != 0u) return uvec2(VKSORT_TEMP_RING_OFFSET + SEGMENT_RING_SLOTS * VKSORT_RADIX * 8u, 0u);
  const uint entries = pc.numTiles << TABLE_RADIX_BITS;  // < 2^31: the dispatcher checks
  const uint blocks = (entries + VKSORT_PORTABLE_SCAN_BLOCK - 1u) / VKSORT_PORTABLE_SCAN_BLOCK;
  const uint words = ((entries + 3u) / 4u * 4u + blocks + 3u) / 4u * 4u;
  return uvec2(words << 2, words >> 30);
}

Address segmentArea() { return addressAdd(address(pc.temp), segmentAreaOffset()); }
U32Buf segmentHeader() { return U32Buf(segmentArea()); }
// The binned segments: (begin, end), tiny ones from index 0 up, half-subgroup
// ones from index pc.segmentCount - 1 down, micro ones from pc.segmentCount
// up, subgroup ones from 2 pc.segmentCount - 1 down, small ones from
// 2 pc.segmentCount up.
U32x2Buf segmentList() { return U32x2Buf(addressAdd(segmentArea(), uint(VKSORT_SEG_HEADER_BYTES))); }
// Per large-segment tile: (its segment's first tile, begin, end, the
// segment's number among the large ones).
Address segmentTilesAddress() {
  const uint listBytes16 = pc.segmentCount + (pc.segmentCount + 1u) / 2u;  // the lists' bytes / 16, rounded up
  return addressAdd(addressAdd(segmentArea(), uint(VKSORT_SEG_HEADER_BYTES)), uvec2(listBytes16 << 4, listBytes16 >> 28));
}
U32x4Buf segmentTiles() { return U32x4Buf(segmentTilesAddress()); }
// Onesweep: per large segment, its digit histogram of every pass (pass p's
// digit d at word p * 256 + d), which the segment histogram kernel turns
// into the position of each digit's first key, then a done counter and
// padding: VKSORT_SEG_HISTOGRAM_WORDS(pc.passes) words in all.
U32Buf segmentHistogram(uint large) {
  uvec2 offset;
  umulExtended(large, VKSORT_SEG_HISTOGRAM_WORDS(pc.passes) * 4u, offset.y, offset.x);
  const uint tilesBytes = pc.numTiles * 16u;  // < 2^27: numTiles << 8 < 2^31
  return U32Buf(addressAdd(addressAdd(segmentTilesAddress(), tilesBytes), offset));
}

// A class's counter (header word) and the list index of its i-th segment.
uint segmentClassCount(uint segmentClass) {
  return segmentClass == VKSORT_SEGMENT_CLASS_MICRO      ? VKSORT_SEG_MICRO_COUNT
         : segmentClass == VKSORT_SEGMENT_CLASS_TINY     ? VKSORT_SEG_TINY_COUNT
         : segmentClass == VKSORT_SEGMENT_CLASS_HALF     ? VKSORT_SEG_HALF_COUNT
         : segmentClass == VKSORT_SEGMENT_CLASS_SUBGROUP ? VKSORT_SEG_SUBGROUP_COUNT
                                                         : VKSORT_SEG_SMALL_COUNT;
}
uint segmentListIndex(uint segmentClass, uint i) {
  return segmentClass == VKSORT_SEGMENT_CLASS_MICRO      ? pc.segmentCount + i
         : segmentClass == VKSORT_SEGMENT_CLASS_TINY     ? i
         : segmentClass == VKSORT_SEGMENT_CLASS_HALF     ? pc.segmentCount - 1u - i
         : segmentClass == VKSORT_SEGMENT_CLASS_SUBGROUP ? 2u * pc.segmentCount - 1u - i
                                                         : 2u * pc.segmentCount + i;
}

// Tile `tile` of the large segments, of tileKeys keys (its entry of
// segmentTiles(): `info`): its keys [start, start + count), its segment's
// first tile, tiles, [begin, end) and number among the large ones.
struct SegmentTile {
  uint first, tiles, begin, end, start, count, large;
};

SegmentTile segmentTileOf(uint tile, uint tileKeys, uvec4 info) {
  SegmentTile s;
  s.first = info.x;
  s.begin = info.y;
  s.end = info.z;
  s.large = info.w & ~(VKSORT_SEG_TILE_SPLIT | VKSORT_SEG_TILE_SPLIT_TWO);
  s.tiles = (s.end - s.begin + tileKeys - 1u) / tileKeys;
  s.start = s.begin + (tile - s.first) * tileKeys;
  s.count = min(tileKeys, s.end - s.start);
  return s;
}
SegmentTile segmentTile(uint tile, uint tileKeys) { return segmentTileOf(tile, tileKeys, segmentTiles().v[tile]); }

// The table entry of digit d of a large segment's tile: segment-major, then
// digit-major, so that one exclusive scan of the whole table, less its
// value at the segment's first entry, gives each (digit, tile) its place in
// the segment.
uint segmentTableIndex(SegmentTile s, uint tile, uint d) {
  return (s.first << TABLE_RADIX_BITS) + d * s.tiles + (tile - s.first);
}

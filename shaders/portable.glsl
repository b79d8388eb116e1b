// Shared by the portable kernels (portable_count.comp, portable_scan.comp,
// portable_scatter.comp): the grid and the temporary buffer (push.h).
//
// A portable dispatch numbers its workgroups over a 2D grid, so that more
// groups than maxComputeWorkGroupCount[0] fit in one dispatch: the
// dispatcher launches x * y >= the groups needed, and the surplus groups of
// the last row return at once.
uint gridWorkgroupIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Entries of the tile table: RADIX per tile, digit-major.
uint tableEntries() { return RADIX * pc.numTiles; }
U32Buf tileTable() { return U32Buf(address(pc.temp)); }
// At VKSORT_PORTABLE_SUMS_OFFSET: the table rounded up to 16 bytes, which
// can pass 2^32 bytes.
U32Buf blockSums() {
  const uint words = (tableEntries() + 3u) / 4u * 4u;
  return U32Buf(addressAdd(address(pc.temp), uvec2(words << 2, words >> 30)));
}

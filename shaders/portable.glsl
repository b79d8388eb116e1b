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
U32Buf tileTable() { return U32Buf(pc.temp); }
U32Buf blockSums() { return U32Buf(pc.temp + VKSORT_PORTABLE_SUMS_OFFSET(uint64_t(tableEntries()))); }

// vksort portable path, step 1 of a digit pass: the digit histogram of each
// tile.
//
// The portable path is a classic LSD radix sort for GPUs that do not promise
// forward progress to running workgroups (see VksortAlgorithm in vksort.h):
// per pass, this kernel counts, portable_scan.comp scans the counts, and
// portable_scatter.comp moves the keys. No workgroup ever waits on another;
// the order between the steps comes from the barriers between dispatches.
//
// One workgroup per tile writes the tile's count of every digit d to
// table[d * numTiles + tile]. Digit-major, so that one exclusive scan over
// the whole table gives each (digit, tile) the output position of the tile's
// first key of that digit. The large segments of a segmented sort lay the
// table out per segment (segments.glsl). With an indirect count, tiles past it write zeros
// (the scan reads every entry) and read no keys.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 512;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEYS_PER_THREAD) const uint KEYS_PER_THREAD = 20;
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;  // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;   // VKSORT_KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = VKSORT_SC_RADIX_BITS) const uint RADIX_BITS = 8;  // 1, 2, 4 or 8
// VKSORT_SEGMENTED_TILES: the tiles of a segmented sort's large segments.
layout(constant_id = VKSORT_SC_SEGMENTED) const uint SEGMENTED = VKSORT_SEGMENTED_NONE;
#include "common.glsl"
#include "portable.glsl"
#define TABLE_RADIX_BITS RADIX_BITS
#define SEGMENT_RING_SLOTS 0u  // the portable layout (segments.glsl)
#include "segments.glsl"

const uint TILE = WG_SIZE * KEYS_PER_THREAD;

shared uint sHist[RADIX];

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tile = gridWorkgroupIndex();
  const bool segmented = SEGMENTED == VKSORT_SEGMENTED_TILES;
  // The grid's last row may overhang (uniform).
  if (tile >= (segmented ? segmentHeader().v[VKSORT_SEG_TILES] : pc.numTiles)) return;
  const uint pass = pc.pass;
  uint tileStart, tileCount;
  SegmentTile st;
  if (segmented) {
    st = segmentTile(tile, TILE);
    tileStart = st.start;
    tileCount = st.count;
  } else {
    const uint count = sortCount();
    tileStart = tile * TILE;
    tileCount = tileStart < count ? min(TILE, count - tileStart) : 0u;
  }

  // Every loop takes the same number of turns in every invocation (see
  // tile_sort.glsl).
  for (uint base = 0; base < RADIX; base += WG_SIZE)
    if (base + tid < RADIX) sHist[base + tid] = 0u;
  barrier();
  for (uint k = 0; k < KEYS_PER_THREAD; ++k) {
    const uint i = tid + k * WG_SIZE;  // coalesced
    if (i < tileCount)  // workgroup scope: no device-scope memory model needed
      atomicAdd(sHist[digitOf(toSortBits(loadKeyWords(address(pc.keysIn), tileStart + i)), pass)], 1u, gl_ScopeWorkgroup,
                gl_StorageSemanticsShared, gl_SemanticsRelaxed);
  }
  barrier();
  U32Buf table = tileTable();
  for (uint base = 0; base < RADIX; base += WG_SIZE)
    if (base + tid < RADIX)
      table.v[segmented ? segmentTableIndex(st, tile, base + tid) : (base + tid) * pc.numTiles + tile] =
          sHist[base + tid];
}

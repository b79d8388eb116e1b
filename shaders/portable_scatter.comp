// vksort portable path, step 3 of a digit pass: each workgroup re-reads its
// tile, ranks and sorts it locally (tile_sort.glsl, the same code as
// Onesweep's) and writes it out, each digit starting at the position that
// portable_scan.comp left in the tile table.
//
// Nothing here waits on another workgroup: everything a tile needs was
// written by earlier dispatches.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 512;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_KEYS_PER_THREAD) const uint KEYS_PER_THREAD = 20;
layout(constant_id = VKSORT_SC_KEY_WORDS) const uint KEY_WORDS = 1;         // 1: 32-bit keys, 2: 64-bit keys
layout(constant_id = VKSORT_SC_KEY_KIND) const uint KEY_KIND = 0;          // VKSORT_KEY_KIND_UNSIGNED, _SIGNED or _FLOAT
layout(constant_id = VKSORT_SC_VALUE_WORDS) const uint VALUE_WORDS = 0;       // 0: keys only, 1: 32-bit values, 2: 64-bit values
layout(constant_id = VKSORT_SC_VALUE_INDEX) const bool VALUE_INDEX = false;  // argsort: pass 0 makes value = input index
layout(constant_id = VKSORT_SC_RADIX_BITS) const uint RADIX_BITS = 8;        // 1, 2, 4 or 8
layout(constant_id = VKSORT_SC_ONE_WORD_STAGING) const bool ONE_WORD_STAGING = false;  // tile_sort.glsl
layout(constant_id = VKSORT_SC_STAGING_ROUNDS) const uint STAGING_ROUNDS = 1;  // tile_sort.glsl
layout(constant_id = VKSORT_SC_WIDE_BALLOT) const bool WIDE_BALLOT = false;  // tile_sort.glsl; tests only
#include "common.glsl"
#include "portable.glsl"
#define TABLE_RADIX_BITS RADIX_BITS
#define SEGMENT_RING_SLOTS 0u  // the portable layout (segments.glsl)
#include "segments.glsl"
const bool ONE_WORKGROUP = false;  // tile_sort.glsl: one pass per dispatch
const bool CHAINED = false;
const bool SHARED_PASSES = false;
// Built with VKSORT_SEGMENT_TILES for the tiles of a segmented sort's large
// segments (a second module rather than a specialization constant: the
// validation layer's specializing optimizer (Vulkan SDK 1.3.239) fails on
// this kernel with the constant set).
#ifdef VKSORT_SEGMENT_TILES
const bool SEGMENT_TILES = true;
#else
const bool SEGMENT_TILES = false;
#endif
#include "tile_sort.glsl"

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint tile = gridWorkgroupIndex();
  const uint pass = pc.pass;
  uint tileStart, tileCount;
  SegmentTile st;
  if (SEGMENT_TILES) {
    if (tile >= segmentHeader().v[VKSORT_SEG_TILES]) return;  // past the grid (uniform)
    st = segmentTile(tile, TILE);
    tileStart = st.start;
    tileCount = st.count;
    // Keys stay in their segment even where overlapping segments (bad
    // offsets) changed them between the count and this kernel.
    gDstSegment = uvec2(st.begin, st.end);
  } else {
    const uint count = sortCount();
    tileStart = tile * TILE;
    // Past the grid or past an indirect count (uniform for the workgroup).
    if (tile >= pc.numTiles || tileStart >= count) return;
    tileCount = min(TILE, count - tileStart);
  }

  clearSubgroupHistograms();
  barrier();
  loadTile(pass, tileStart, tileCount);
  rankTile(pass, tileCount);
  barrier();

  // sDigitBase: where the tile's first key of each digit goes. (Digit loops
  // take the same number of turns in every invocation: see tile_sort.glsl.)
  U32Buf table = tileTable();
  for (uint base = 0; base < RADIX; base += WG_SIZE) {
    const uint d = base + tid;
    if (d < RADIX) {
      sScan[d] = tileDigitCount(d, tileCount);
      // Segmented: the scan less its value at the segment's first entry,
      // from the segment's begin.
      sDigitBase[d] = SEGMENT_TILES ? table.v[segmentTableIndex(st, tile, d)] - table.v[st.first << RADIX_BITS] +
                                          st.begin
                                    : table.v[d * pc.numTiles + tile];
    }
  }
  barrier();
  scanTileDigits(tileCount);  // sScan: local start of each digit in the tile
  sortTileLocally(pass, tileCount);
  for (uint base = 0; base < RADIX; base += WG_SIZE)
    if (base + tid < RADIX) sDigitBase[base + tid] -= sScan[base + tid];
  barrier();

  writeKeys(pass, tileCount);
  writeValues(pc.pass, tileCount);
}

// vksort portable path, step 2 of a digit pass: the exclusive scan of the
// tile table, in place. Afterwards entry d * numTiles + t holds the output
// position of tile t's first key of digit d.
//
// A reduce-then-scan in three dispatches, with a barrier between each, so no
// workgroup waits on another. SCAN_STEP picks the step (one pipeline each):
//   0 reduce:    each block of BLOCK entries writes its sum to blockSums;
//   1 sums:      one workgroup scans the block sums in place, BLOCK at a time;
//   2 downsweep: each block scans its entries, starting from its block sum.
// With a single block, the dispatcher runs only the downsweep, which then
// starts from zero.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "spec_constants.h"
layout(local_size_x_id = VKSORT_SC_WG_SIZE) in;
layout(constant_id = VKSORT_SC_WG_SIZE) const uint WG_SIZE = 256;
layout(constant_id = VKSORT_SC_SG_SIZE) const uint SG_SIZE = 32;
layout(constant_id = VKSORT_SC_SCAN_ITEMS) const uint SCAN_ITEMS = 8;  // entries per invocation and block
layout(constant_id = VKSORT_SC_SCAN_STEP) const uint SCAN_STEP = 0;
layout(constant_id = VKSORT_SC_RADIX_BITS) const uint RADIX_BITS = 8;  // of the table: 2^R entries per tile
// common.glsl's key helpers need these; the scan reads no keys.
const uint KEY_WORDS = 1;
const uint KEY_KIND = 0;
#include "common.glsl"
#include "portable.glsl"

const uint BLOCK = WG_SIZE * SCAN_ITEMS;
const uint STEP_REDUCE = 0;
const uint STEP_SUMS = 1;
const uint STEP_DOWNSWEEP = 2;

// The dispatcher limits the table to 2^31 entries, so this cannot overflow.
uint numBlocks() { return (tableEntries() + BLOCK - 1u) / BLOCK; }

// Exclusive scan of buf[start, start + n) in place, plus carry, by the whole
// workgroup (n <= BLOCK); each invocation owns SCAN_ITEMS consecutive
// entries, in subgroup order (the order of workgroupExclusiveAdd's
// prefixes). Returns the sum of the n entries. The caller puts a barrier
// before the next call.
uint scanChunk(U32Buf buf, uint start, uint n, uint carry) {
  const uint first = subgroupOrderIndex() * SCAN_ITEMS;
  uint items[SCAN_ITEMS];
  uint sum = 0u;
  for (uint j = 0; j < SCAN_ITEMS; ++j) {
    items[j] = first + j < n ? buf.v[start + first + j] : 0u;
    sum += items[j];
  }
  uint run = carry + workgroupExclusiveAdd(sum);
  const uint total = sScanTotals[NUM_SUBGROUPS];
  for (uint j = 0; j < SCAN_ITEMS; ++j) {
    if (first + j < n) buf.v[start + first + j] = run;
    run += items[j];
  }
  return total;
}

void main() {
  const uint tid = gl_LocalInvocationIndex;
  const uint entries = tableEntries();
  const uint blocks = numBlocks();
  U32Buf table = tileTable();
  U32Buf sums = blockSums();

  if (SCAN_STEP == STEP_SUMS) {
    uint carry = 0u;
    for (uint start = 0; start < blocks; start += BLOCK) {
      carry += scanChunk(sums, start, min(BLOCK, blocks - start), carry);
      barrier();
    }
    return;
  }

  const uint block = gridWorkgroupIndex();
  if (block >= blocks) return;  // the grid's last row may overhang (uniform)
  const uint start = block * BLOCK;
  const uint n = min(BLOCK, entries - start);
  if (SCAN_STEP == STEP_REDUCE) {
    uint sum = 0u;
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
      const uint i = tid + j * WG_SIZE;  // coalesced; the order of a sum does not matter
      if (i < n) sum += table.v[start + i];
    }
    workgroupExclusiveAdd(sum);
    if (tid == 0) sums.v[block] = sScanTotals[NUM_SUBGROUPS];
  } else {
    scanChunk(table, start, n, blocks > 1u ? sums.v[block] : 0u);
  }
}

// Shared between C++ (src/) and GLSL (shaders/): the push constants and the
// layout of the temporary buffer. Keep both sides in this one file so they
// cannot drift apart.
#ifndef VKSORT_PUSH_H
#define VKSORT_PUSH_H

// Device addresses are two 32-bit words in GLSL (x low, y high), so that
// kernels need no 64-bit integers; std430 lays out a uvec2 as a uint64_t.
#ifdef VKSORT_GLSL
#define VKSORT_U32 uint
#define VKSORT_ADDRESS uvec2
#else
#include <stdint.h>
#define VKSORT_U32 uint32_t
#define VKSORT_ADDRESS uint64_t
#endif

// Digit width and the largest number of passes any key type needs.
#define VKSORT_RADIX_BITS 8
#define VKSORT_RADIX 256
#define VKSORT_MAX_PASSES 8

// Temporary buffer layout, in bytes from the start of the caller's range.
//   [0, HIST)            global digit histograms, VKSORT_MAX_PASSES x 256 u32;
//                        exclusive-scanned by the histogram kernel
//   [HIST, HEADER)       counters: histogram-done, then per pass a tile
//                        counter (the first one hands out the work items of
//                        every pass) and a tail iterator; then, for a sort
//                        with an indirect count, the passes' dispatch
//                        commands
//   [HEADER, ...)        the status ring: ringSlots x 256 u64 entries
// The header is zeroed with vkCmdFillBuffer at the start of every sort. The
// ring is cleared by the histogram kernel, or by the chained dispatch's
// histogram items (only the slots the sort will use).
#define VKSORT_TEMP_HIST_OFFSET 0
#define VKSORT_TEMP_HIST_BYTES (VKSORT_MAX_PASSES * VKSORT_RADIX * 4)
#define VKSORT_TEMP_COUNTERS_OFFSET VKSORT_TEMP_HIST_BYTES
// counters (u32 indices from VKSORT_TEMP_COUNTERS_OFFSET)
#define VKSORT_CTR_HIST_DONE 0
#define VKSORT_CTR_TILE(pass) (1 + (pass))
#define VKSORT_CTR_TAIL(pass) (1 + VKSORT_MAX_PASSES + (pass))
#define VKSORT_CTR_COUNT (1 + 2 * VKSORT_MAX_PASSES)
// With an indirect count (VKSORT_FLAG_LIVE_ROUTE), per tile shape whose
// passes have a dispatch each, their VkDispatchIndirectCommand (3 u32; in
// the order of the shapes' routes, VKSORT_ROUTE_* in spec_constants.h): the
// histogram kernel writes the live count's tiles in the shape of its route,
// and none in the others.
#define VKSORT_CTR_PASSES_DISPATCH(route) (20 + 4 * ((route)-VKSORT_ROUTE_MIDSIZE_HALF))
#define VKSORT_TEMP_COUNTERS_BYTES 256  // room for 64 u32 counters
#define VKSORT_TEMP_HEADER_BYTES (VKSORT_TEMP_HIST_BYTES + VKSORT_TEMP_COUNTERS_BYTES)
#define VKSORT_TEMP_RING_OFFSET VKSORT_TEMP_HEADER_BYTES

// Temporary buffer layout of the portable path (VKSORT_ALGORITHM_PORTABLE),
// in bytes from the start of the caller's range; nothing needs clearing:
//   [0, 4 E)             the tile table: E = 2^R x numTiles u32 counts,
//                        digit-major (digit d of tile t at d * numTiles + t),
//                        scanned in place into output positions
//   [SUMS, ...)          the scan's block sums, one u32 per scan block
#define VKSORT_PORTABLE_SUMS_OFFSET(tableEntries) (((tableEntries)*4u + 15u) / 16u * 16u)
// Table entries per scan block (portable_scan.comp).
#define VKSORT_PORTABLE_SCAN_BLOCK 2048u

// Segmented sorts (segment_bins.comp) use the portable layout for the large
// segments' tile table (numTiles: the most tiles they may have), and after
// its block sums, from a 16-byte boundary, the segments' area:
//   [0, 144)             counters and dispatch commands (u32 words below),
//                        zeroed with vkCmdFillBuffer before every sort
//   [144, ...)           the binned segments: 3 segmentCount uvec2 (begin,
//                        end) in three lists of segmentCount, rounded up to
//                        16 bytes: tiny ones from the front and half-subgroup
//                        ones from the back of the first, micro ones from
//                        the front and subgroup ones from the back of the
//                        second, small ones from the front of the third
//   [..., ...)           per large-segment tile, from a 16-byte boundary: a
//                        uvec4 (first tile of its segment, its segment's
//                        begin and end, the segment's number among the
//                        large ones), numTiles of them
//   [..., ...)           Onesweep only: per large segment, its histograms
//                        (VKSORT_SEG_HISTOGRAM_WORDS(passes) u32 each),
//                        zeroed with vkCmdFillBuffer before every sort
//   [..., ...)           Onesweep only, where large segments may be split:
//                        the buckets' area, laid out as the segments' area
//                        from its start (a header zeroed before every
//                        sort, then 2 C uvec2 lists for C buckets: no
//                        bucket is small): the buckets of the split
//                        segments, by size class
// With Onesweep the area follows the header and the ring (VKSORT_TEMP_*
// above) instead of the tile table.
#define VKSORT_SEG_TINY_COUNT 0          // tiny segments binned
#define VKSORT_SEG_SMALL_COUNT 1         // small segments binned
#define VKSORT_SEG_TILES_TAKEN 2         // tiles handed out (may pass the capacity; Onesweep: a u64, words 2 and 3)
#define VKSORT_SEG_TILES 23              // tiles of the large segments that fit
#define VKSORT_SEG_TINY_DISPATCH 4       // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_SMALL_DISPATCH 8      // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_TILES_DISPATCH 12     // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_BLOCKS_DISPATCH 16    // the table scan's blocks: 3 u32
#define VKSORT_SEG_LARGE_COUNT 20        // large segments with tiles (Onesweep: histograms handed out)
#define VKSORT_SEG_MICRO_COUNT 21        // micro segments binned
#define VKSORT_SEG_SUBGROUP_COUNT 22     // subgroup-class segments binned
#define VKSORT_SEG_MICRO_DISPATCH 24     // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_SUBGROUP_DISPATCH 28  // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_SPLIT_COUNT 31        // the buckets' area: segments split (may pass its capacity)
#define VKSORT_SEG_HALF_DISPATCH 32      // VkDispatchIndirectCommand: 3 u32
#define VKSORT_SEG_HALF_COUNT 35         // half-subgroup-class segments binned
// The buckets' area: the VkDispatchIndirectCommand (3 u32) of the large
// segments' passes after the first: the tiles' grid where a segment keeps
// its passes, none where every one is split.
#define VKSORT_SEG_LATER_DISPATCH 12
// A large segment's tile entries (their number among the large ones) carry
// this bit once the segment is split.
#define VKSORT_SEG_TILE_SPLIT 0x80000000u
// ... and this bit once it is split on its top two digits.
#define VKSORT_SEG_TILE_SPLIT_TWO 0x40000000u
// The two-digit buckets' area (laid out as the buckets' area): the
// VkDispatchIndirectCommand of the large segments' second pass, where a
// segment split on two digits sorts by the top digit (none where every
// large segment is split on one).
#define VKSORT_SEG_SECOND_DISPATCH 12
// ... and the command of segment_buckets.comp: VKSORT_RADIX workgroups per
// segment split on two digits.
#define VKSORT_SEG_FIND_DISPATCH 16
// A large segment's histograms: 256 u32 per pass, then its done counter,
// padded to 16 bytes.
#define VKSORT_SEG_HISTOGRAM_WORDS(passes) ((passes)*VKSORT_RADIX + 4u)
#define VKSORT_SEG_HEADER_BYTES 144
// Workgroups per row of a segmented sort's indirect grids: the least
// maxComputeWorkGroupCount[0] Vulkan allows.
#define VKSORT_SEG_GRID_X 65535u

// Status ring entry (64 bits):
//   bits  0..30  count (aggregate) or prefix (inclusive); N <= 2^30 fits
//   bit  31      1 = inclusive prefix, 0 = tile aggregate only
//   bits 32..63  tag = pass * numTiles + tile + 1; 0 never matches, so a
//                cleared slot and any entry of another tile or pass read
//                as "not published yet"
#define VKSORT_STATUS_INCLUSIVE 0x80000000u
#define VKSORT_STATUS_VALUE_MASK 0x7fffffffu

// Flags (VksortPush::flags).
#define VKSORT_FLAG_DESCENDING 1u
// A Onesweep sort with an indirect count records, side by side, every
// kernel that a live count up to maxCount may take: the bitonic kernel, the
// one-workgroup kernel and each tile shape's passes. Each reads the live
// count and sorts only where a direct sort of that count would take it
// (VKSORT_ROUTE_*, liveRoute in common.glsl); the others return at once.
#define VKSORT_FLAG_LIVE_ROUTE 2u
// The bitonic kernels sort the buckets of split segments (segment_list.glsl):
// values are read from valuesIn, also for argsort, whose pass over the top
// digit made them.
#define VKSORT_FLAG_BUCKETS 4u
// Segmented sorts whose large segments may split on their top two digits:
// the two-digit buckets' area follows the buckets' area (segment_list.glsl).
#define VKSORT_FLAG_SPLIT_TWO 8u

// One push-constant block for every kernel (std430 in GLSL, at most 128
// bytes: the least maxPushConstantsSize that Vulkan allows).
struct VksortPush {
  VKSORT_ADDRESS keysIn;        // device address of the keys read by this dispatch
  VKSORT_ADDRESS keysOut;       // device address of the keys written
  VKSORT_ADDRESS valuesIn;      // values read by this pass (0 = keys only, or argsort's first pass)
  VKSORT_ADDRESS valuesOut;     // values written by this pass (0 = keys only)
  VKSORT_ADDRESS temp;          // device address of the temporary buffer
  VKSORT_ADDRESS countAddress;  // indirect count: address of a u32 (0 = use count)
  VKSORT_U32 count;             // number of keys; with countAddress, the most it may be
  VKSORT_U32 pass;              // onesweep: pass index; digit bits [beginBit + 8 pass, ...)
  VKSORT_U32 numTiles;          // tiles for count keys
  VKSORT_U32 passes;            // number of digit passes of this sort
  VKSORT_U32 beginBit;          // lowest bit sorted
  VKSORT_U32 endBit;            // one past the highest bit sorted
  VKSORT_U32 flags;             // VKSORT_FLAG_*
  VKSORT_U32 ringClear;         // histogram: ring slots to clear
  // Key mapping, XORed into each key as it is loaded (keys -> sort bits) and
  // stored (sort bits -> keys): words 0-1 (low, high) when the key's top bit
  // is set, words 2-3 when it is clear. Zero where a pass does not map.
  // Computed by the dispatcher (keyMapMasks in src/plan.cpp): as direct
  // push-constant operands they cost no registers, where computing them in
  // the shader costs registers in every kernel.
  VKSORT_U32 loadXor[4];
  VKSORT_U32 storeXor[4];
  // Segmented sorts: keys per tile of the large segments' passes.
  VKSORT_U32 tileKeys;
  // Segmented sorts: the segments' list capacity (the segmentCount given at
  // record time; the buckets' kernels: the buckets' capacity, with temp
  // moved so that their area is where the segments' area would be). The
  // bins kernel reads the offsets from keysIn.
  VKSORT_U32 segmentCount;
};

#endif

// Shared between C++ (src/pipelines.cpp) and GLSL (shaders/*.comp): the ID of
// every specialization constant. One ID per name in every kernel, so that a
// constant means the same thing wherever it appears; a kernel declares only
// those it uses, and the dispatcher fills all of them from one struct
// (SpecConstants in src/pipelines.cpp, in ID order).
#ifndef VKSORT_SPEC_CONSTANTS_H
#define VKSORT_SPEC_CONSTANTS_H

// Every kernel.
#define VKSORT_SC_WG_SIZE 0  // invocations per workgroup (local_size_x)
#define VKSORT_SC_SG_SIZE 1  // the subgroup size the kernel is built for (full subgroups)

// Kernels that read keys.
#define VKSORT_SC_KEYS_PER_THREAD 2  // keys per invocation of a tile (bitonic: elements per invocation)
#define VKSORT_SC_KEY_WORDS 3        // 1: 32-bit keys, 2: 64-bit keys
#define VKSORT_SC_KEY_KIND 4         // VKSORT_KEY_KIND_UNSIGNED, _SIGNED or _FLOAT (below)

// The values of VKSORT_SC_KEY_KIND: how a key maps to sort bits
// (common.glsl).
#define VKSORT_KEY_KIND_UNSIGNED 0
#define VKSORT_KEY_KIND_SIGNED 1
#define VKSORT_KEY_KIND_FLOAT 2

// Kernels that move values.
#define VKSORT_SC_VALUE_WORDS 5  // 0: keys only, 1: 32-bit values, 2: 64-bit values
#define VKSORT_SC_VALUE_INDEX 6  // argsort: pass 0 makes each value its key's input index

// Kernels that sort a tile through shared memory (tile_sort.glsl).
#define VKSORT_SC_ONE_WORD_STAGING 7  // 64-bit items go through shared memory a word at a time
#define VKSORT_SC_STAGING_ROUNDS 21   // rounds in which the sorted tile goes through shared memory
#define VKSORT_SC_WIDE_BALLOT 22      // tests only: rank with the uvec4 ballot at every subgroup size

// The portable kernels.
#define VKSORT_SC_RADIX_BITS 8  // digit width: 1, 2, 4 or 8
#define VKSORT_SC_SCAN_STEP 9   // portable_scan.comp: 0 reduce, 1 scan of the block sums, 2 downsweep

// onesweep.comp.
#define VKSORT_SC_RING_SLOTS 10      // tiles in the circular status buffer
#define VKSORT_SC_LOOKBACK 11        // farthest tile a look-back reads
#define VKSORT_SC_TAIL_BITS 12       // log2 of the tiles that may retire out of order
#define VKSORT_SC_STATUS_RMW 13      // ring accesses as read-modify-write atomics only
#define VKSORT_SC_SPIN_BUDGET 14     // polling rounds an invocation may spend waiting per pass
#define VKSORT_SC_PUBLISH_DELAY 15   // fault injection for tests: largest delay before a tile publishes
#define VKSORT_SC_LOOKBACK_LANES 16  // invocations that walk one digit's look-back together
#define VKSORT_SC_ONE_WORKGROUP 17   // the one-workgroup paths: every pass in one dispatch
#define VKSORT_SC_TILE_IN_SHARED 18  // ONE_WORKGROUP: keys and values stay in shared memory between passes
#define VKSORT_SC_CHAINED 31         // every pass's tiles in one dispatch
// The kernels of a Onesweep sort with an indirect count (the histogram
// kernel, onesweep.comp's): the route that a direct sort of a live count
// takes (live_route.glsl). The live counts up to which the bitonic kernel
// runs, keys-only and with the index (0: none), then the one-workgroup
// kernel, the mid-size half tiles and the mid-size tiles (0: never); larger
// ones run in the tile shape. The kernel's own route. The most keys whose
// passes are chained (0: none); and the keys per tile of each tile shape.
#define VKSORT_SC_MIDSIZE_MAX_COUNT 32
#define VKSORT_SC_MIDSIZE_HALF_MAX_COUNT 33
#define VKSORT_SC_ROUTE 34
#define VKSORT_SC_BITONIC_KEYS_MAX_COUNT 36
#define VKSORT_SC_BITONIC_MAX_COUNT 37
#define VKSORT_SC_ONE_WORKGROUP_MAX_COUNT 38
#define VKSORT_SC_CHAINED_MAX_COUNT 39
#define VKSORT_SC_MIDSIZE_HALF_TILE_KEYS 42
#define VKSORT_SC_MIDSIZE_TILE_KEYS 43
#define VKSORT_SC_TILE_KEYS 44
#define VKSORT_ROUTE_NONE 0           // no keys to sort, or not a kernel of such a sort
#define VKSORT_ROUTE_BITONIC 1        // the bitonic kernel (bitonic.comp checks its own capacity)
#define VKSORT_ROUTE_ONE_WORKGROUP 2  // the one-workgroup kernel
#define VKSORT_ROUTE_MIDSIZE_HALF 3   // the mid-size half tiles' passes
#define VKSORT_ROUTE_MIDSIZE 4        // the mid-size tiles' passes
#define VKSORT_ROUTE_TILES 5          // the tile shape's passes

// bitonic.comp.
#define VKSORT_SC_NO_INDEX 19  // sort the keys alone (bitonic keys-only)

// portable_scan.comp.
#define VKSORT_SC_SCAN_ITEMS 20  // table entries per invocation and block

// Segmented sorts (VKSORT_SC_SEGMENTED's values below; segment_bins.comp).
#define VKSORT_SC_SEGMENTED 23             // what a workgroup sorts: one sort's keys, or segments
#define VKSORT_SC_SEGMENT_TINY_MAX 24      // segment_bins.comp: the tiny class's largest segment
#define VKSORT_SC_SEGMENT_SMALL_MAX 25     // segment_bins.comp: the small class's largest segment
#define VKSORT_SC_SEGMENT_GROUP 26         // subgroups per workgroup of the kernels of lanes
#define VKSORT_SC_SEGMENT_MICRO_MAX 27     // segment_bins.comp: the micro class's largest segment
#define VKSORT_SC_SEGMENT_SUBGROUP_MAX 28  // segment_bins.comp: the subgroup class's largest segment
#define VKSORT_SC_SEGMENT_LANES 29         // lanes per segment (VKSORT_SEGMENTED_LANES); bins: the tiny class's
#define VKSORT_SC_SEGMENT_CLASS 30         // bitonic.comp: the class it sorts (VKSORT_SEGMENT_CLASS_*)
#define VKSORT_SC_SEGMENT_STAGE 35         // bitonic.comp, kernels of lanes: keys and values through shared memory
#define VKSORT_SC_SEGMENT_MEDIUM_MAX 40    // segment_bins.comp: the medium class's largest segment
#define VKSORT_SC_SEGMENT_SPLIT_MAX 41     // histogram.comp: the largest bucket of a split segment (0: none)
#define VKSORT_SC_SEGMENT_HALF_MAX 45      // segment_bins.comp: the half-subgroup class's largest segment

// The values of VKSORT_SC_SEGMENTED.
#define VKSORT_SEGMENTED_NONE 0       // a plain sort
#define VKSORT_SEGMENTED_LANES 1      // bitonic.comp: each group of LANES lanes sorts one segment
#define VKSORT_SEGMENTED_WORKGROUP 2  // bitonic.comp: the workgroup sorts one small segment
#define VKSORT_SEGMENTED_TILES 3      // portable count and scatter: tiles of the large segments

// The size classes of segmented sorts (segment_bins.comp), smallest first.
#define VKSORT_SEGMENT_CLASS_MICRO 0     // one invocation per segment
#define VKSORT_SEGMENT_CLASS_TINY 1      // a few lanes per segment
#define VKSORT_SEGMENT_CLASS_HALF 2      // half a subgroup per segment
#define VKSORT_SEGMENT_CLASS_SUBGROUP 3  // a subgroup per segment
#define VKSORT_SEGMENT_CLASS_SMALL 4     // a workgroup per segment (small and medium ones: one list)

#define VKSORT_SC_COUNT 46

#endif

// vksort advanced interface: the kernels' shapes (VksortTuning) and the plan
// of a sort (vksortGetSortPlan). Most engines never need this header:
// vksort picks tuned defaults per device. Use it to compare shapes in a
// benchmark, or to find the sizes around a tile or path boundary in a test.
// docs/tuning.md gives the measurements behind the defaults.
#ifndef VKSORT_VKSORT_ADVANCED_H
#define VKSORT_VKSORT_ADVANCED_H

#include "vksort.h"

#ifdef __cplusplus
extern "C" {
#endif

// A VksortTuning count field set to this turns its path off.
#define VKSORT_TUNING_OFF 0xFFFFFFFFu

// The kernels' shapes. Pass one through VksortCreateInfo::pTuning: zero
// fields mean "the default for this device", and vksortGetTuning returns
// the shape a sorter was created with. Every field is checked at creation
// (VKSORT_ERROR_INVALID_ARGUMENT with a message naming the field).
typedef struct VksortTuning {
  // --- Tiles of the Onesweep reorder kernel and of the portable count and
  // scatter kernels: workgroupSize x keysPerThread keys per workgroup.
  // workgroupSize: a multiple of the subgroup size, at most the device's
  // workgroup size. keysPerThread: 1 to 128. The tile and the per-subgroup
  // digit histograms must fit in shared memory at one 32-bit word per key
  // (64-bit keys and values then go through shared memory a word at a
  // time).
  uint32_t workgroupSize;
  uint32_t keysPerThread;
  // stagingRounds: a tile's keys and values stay in registers, and its
  // locally sorted order goes out through shared memory in this many rounds
  // (1 to keysPerThread), so that a round needs 1/stagingRounds of the
  // tile's shared memory. Less shared memory per workgroup lets more
  // workgroups run at once on a multiprocessor; each round after the first
  // costs two workgroup barriers per 32-bit word of key and value.
  uint32_t stagingRounds;

  // --- Onesweep: the histogram kernel, the look-back and the status ring.
  // histogramWorkgroups: at most this many persistent histogram workgroups
  // (at least 64).
  uint32_t histogramWorkgroups;
  // ringSlots: tiles in the circular status buffer (at most 65,536).
  // lookback: the farthest earlier tile a look-back reads (1 to 4,096).
  // tailGroup: tiles that may retire out of order (a power of two; 1 = in
  // order). ringSlots >= lookback + tailGroup.
  uint32_t ringSlots;
  uint32_t lookback;
  uint32_t tailGroup;
  // lookbackLanes: invocations that walk one digit's look-back together,
  // each reading a different earlier tile per step (a power of two, at most
  // 8 and the subgroup size). Default: as many as the workgroup has
  // invocations per digit. The mid-size Onesweep path always walks with as
  // many as its own workgroup has.
  uint32_t lookbackLanes;

  // --- The small-N paths, tried in this order; a count goes to the first
  // that holds it (vksortGetSortPlan says which).
  // bitonicKeysMaxCount: keys-only sorters, sorts of every key bit: one
  // workgroup sorts up to this many keys with a bitonic network over the
  // keys alone (equal keys are indistinguishable, so the result is the
  // stable one). Counts up to half and a quarter of it go to kernels of that
  // capacity. A power of two from twice the subgroup size, at most 16 keys
  // per invocation of its workgroup (512 invocations at most), with the keys
  // in shared memory; VKSORT_TUNING_OFF turns it off. Sorters with values
  // report VKSORT_TUNING_OFF.
  uint32_t bitonicKeysMaxCount;
  // bitonicMaxCount: one workgroup sorts up to this many keys with a bitonic
  // network over (key, input index) pairs, which is stable; counts up to
  // half of it go to a kernel of half the capacity. Rules as above, with the
  // indices in shared memory too. Both algorithms use it.
  uint32_t bitonicMaxCount;
  // The one-workgroup path (Onesweep only): one workgroup of
  // oneWorkgroupSize x oneWorkgroupKeysPerThread keys runs every pass in one
  // dispatch. Where the tile's keys and values fit in shared memory
  // together, they stay there from pass to pass and only the last pass
  // writes a buffer; otherwise the passes go through keys and alt.
  uint32_t oneWorkgroupSize;
  uint32_t oneWorkgroupKeysPerThread;
  // oneWorkgroupMaxCount: the one-workgroup paths' largest count: the
  // one-workgroup shape's keys, or more, up to twice that, where the wide
  // one-workgroup kernel (twice the invocations, the same keys per invocation)
  // holds that many keys and their values in shared memory; it sorts the counts
  // above the one-workgroup shape's keys. The default is 1.25 times them where
  // it fits (on NVIDIA, 32-bit keys alone). Giving a one-workgroup shape
  // without it drops the wide kernel. VKSORT_TUNING_OFF turns the one-workgroup
  // paths off.
  uint32_t oneWorkgroupMaxCount;
  // midsizeMaxCount: counts above oneWorkgroupMaxCount and up to this run
  // Onesweep in tiles of the one-workgroup shape, which spreads a mid-size
  // sort over more workgroups; counts up to half of it, and at most 2^18,
  // in tiles of half the keys per invocation (where the shape has two or
  // more), whose shorter latency wins at those counts. VKSORT_TUNING_OFF (or any value
  // up to oneWorkgroupMaxCount) turns it off. The portable algorithm has no
  // mid-size path. With an indirect count the live count picks the tiles:
  // the sort records the passes in each shape up to that of `count`, and
  // only those of the live count's shape sort (the others' workgroups
  // return at once).
  uint32_t midsizeMaxCount;
  // chainedMaxCount: Onesweep sorts of up to this many keys (the count given at
  // record time: maxCount with an indirect count, every key of a segmented
  // sort) run all their digit passes in one dispatch: its workgroups take the
  // tiles of pass 0, then of pass 1, and so on, from one counter, and a tile
  // waits inside the dispatch until the pass before it is done. The same
  // dispatch also counts the digits first, in place of the histogram kernel
  // (with an indirect count, where the live count's tile shape is chained:
  // each shape's chain of dispatches is chained or not by the most keys it
  // may sort). That replaces a barrier and a dispatch per pass,
  // which cost microseconds whether a pass is long, short or, with a small live
  // count or only small segments, empty; where passes are long, waiting inside
  // the dispatch costs more than the barriers (docs/tuning.md). Unlike the
  // look-back's waits, which fall back to counting a late tile's keys, this
  // wait needs the driver to keep running workgroups running: the default is
  // 2^20 on the GPU drivers where VKSORT_ALGORITHM_AUTO picks Onesweep and
  // VKSORT_TUNING_OFF elsewhere, lavapipe included (there a waiting workgroup
  // holds a CPU thread that could run the tiles it waits for).
  // VKSORT_TUNING_OFF turns it off. The portable algorithm has no chained
  // passes.
  uint32_t chainedMaxCount;
} VksortTuning;

// The shape the sorter was created with (defaults resolved, overrides
// applied, paths that are off as VKSORT_TUNING_OFF). The portable algorithm
// uses workgroupSize x keysPerThread for its count and scatter kernels and
// the bitonic fields; it ignores the others.
VksortResult vksortGetTuning(VksortSorter sorter, VksortTuning* pTuning);

// The kernels a sort runs, by count, key type and bit range. Each has one
// name, the same in the code, the debug labels and the benchmark's output
// (vksortPathName).
typedef enum VksortPath {
  VKSORT_PATH_NONE = 0,                // "none": count 0, nothing is recorded
  VKSORT_PATH_BITONIC_KEYS = 1,        // "bitonic keys-only": one dispatch
  VKSORT_PATH_BITONIC = 2,             // "bitonic": one dispatch
  VKSORT_PATH_ONE_WORKGROUP = 3,       // "one workgroup": one dispatch, every pass
  VKSORT_PATH_WIDE_ONE_WORKGROUP = 4,  // "wide one workgroup": the same, twice as wide
  VKSORT_PATH_MIDSIZE_ONESWEEP = 5,    // "mid-size onesweep": Onesweep in one-workgroup tiles
  VKSORT_PATH_ONESWEEP = 6,            // "onesweep": a histogram dispatch and one per pass, or fewer: chainedMaxCount
  VKSORT_PATH_PORTABLE = 7,            // "portable": count, scan and scatter dispatches per pass
  VKSORT_PATH_SEGMENTED = 8            // "segmented": vksortRecordSegmentedSort (debug labels)
} VksortPath;

// The name of a path, e.g. "mid-size onesweep".
const char* vksortPathName(VksortPath path);

// What vksortRecordSort would record for a sort.
typedef struct VksortSortPlan {
  VksortPath path;
  uint32_t passes;         // digit passes (the one-dispatch paths run them in one dispatch)
  uint32_t workgroupSize;  // invocations of the kernel that sorts the tiles
  uint32_t keysPerThread;  // keys per invocation of that kernel
  uint32_t tileKeys;       // keys per tile (bitonic paths: the network's capacity)
  uint32_t tiles;          // tiles for the count (1 on the one-dispatch paths)
  VksortResultBuffer resultBuffer;
} VksortSortPlan;

// The plan of a sort. Reads count, beginBit, endBit and countBuffer.buffer
// of pSortInfo (its buffers are not checked); fails as vksortRecordSort
// would on a bad count or bit range. With a countBuffer, the plan is that of
// `count`, the most keys the sort may see.
VksortResult vksortGetSortPlan(VksortSorter sorter, const VksortSortInfo* pSortInfo, VksortSortPlan* pPlan);

// What vksortRecordSegmentedSort would record: the size classes' bounds and
// the large segments' tiles (see "Segmented sorts" in vksort.h).
typedef struct VksortSegmentedSortPlan {
  uint32_t passes;            // digit passes of the large segments
  uint32_t microMaxCount;     // segments of 1 to this many keys: one invocation each, in its registers
  uint32_t tinyMaxCount;      // up to this many: a few lanes each, several per subgroup
  uint32_t halfMaxCount;      // up to this many: half a subgroup each (tinyMaxCount where subgroups have
                              // up to 8 lanes: none)
  uint32_t subgroupMaxCount;  // up to this many: one subgroup each
  uint32_t smallMaxCount;     // up to this many: one workgroup each, in shared memory
  uint32_t mediumMaxCount;    // up to this many: one workgroup each, radix passes (Onesweep sorters;
                              // elsewhere smallMaxCount); larger: radix passes over tiles
  uint32_t tileKeys;          // keys per tile of the large segments' passes
  uint32_t maxTiles;          // the most tiles the large segments may have
  // A large segment whose keys the top digit (the last pass's) splits into
  // buckets of at most this many keys each is split: one radix pass on that
  // digit, then each bucket sorted as a segment of its own class (see
  // vksort.h). 0: none is (the portable algorithm; Onesweep sorts that run
  // every pass in one dispatch, up to VksortTuning::chainedMaxCount keys;
  // bit ranges of one pass).
  uint32_t bucketMaxCount;
  VksortResultBuffer resultBuffer;
} VksortSegmentedSortPlan;

// The plan of a segmented sort. Reads sort.count, sort.beginBit,
// sort.endBit and segmentCount of pSortInfo (its buffers are not checked);
// fails as vksortRecordSegmentedSort would on a bad count or bit range.
VksortResult vksortGetSegmentedSortPlan(VksortSorter sorter, const VksortSegmentedSortInfo* pSortInfo,
                                        VksortSegmentedSortPlan* pPlan);

#ifdef __cplusplus
}
#endif

#endif

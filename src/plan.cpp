// planSort: one sort as a value. From the sorter's Config and the sort's
// count and bit range it picks the path (vksort_advanced.h, VksortPath), the
// passes, the tile shape and grid, and the push constants, and lists every
// command the sort records, in order: fills, barriers with their masks,
// dispatches with their kernels. No Vulkan calls: record.cpp walks the
// list, and tests check every path's commands and barriers without a GPU.
#include <cstring>

#include "internal.h"

namespace vksort {

namespace {

constexpr uint32_t kHistogramKeysPerInvocation = 16;  // before adding another persistent workgroup
constexpr uint32_t kHistogramMaxLoop = 2048;          // grid-stride steps per invocation, at most

// The portable algorithm's sizes for count keys: its tiles, the tile table
// (2^R entries per tile) and the blocks of the table's scan.
struct PortableSizes {
  uint32_t tiles;
  uint32_t scanBlocks;
  uint64_t tempBytes;  // push.h's layout; at least 16, as a buffer of size 0 is not valid Vulkan
};

PortableSizes portableSizes(const Config& c, uint32_t count) {
  PortableSizes p;
  p.tiles = uint32_t((uint64_t(count) + c.tileKeys() - 1) / c.tileKeys());
  const uint32_t tableEntries = p.tiles << c.radixBits;
  p.scanBlocks = (tableEntries + VKSORT_PORTABLE_SCAN_BLOCK - 1) / VKSORT_PORTABLE_SCAN_BLOCK;
  p.tempBytes = VKSORT_PORTABLE_SUMS_OFFSET(uint64_t(tableEntries)) + uint64_t(p.scanBlocks) * 4;
  if (p.tempBytes < 16) p.tempBytes = 16;
  return p;
}

// A 2D grid of at least `groups` workgroups with x <= maxX (see
// shaders/portable.glsl); groups past `groups` return at once.
void grid2d(uint32_t groups, uint32_t maxX, uint32_t xy[2]) {
  xy[0] = groups < maxX ? groups : maxX;
  xy[1] = xy[0] ? (groups + xy[0] - 1) / xy[0] : 0;
}

// The XOR masks of push.h's loadXor/storeXor for a key type and order:
// words 0-1 apply when the key's top bit is set, 2-3 when it is clear
// (common.glsl explains the mapping).
void keyMapMasks(const Config& c, bool descending, uint32_t load[4], uint32_t store[4]) {
  const uint64_t all = c.keyWords == 2 ? ~uint64_t(0) : 0xffffffffu;
  const uint64_t sign = c.keyWords == 2 ? uint64_t(1) << 63 : uint64_t(1) << 31;
  const uint64_t desc = descending ? all : 0;
  uint64_t loadTop, loadClear, storeTop, storeClear;
  if (c.keyKind == VKSORT_KEY_KIND_FLOAT) {  // negative -> flip all, positive -> flip the sign
    loadTop = all ^ desc;
    loadClear = sign ^ desc;
    // Undo desc first; then a set top bit means the key was positive.
    storeTop = descending ? 0 : sign;
    storeClear = descending ? (all ^ sign) : all;
  } else {
    loadTop = loadClear = storeTop = storeClear = (c.keyKind == VKSORT_KEY_KIND_SIGNED ? sign : 0) ^ desc;
  }
  const uint64_t l[2] = {loadTop, loadClear}, st[2] = {storeTop, storeClear};
  for (int i = 0; i < 2; ++i) {
    load[2 * i] = uint32_t(l[i]);
    load[2 * i + 1] = uint32_t(l[i] >> 32);
    store[2 * i] = uint32_t(st[i]);
    store[2 * i + 1] = uint32_t(st[i] >> 32);
  }
}

// The kernel of a bitonic set (up to maxCount keys) for `count` keys: the
// smallest that holds them; false if none does.
bool pickBitonic(const BitonicKernels& set, uint32_t maxCount, uint32_t count, uint32_t* kernel) {
  bool found = false;
  for (uint32_t k = 0; k < 3 && set.workgroupSize[k] && count <= maxCount >> k; ++k) {
    *kernel = k;
    found = true;
  }
  return found;
}

void setShape(VksortSortPlan* summary, uint32_t workgroupSize, uint32_t keysPerThread, uint32_t tiles) {
  summary->workgroupSize = workgroupSize;
  summary->keysPerThread = keysPerThread;
  summary->tileKeys = workgroupSize * keysPerThread;
  summary->tiles = tiles;
}

// Persistent histogram workgroups for count keys: enough to keep the device
// busy, at most the tuning's, and never more than kHistogramMaxLoop
// grid-stride steps per invocation (llvmpipe ends a shader's loops after
// 65535 iterations in all; status_ring.glsl).
uint32_t histogramWorkgroups(const Config& c, uint32_t count) {
  const uint32_t wg = c.histogramWorkgroupSize;
  const uint32_t perWorkgroup = wg * kHistogramKeysPerInvocation;
  uint32_t n = (count + perWorkgroup - 1) / perWorkgroup;
  if (n > c.t.histogramWorkgroups) n = c.t.histogramWorkgroups;
  const uint32_t least =
      uint32_t((uint64_t(count) + uint64_t(wg) * kHistogramMaxLoop - 1) / (uint64_t(wg) * kHistogramMaxLoop));
  return n < least ? least : n;
}

VksortResult checkRange(const char* name, const VksortBufferRange& r, VkDeviceSize needed, VkDeviceSize alignment) {
  if (r.buffer == VK_NULL_HANDLE) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.buffer is VK_NULL_HANDLE", name);
  if (r.size == VK_WHOLE_SIZE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.size is VK_WHOLE_SIZE; give the size of the range", name);
  if (r.size > ~VkDeviceSize(0) - r.offset)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s: offset %llu + size %llu overflows", name,
                (unsigned long long)r.offset, (unsigned long long)r.size);
  if (r.offset % alignment != 0)
    return fail(VKSORT_ERROR_MISALIGNED, "%s.offset %llu is not a multiple of %llu", name, (unsigned long long)r.offset,
                (unsigned long long)alignment);
  if (r.size < needed)
    return fail(VKSORT_ERROR_BUFFER_TOO_SMALL, "%s.size is %llu bytes; this sort needs %llu", name,
                (unsigned long long)r.size, (unsigned long long)needed);
  return VKSORT_SUCCESS;
}

// Ranges that passed checkRange: their ends do not overflow.
bool overlaps(const VksortBufferRange& a, const VksortBufferRange& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

// Which kernels each path runs, in order: `once` before the digit passes
// (for the one-dispatch paths, their only kernel, which runs every pass
// itself; for the bitonic paths, the first of the set), then `each` in every
// pass. A Onesweep sort with an indirect count records every route's
// kernels (VKSORT_FLAG_LIVE_ROUTE, planOnesweep), and the portable scan
// reduces and scans block sums only where its table has several blocks.
struct PathKernels {
  Kernel once;     // kKernelCount: none
  Kernel each[5];  // kKernelCount: none
};
constexpr Kernel kNone = kKernelCount;
constexpr PathKernels kPathKernels[] = {
    /* NONE */ {kNone, {kNone}},
    /* BITONIC_KEYS */ {kKernelBitonicKeys, {kNone}},
    /* BITONIC */ {kKernelBitonic, {kNone}},
    /* ONE_WORKGROUP */ {kKernelOneWorkgroup, {kNone}},
    /* WIDE_ONE_WORKGROUP */ {kKernelWideOneWorkgroup, {kNone}},
    /* MIDSIZE_ONESWEEP, ONESWEEP: the histogram, then the reorder kernel of
       the tile shape (tileShapes; with an indirect count, of each shape up
       to it) */
    /* MIDSIZE_ONESWEEP */ {kKernelHistogram, {kNone}},
    /* ONESWEEP */ {kKernelHistogram, {kNone}},
    /* PORTABLE */
    {kNone,
     {kKernelPortableCount, kKernelPortableReduce, kKernelPortableScanSums, kKernelPortableDownsweep,
      kKernelPortableScatter}},
    /* SEGMENTED: the bins kernel, then the large segments' passes (the tiny
       and small segments' kernels follow the bins: planSegmented) */
    {kKernelSegmentBins,
     {kKernelSegmentCount, kKernelPortableReduce, kKernelPortableScanSums, kKernelPortableDownsweep,
      kKernelSegmentScatter}},
};
static_assert(sizeof kPathKernels / sizeof kPathKernels[0] == VKSORT_PATH_SEGMENTED + 1, "one row per path");
// A segmented sort's large segments on a Onesweep sorter: the segment
// histogram kernel, then the segmented reorder kernel per pass (or its
// chained twin once).
constexpr PathKernels kSegmentedOnesweepKernels = {kKernelSegmentHistogram, {kKernelSegmentOnesweep, kNone}};

// Appends commands to a plan.
struct CommandList {
  Plan* plan;
  Command& add(CommandType type) {
    Command& c = plan->commands[plan->commandCount++];
    c = Command{};
    c.type = type;
    return c;
  }
  void barrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess, VkPipelineStageFlags dstStage,
               VkAccessFlags dstAccess) {
    Command& c = add(kCmdBarrier);
    c.barrier.srcStage = srcStage;
    c.barrier.srcAccess = srcAccess;
    c.barrier.dstStage = dstStage;
    c.barrier.dstAccess = dstAccess;
  }
  // Between dependent dispatches of one sort: the earlier one's writes, to
  // the later one's reads and writes.
  void computeBarrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess) {
    barrier(srcStage, srcAccess, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
  void dispatch(Kernel kernel, PushKind push, uint32_t pass, uint32_t x, uint32_t y = 1) {
    Command& c = add(kCmdDispatch);
    c.kernel = kernel;
    c.push = push;
    c.pass = uint8_t(pass);
    c.groups[0] = x;
    c.groups[1] = y;
  }
  void dispatchIndirect(Kernel kernel, PushKind push, uint32_t pass, VkDeviceSize offset) {
    Command& c = add(kCmdDispatchIndirect);
    c.kernel = kernel;
    c.push = push;
    c.pass = uint8_t(pass);
    c.indirectOffset = offset;
  }
  void beginLabel(Label label, uint32_t pass = 0) {
    Command& c = add(kCmdBeginLabel);
    c.label = label;
    c.pass = uint8_t(pass);
  }
  void endLabel() { add(kCmdEndLabel); }
  // Zeroes temp bytes [offset, offset + size) after every earlier write to
  // them: an earlier sort on the same temp range, perhaps in this command
  // buffer, wrote them with shaders. vksort orders that itself, so that the
  // caller's barrier need not know that temp is cleared by a transfer.
  // Up to three ranges [offset, offset + size) (size 0: none).
  // clearBarrier() then fill(): dispatches that do not touch temp may go
  // between them (planOnesweep).
  void clear(VkDeviceSize offset, VkDeviceSize size, VkDeviceSize offset2 = 0, VkDeviceSize size2 = 0,
             VkDeviceSize offset3 = 0, VkDeviceSize size3 = 0) {
    clearBarrier();
    fill(offset, size, offset2, size2, offset3, size3);
  }
  void clearBarrier() {
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
  }
  void fill(VkDeviceSize offset, VkDeviceSize size, VkDeviceSize offset2, VkDeviceSize size2, VkDeviceSize offset3,
            VkDeviceSize size3) {
    const VkDeviceSize ranges[3][2] = {{offset, size}, {offset2, size2}, {offset3, size3}};
    for (const auto& r : ranges) {
      if (r[1] == 0) continue;
      Command& c = add(kCmdFillHeader);
      c.fill.offset = r[0];
      c.fill.size = r[1];
    }
    computeBarrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  }
  // After a dispatch that writes indirect dispatch commands: to the
  // dispatches that read them, and their shaders.
  void indirectBarrier() {
    barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
};

// The one-dispatch paths: one workgroup sorts every key. The bitonic
// kernels write straight to the buffer that the pass count names; the
// one-workgroup kernel reads keys, writes alt, and so on from pass to pass
// (or keeps the tile in shared memory until its last pass).
void planOneDispatch(const Plan& plan, Kernel kernel, CommandList* list) {
  const VksortPath path = plan.summary.path;
  const bool bitonic = path == VKSORT_PATH_BITONIC || path == VKSORT_PATH_BITONIC_KEYS;
  list->beginLabel(kLabelSort);
  list->dispatch(kernel, kPushOneDispatch, bitonic ? plan.summary.passes % 2 : 1, 1);
  list->endLabel();
}

// A tile shape of Onesweep's reorder passes: its kernel (unchained), its
// tile, the most keys it sorts, and its route (live_route.glsl).
struct TileShape {
  Kernel kernel;
  uint32_t workgroupSize, keysPerThread;
  uint32_t maxCount;
  uint32_t route;
  uint32_t tileKeys() const { return workgroupSize * keysPerThread; }
};

// The sorter's tile shapes, smallest first: the mid-size tiles with half the
// keys per invocation and the mid-size tiles, each where on, then the tile
// shape. A sort of count keys takes the first that holds them: at the
// smaller counts a pass is bound by a tile's latency, which grows with its
// keys per invocation (docs/tuning.md).
uint32_t tileShapes(const Config& c, TileShape shapes[3]) {
  uint32_t n = 0;
  if (c.hasMidsizeHalf())
    shapes[n++] = {kKernelMidsizeOnesweepHalf, c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread / 2,
                   c.midsizeHalfMaxCount(), VKSORT_ROUTE_MIDSIZE_HALF};
  if (c.hasMidsize())
    shapes[n++] = {kKernelMidsizeOnesweep, c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread, c.t.midsizeMaxCount,
                   VKSORT_ROUTE_MIDSIZE};
  shapes[n++] = {kKernelOnesweep, c.t.workgroupSize, c.t.keysPerThread, VKSORT_MAX_COUNT, VKSORT_ROUTE_TILES};
  return n;
}

// One chain of reorder dispatches: its kernel (unchained), whether it runs
// every pass in one dispatch, and its grid: `groups` workgroups, or the
// dispatch command at `indirect` bytes into temp (for the passes after the
// first, at `laterIndirect` where that is not 0).
struct Reorder {
  Kernel kernel;
  bool chained;
  uint32_t groups;
  bool isIndirect;
  VkDeviceSize indirect;
  VkDeviceSize laterIndirect = 0;
  // Segmented sorts whose large segments may split on two digits: pass 1's
  // dispatch command, and that of the kernel that lists their buckets beside
  // pass 2 (segment_buckets.comp), whose commands pass 3's barrier orders.
  VkDeviceSize secondIndirect = 0;
  VkDeviceSize findIndirect = 0;
};

// The reorder passes of Onesweep: per chain, one dispatch per pass, or
// where chained one dispatch for every pass (the kernel's twin), its grid
// one pass's tiles. Several chains are alternatives (a sort with an
// indirect count, one chain per tile shape that its live count may take):
// only the live count's route runs workgroups.
//  - A chained dispatch counts its own digits (onesweep.comp) and reads
//    nothing that a dispatch since the last barrier wrote (the caller's
//    barrier orders the keys, the clear's barrier the header), so it
//    follows no barrier of its own. `alternatives`: the dispatches since the
//    last compute barrier are its alternatives (the other routes');
//    otherwise they run beside it.
//  - A chain with a dispatch per pass reads the histogram kernel's output,
//    then its own last pass's: each of its dispatches follows a barrier,
//    which the chains' dispatches of a pass share.
//  - `indirectFirst`: pass 0's barrier also orders dispatch commands that
//    the dispatches before it wrote, for the passes or dispatches after them.
//  - planChained records the chained dispatches alone (and returns whether
//    it recorded any), planPasses the dispatches per pass.
bool planChained(const Reorder* chains, uint32_t chainCount, bool alternatives, CommandList* list) {
  bool afterBarrier = !alternatives;  // no alternative in the group since the last barrier
  for (uint32_t i = 0; i < chainCount; ++i) {
    const Reorder& r = chains[i];
    if (!r.chained) continue;
    list->beginLabel(kLabelPasses, 0);
    if (r.isIndirect)
      list->dispatchIndirect(chainedKernel(r.kernel), kPushChained, 0, r.indirect);
    else
      list->dispatch(chainedKernel(r.kernel), kPushChained, 0, r.groups);
    list->plan->commands[list->plan->commandCount - 1].alternative = !afterBarrier;
    list->endLabel();
    afterBarrier = false;
  }
  return !afterBarrier;
}
void planPasses(const Plan& plan, const Reorder* chains, uint32_t chainCount, CommandList* list,
                bool indirectFirst = false) {
  for (uint32_t pass = 0; pass < plan.summary.passes; ++pass) {
    bool first = true;
    for (uint32_t i = 0; i < chainCount; ++i) {
      const Reorder& r = chains[i];
      if (r.chained) continue;
      list->beginLabel(kLabelPass, pass);
      if (first && ((indirectFirst && pass == 0) || (r.secondIndirect && pass == 3)))
        list->indirectBarrier();
      else if (first)
        list->computeBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
      const VkDeviceSize indirect = pass == 1 && r.secondIndirect ? r.secondIndirect
                                    : pass > 0 && r.laterIndirect ? r.laterIndirect
                                                                  : r.indirect;
      if (r.isIndirect)
        list->dispatchIndirect(r.kernel, kPushPass, pass, indirect);
      else
        list->dispatch(r.kernel, kPushPass, pass, r.groups);
      list->plan->commands[list->plan->commandCount - 1].alternative = !first;
      if (r.secondIndirect && pass == 2)
        list->dispatchIndirect(kKernelSegmentBuckets, kPushFindBuckets, 0, r.findIndirect);
      list->endLabel();
      first = false;
    }
  }
}
void planReorder(const Plan& plan, const Reorder* chains, uint32_t chainCount, bool alternatives, CommandList* list,
                 bool indirectFirst = false) {
  planChained(chains, chainCount, alternatives, list);
  planPasses(plan, chains, chainCount, list, indirectFirst);
}

// Onesweep: clear the temp header, the histogram kernel (where a chain has a
// dispatch per pass: chained dispatches count their own digits), then the
// reorder passes (`chains`).
//
// With an indirect count (`routes`: VKSORT_FLAG_LIVE_ROUTE) nothing sizes
// the dispatches first. Every kernel that some live count up to maxCount
// takes is recorded, and each reads the live count and runs only on its
// route (live_route.glsl), the path that a direct sort of it takes:
//  - the bitonic kernel `routeBitonic` (kNone: none; the largest of its
//    set) and the one-workgroup kernel. They do not touch temp, so they go
//    after the clear's first barrier and before its fill, whose barrier
//    (from the transfer stage) does not wait for them;
//  - a chain of each tile shape up to maxCount's, largest first, sized for
//    the most keys it may sort. A chained one returns at once in the
//    workgroups past the live count's tiles. So up to chainedMaxCount, a
//    live count costs the clear and one dispatch, whatever maxCount is;
//  - a chain with a dispatch per pass (where the most keys it may sort are
//    above chainedMaxCount) reads its dispatch command, which the histogram
//    kernel writes (no workgroups where the live count takes another
//    route). The histogram kernel follows the chained dispatches, whose
//    workgroups then return at once, and the passes' first barrier has the
//    indirect stage. For a live count of another route its passes are
//    empty steps.
void planOnesweep(const Config& c, const Plan& plan, bool routes, Kernel routeBitonic, uint32_t histogramGroups,
                  Kernel histogram, const Reorder* chains, uint32_t chainCount, CommandList* list) {
  bool allChained = true;
  for (uint32_t i = 0; i < chainCount; ++i) allChained = allChained && chains[i].chained;
  // The header (histograms and counters) starts at zero for every sort.
  bool beside = false;  // a dispatch since the clear's first barrier
  if (routes) {
    list->beginLabel(kLabelOneDispatch);
    list->clearBarrier();
    if (routeBitonic != kNone) {
      list->dispatch(routeBitonic, kPushOneDispatch, plan.summary.passes % 2, 1);
      beside = true;
    }
    if (c.hasOneWorkgroup()) {
      list->dispatch(c.hasWideOneWorkgroup() ? kKernelWideOneWorkgroup : kKernelOneWorkgroup, kPushOneDispatch, 1, 1);
      list->plan->commands[list->plan->commandCount - 1].alternative = beside;
      beside = true;
    }
    list->endLabel();
    list->beginLabel(kLabelClear);
    list->fill(0, VKSORT_TEMP_HEADER_BYTES, 0, 0, 0, 0);
    list->endLabel();
  } else {
    list->beginLabel(kLabelClear);
    list->clear(0, VKSORT_TEMP_HEADER_BYTES);
    list->endLabel();
  }
  // The chained dispatches first: where the histogram kernel runs beside
  // them, they are other routes', whose workgroups return at once.
  beside = planChained(chains, chainCount, beside, list);
  if (!allChained) {
    list->beginLabel(kLabelHistogram);
    list->dispatch(histogram, kPushPass, 0, histogramGroups);
    list->plan->commands[list->plan->commandCount - 1].alternative = beside;
    list->endLabel();
  }
  planPasses(plan, chains, chainCount, list, routes);
}

// The portable algorithm (shaders/portable_*.comp): per pass the count
// kernel, the table scan (reduce, scan of the block sums, downsweep; the
// downsweep alone when the table is one block) and the scatter kernel, with
// a barrier between every two dispatches, so no workgroup ever waits on
// another. (The caller's barrier orders the first.) A segmented sort's large
// segments run the same passes (plan.segmented.passes), over tiles and
// blocks that the bins kernel counted: `indirect` gives the offsets in temp
// of the tiles' and the blocks' dispatch commands.
void planPortable(const Config& c, const Plan& plan, uint32_t scanBlocks, const PathKernels& kernels, CommandList* list,
                  const VkDeviceSize* indirect = nullptr) {
  uint32_t tileGrid[2], blockGrid[2];
  grid2d(plan.summary.tiles, c.maxDispatchX, tileGrid);
  grid2d(scanBlocks, c.maxDispatchX, blockGrid);
  bool first = true;
  // grid: 0 the tiles, 1 the scan blocks, 2 one workgroup.
  const uint32_t one[2] = {1, 1};
  const uint32_t* grids[3] = {tileGrid, blockGrid, one};
  auto dispatch = [&](Kernel kernel, uint32_t pass, uint32_t grid) {
    if (!first) list->computeBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    first = false;
    if (indirect && grid < 2)
      list->dispatchIndirect(kernel, kPushPass, pass, indirect[grid]);
    else
      list->dispatch(kernel, kPushPass, pass, grids[grid][0], grids[grid][1]);
  };
  const Kernel count = kernels.each[0], reduce = kernels.each[1], scanSums = kernels.each[2],
               downsweep = kernels.each[3], scatter = kernels.each[4];
  for (uint32_t pass = 0; pass < plan.summary.passes; ++pass) {
    list->beginLabel(kLabelCount, pass);
    dispatch(count, pass, 0);
    list->endLabel();
    list->beginLabel(kLabelScan, pass);
    if (scanBlocks > 1) {
      dispatch(reduce, pass, 1);
      dispatch(scanSums, pass, 2);
    }
    dispatch(downsweep, pass, 1);
    list->endLabel();
    list->beginLabel(kLabelScatter, pass);
    dispatch(scatter, pass, 0);
    list->endLabel();
  }
}

}  // namespace

VkDeviceSize tempBytes(const Config& c, uint32_t count) {
  if (c.algorithm == VKSORT_ALGORITHM_PORTABLE) return portableSizes(c, count).tempBytes;
  return VKSORT_TEMP_RING_OFFSET + VkDeviceSize(c.t.ringSlots) * VKSORT_RADIX * sizeof(uint64_t);
}

VksortResult planSort(const Config& c, const VksortSortInfo& info, Plan* plan) {
  // Not *plan = Plan{}: a plan is large and its commands past commandCount
  // are never read.
  plan->summary = VksortSortPlan{};
  plan->push = VksortPush{};
  plan->commandCount = 0;
  if (info.count > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "count %u is larger than VKSORT_MAX_COUNT (%u)", info.count,
                VKSORT_MAX_COUNT);
  uint32_t beginBit = info.beginBit, endBit = info.endBit;
  if (beginBit == 0 && endBit == 0) endBit = c.keyBits();
  if (endBit > c.keyBits() || beginBit >= endBit)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "bit range [%u, %u) is empty or exceeds the %u-bit key", info.beginBit,
                info.endBit, c.keyBits());
  const uint32_t count = info.count;
  const uint32_t passes = (endBit - beginBit + c.radixBits - 1) / c.radixBits;
  VksortSortPlan& summary = plan->summary;
  summary.passes = passes;
  // Each pass moves the data keys -> alt -> keys ...: an odd number of passes
  // leaves it in alt. The one-dispatch paths write where the passes would.
  summary.resultBuffer = passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS;
  plan->tempBytes = tempBytes(c, count);

  VksortPush& push = plan->push;
  push.count = count;
  push.passes = passes;
  push.beginBit = beginBit;
  push.endBit = endBit;
  push.flags = info.descending ? VKSORT_FLAG_DESCENDING : 0u;
  keyMapMasks(c, info.descending != VK_FALSE, push.loadXor, plan->storeXor);
  CommandList list{plan};
  if (count == 0) {
    summary.path = VKSORT_PATH_NONE;  // nothing to sort, nothing to record
    return VKSORT_SUCCESS;
  }
  if (info.timestampQueryPool) list.add(kCmdTimestamp).query = 0;

  // The one-dispatch paths: a bitonic network, without the index where a
  // keys-only sort covers every key bit (then equal sort bits are equal
  // keys), else with it; then the one-workgroup radix sort.
  const bool wholeKey = beginBit == 0 && endBit == c.keyBits();
  uint32_t k = 0;
  if (wholeKey && pickBitonic(c.bitonicKeys, c.t.bitonicKeysMaxCount, count, &k)) {
    summary.path = VKSORT_PATH_BITONIC_KEYS;
    setShape(&summary, c.bitonicKeys.workgroupSize[k], c.bitonicKeys.keysPerThread[k], 1);
  } else if (pickBitonic(c.bitonic, c.t.bitonicMaxCount, count, &k)) {
    summary.path = VKSORT_PATH_BITONIC;
    setShape(&summary, c.bitonic.workgroupSize[k], c.bitonic.keysPerThread[k], 1);
  } else if (c.algorithm == VKSORT_ALGORITHM_ONESWEEP && c.hasOneWorkgroup() && count <= c.t.oneWorkgroupMaxCount) {
    const bool wide = count > c.oneWorkgroupKeys();
    summary.path = wide ? VKSORT_PATH_WIDE_ONE_WORKGROUP : VKSORT_PATH_ONE_WORKGROUP;
    setShape(&summary, (wide ? 2 : 1) * c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread, 1);
  }
  if (summary.path != VKSORT_PATH_NONE) {
    push.numTiles = 1;
    planOneDispatch(*plan, Kernel(kPathKernels[summary.path].once + k), &list);
  } else if (c.algorithm == VKSORT_ALGORITHM_PORTABLE) {
    const PortableSizes p = portableSizes(c, count);
    summary.path = VKSORT_PATH_PORTABLE;
    setShape(&summary, c.t.workgroupSize, c.t.keysPerThread, p.tiles);
    push.numTiles = p.tiles;
    planPortable(c, *plan, p.scanBlocks, kPathKernels[summary.path], &list);
  } else {
    // Onesweep, in the first tile shape that holds count keys.
    TileShape shapes[3];
    const uint32_t shapeCount = tileShapes(c, shapes);
    uint32_t chosen = 0;
    while (chosen + 1 < shapeCount && count > shapes[chosen].maxCount) ++chosen;
    const TileShape& shape = shapes[chosen];
    const uint32_t tiles = uint32_t((uint64_t(count) + shape.tileKeys() - 1) / shape.tileKeys());
    summary.path = shape.kernel == kKernelOnesweep ? VKSORT_PATH_ONESWEEP : VKSORT_PATH_MIDSIZE_ONESWEEP;
    setShape(&summary, shape.workgroupSize, shape.keysPerThread, tiles);
    // With an indirect count every route's kernels: the passes then have a
    // chain for each shape up to count's, each in its own number of tiles
    // for the most keys it may sort, count's shape first (planOnesweep). A
    // chain with a dispatch per pass reads its dispatch command from temp,
    // which the histogram kernel writes.
    Reorder chains[3];
    uint32_t chainCount = 0, mostTiles = tiles;
    const bool routes = info.countBuffer.buffer != VK_NULL_HANDLE;
    if (routes) push.flags |= VKSORT_FLAG_LIVE_ROUTE;
    for (uint32_t i = chosen + 1; i-- > (routes ? 0 : chosen);) {
      const uint32_t top = count < shapes[i].maxCount ? count : shapes[i].maxCount;
      const uint32_t shapeTiles = uint32_t((uint64_t(top) + shapes[i].tileKeys() - 1) / shapes[i].tileKeys());
      if (shapeTiles > mostTiles) mostTiles = shapeTiles;
      const bool chained = c.chains(top);
      // (An indirect grid is one row: where its most tiles pass that, the
      // tiles past the live count's return at once.)
      chains[chainCount++] = {shapes[i].kernel, chained, shapeTiles, routes && !chained && shapeTiles <= c.maxDispatchX,
                              VKSORT_TEMP_COUNTERS_OFFSET + 4 * VKSORT_CTR_PASSES_DISPATCH(shapes[i].route)};
    }
    // Status tags (status_ring.glsl) and the ring slots to clear hold the
    // tiles of every chain.
    push.numTiles = mostTiles;
    push.ringClear = push.numTiles < c.t.ringSlots ? push.numTiles : c.t.ringSlots;
    // The bitonic kernel of a live count's route: the largest of the set
    // that a direct sort of it would take.
    Kernel routeBitonic = kNone;
    if (routes && wholeKey && c.bitonicKeys.workgroupSize[0])
      routeBitonic = kKernelBitonicKeys;
    else if (routes && c.bitonic.workgroupSize[0])
      routeBitonic = kKernelBitonic;
    planOnesweep(c, *plan, routes, routeBitonic, histogramWorkgroups(c, count), kPathKernels[summary.path].once, chains,
                 chainCount, &list);
  }
  if (info.timestampQueryPool) list.add(kCmdTimestamp).query = 1;
  return VKSORT_SUCCESS;
}

uint32_t segmentMaxTiles(const Config& c, uint32_t count) {
  const uint64_t tiles = (uint64_t(count) + c.tileKeys() - 1) / c.tileKeys() + count / (c.segmentMediumMax() + 1);
  return tiles > 0xffffffffu ? 0xffffffffu : uint32_t(tiles);
}

VkDeviceSize segmentAreaOffset(const Config& c, uint32_t maxTiles) {
  if (c.algorithm == VKSORT_ALGORITHM_ONESWEEP)
    return VKSORT_TEMP_RING_OFFSET + VkDeviceSize(c.t.ringSlots) * VKSORT_RADIX * sizeof(uint64_t);
  const uint64_t entries = uint64_t(maxTiles) << c.radixBits;
  const uint64_t blocks = (entries + VKSORT_PORTABLE_SCAN_BLOCK - 1) / VKSORT_PORTABLE_SCAN_BLOCK;
  return (VKSORT_PORTABLE_SUMS_OFFSET(entries) + blocks * 4 + 15) / 16 * 16;
}

// Where the segments' area keeps the large segments' tiles, and their
// histograms (Onesweep) after them: bytes from the start of temp.
VkDeviceSize segmentTilesOffset(const Config& c, uint32_t maxTiles, uint32_t segments) {
  return segmentAreaOffset(c, maxTiles) + VKSORT_SEG_HEADER_BYTES + (uint64_t(segments) * 3 + 1) / 2 * 16;
}

// Onesweep: the bytes of the large segments' histograms (as many as there
// may be large segments: each has a tile).
VkDeviceSize segmentHistogramBytes(const Config& c, uint32_t maxTiles, uint32_t segments, uint32_t passes) {
  if (c.algorithm != VKSORT_ALGORITHM_ONESWEEP) return 0;
  const uint64_t large = segments < maxTiles ? segments : maxTiles;
  return large * VKSORT_SEG_HISTOGRAM_WORDS(uint64_t(passes)) * 4;
}

// Where large segments may be split: the buckets' capacity (segment_list.glsl,
// splitCapacity: 256 per large segment there may be).
uint32_t splitBuckets(const Config& c, uint32_t count, uint32_t passes) {
  return c.segmentSplits(count, passes) ? VKSORT_RADIX * (count / (c.segmentMediumMax() + 1)) : 0;
}

// Where the buckets' area starts (segment_list.glsl, splitArea), and its bytes:
// a header and the lists, 16 bytes per bucket.
VkDeviceSize splitAreaOffset(const Config& c, uint32_t maxTiles, uint32_t segments, uint32_t passes) {
  return segmentTilesOffset(c, maxTiles, segments) + uint64_t(maxTiles) * 16 +
         segmentHistogramBytes(c, maxTiles, segments, passes);
}
VkDeviceSize splitAreaBytes(const Config& c, uint32_t count, uint32_t passes) {
  const uint32_t buckets = splitBuckets(c, count, passes);
  return buckets ? VKSORT_SEG_HEADER_BYTES + uint64_t(buckets) * 16 : 0;
}

// Where large segments may split on two digits: the two-digit buckets'
// capacity (segment_list.glsl, splitTwoCapacity: 256^2 per segment of at
// least segmentSplitTwoMin() keys), and the area's bytes: a header, three
// lists, 24 bytes per bucket, and 8 bytes per such segment.
uint32_t splitTwoBuckets(const Config& c, uint32_t count, uint32_t passes) {
  return c.segmentSplitsTwo(count, passes) ? VKSORT_RADIX * VKSORT_RADIX * (count / c.segmentSplitTwoMin()) : 0;
}
VkDeviceSize splitTwoAreaBytes(const Config& c, uint32_t count, uint32_t passes) {
  const uint32_t buckets = splitTwoBuckets(c, count, passes);
  return buckets ? VKSORT_SEG_HEADER_BYTES + uint64_t(buckets) * 24 + uint64_t(count / c.segmentSplitTwoMin()) * 8 : 0;
}

VkDeviceSize segmentedTempBytes(const Config& c, uint32_t count, uint32_t segments, uint32_t passes) {
  return splitAreaOffset(c, segmentMaxTiles(c, count), segments, passes) + splitAreaBytes(c, count, passes) +
         splitTwoAreaBytes(c, count, passes);
}

VksortResult planSegmentedSort(const Config& c, const VksortSegmentedSortInfo& info, Plan* plan) {
  if (!c.segmented)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "the sorter was created without segmented sorts (VksortCreateInfo::segmented)");
  if (info.sort.countBuffer.buffer)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "sort.countBuffer is not used by segmented sorts; give a GPU-written segment count in "
                "segmentCountBuffer");
  if (info.segmentCount > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "segmentCount %u is larger than VKSORT_MAX_COUNT (%u)", info.segmentCount,
                VKSORT_MAX_COUNT);
  // The plain sort's checks of count and bit range, its passes, result
  // buffer and key mapping; then this plan's own commands.
  VksortSortInfo plain = info.sort;
  plain.timestampQueryPool = VK_NULL_HANDLE;
  VksortResult r = planSort(c, plain, plan);
  if (r != VKSORT_SUCCESS) return r;
  const uint32_t count = info.sort.count;
  const uint32_t maxTiles = segmentMaxTiles(c, count);
  if ((uint64_t(maxTiles) << c.radixBits) >= (uint64_t(1) << 31))
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE,
                "count %u is too large for segmented sorts with tiles of %u keys (the large segments' tile table "
                "would exceed 2^31 entries)",
                count, c.tileKeys());
  VksortSegmentedSortPlan& seg = plan->segmented;
  seg = VksortSegmentedSortPlan{};
  // Passes of R bits, R the sorter's digit width (the portable passes).
  const uint32_t bits = plan->push.endBit - plan->push.beginBit;
  seg.passes = (bits + c.radixBits - 1) / c.radixBits;
  seg.microMaxCount = c.segmentMicroMax();
  seg.tinyMaxCount = c.segmentTinyMax();
  seg.halfMaxCount = c.segmentHalfMax();
  seg.subgroupMaxCount = c.segmentSubgroupMax();
  seg.smallMaxCount = c.segmentSmallMax();
  seg.mediumMaxCount = c.segmentMediumMax();
  seg.tileKeys = c.tileKeys();
  seg.maxTiles = maxTiles;
  const uint32_t buckets = splitBuckets(c, count, seg.passes);
  seg.bucketMaxCount = buckets ? c.segmentBucketMax() : 0;
  plan->splitShift = 0;
  plan->splitBuckets = 0;
  plan->splitTwoShift = 0;
  plan->splitTwoBuckets = 0;
  const uint32_t twoBuckets = splitTwoBuckets(c, count, seg.passes);
  seg.resultBuffer = seg.passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS;
  plan->tempBytes = segmentedTempBytes(c, count, info.segmentCount, seg.passes);

  VksortSortPlan& summary = plan->summary;
  summary = VksortSortPlan{};
  summary.passes = seg.passes;
  summary.resultBuffer = seg.resultBuffer;
  plan->commandCount = 0;
  VksortPush& push = plan->push;
  push.passes = seg.passes;
  push.numTiles = maxTiles;
  push.tileKeys = c.tileKeys();
  push.segmentCount = info.segmentCount;
  push.ringClear = 0;
  if (twoBuckets) push.flags |= VKSORT_FLAG_SPLIT_TWO;
  if (count == 0 || info.segmentCount == 0) {
    summary.path = VKSORT_PATH_NONE;
    return VKSORT_SUCCESS;
  }
  summary.path = VKSORT_PATH_SEGMENTED;
  setShape(&summary, c.t.workgroupSize, c.t.keysPerThread, maxTiles);
  CommandList list{plan};
  if (info.sort.timestampQueryPool) list.add(kCmdTimestamp).query = 0;

  // Bin the segments: the counters and dispatch commands start at zero.
  // (With Onesweep also its header, the passes' counters, and the large
  // segments' histograms.)
  const VkDeviceSize areaOffset = segmentAreaOffset(c, maxTiles);
  const bool onesweep = c.algorithm == VKSORT_ALGORITHM_ONESWEEP;
  const PathKernels& kernels = onesweep ? kSegmentedOnesweepKernels : kPathKernels[VKSORT_PATH_SEGMENTED];
  const VkDeviceSize splitOffset = splitAreaOffset(c, maxTiles, info.segmentCount, seg.passes);
  const VkDeviceSize splitTwoOffset = splitOffset + splitAreaBytes(c, count, seg.passes);
  list.beginLabel(kLabelBins);
  if (onesweep)  // the histograms, and the buckets' header after them
    list.clear(
        areaOffset, VKSORT_SEG_HEADER_BYTES, 0, VKSORT_TEMP_HEADER_BYTES,
        segmentTilesOffset(c, maxTiles, info.segmentCount) + uint64_t(maxTiles) * 16,
        segmentHistogramBytes(c, maxTiles, info.segmentCount, seg.passes) + (buckets ? VKSORT_SEG_HEADER_BYTES : 0));
  else
    list.clear(areaOffset, VKSORT_SEG_HEADER_BYTES);
  uint32_t binsGrid[2];
  grid2d((info.segmentCount + c.segmentBinsWorkgroup - 1) / c.segmentBinsWorkgroup, c.maxDispatchX, binsGrid);
  list.dispatch(kKernelSegmentBins, kPushSegmentBins, 0, binsGrid[0], binsGrid[1]);
  list.indirectBarrier();
  list.endLabel();
  // Tiny and small segments: one dispatch each, straight to the result
  // buffer. They touch only their own segments, so the large segments'
  // passes need no barrier after them.
  const uint32_t result = seg.resultBuffer == VKSORT_RESULT_IN_ALT ? 1 : 0;
  list.beginLabel(kLabelMicro);
  list.dispatchIndirect(kKernelSegmentMicro, kPushOneDispatch, result, areaOffset + 4 * VKSORT_SEG_MICRO_DISPATCH);
  list.endLabel();
  list.beginLabel(kLabelTiny);
  list.dispatchIndirect(kKernelSegmentTiny, kPushOneDispatch, result, areaOffset + 4 * VKSORT_SEG_TINY_DISPATCH);
  list.endLabel();
  if (hasKernel(c, kKernelSegmentHalf)) {
    list.beginLabel(kLabelHalf);
    list.dispatchIndirect(kKernelSegmentHalf, kPushOneDispatch, result, areaOffset + 4 * VKSORT_SEG_HALF_DISPATCH);
    list.endLabel();
  }
  list.beginLabel(kLabelSubgroup);
  list.dispatchIndirect(kKernelSegmentSubgroup, kPushOneDispatch, result,
                        areaOffset + 4 * VKSORT_SEG_SUBGROUP_DISPATCH);
  list.endLabel();
  if (hasKernel(c, kKernelSegmentSmall)) {
    list.beginLabel(kLabelSmall);
    list.dispatchIndirect(kKernelSegmentSmall, kPushOneDispatch, result, areaOffset + 4 * VKSORT_SEG_SMALL_DISPATCH);
    list.endLabel();
  }
  const VkDeviceSize tilesCommand = areaOffset + 4 * VKSORT_SEG_TILES_DISPATCH;
  if (onesweep) {
    // The large segments' histograms, then the reorder passes, over the
    // tiles the bins kernel counted; chained passes count the histograms
    // themselves (the bins' barrier orders what they read). Where segments
    // may be split, the passes after the first have the command that the
    // histogram kernel writes: none of them has work where every large
    // segment is split (histogram.comp).
    const Reorder chain = {kernels.each[0],
                           c.chains(count),
                           0,
                           true,
                           tilesCommand,
                           buckets ? splitOffset + 4 * VKSORT_SEG_LATER_DISPATCH : 0,
                           twoBuckets ? splitTwoOffset + 4 * VKSORT_SEG_SECOND_DISPATCH : 0,
                           twoBuckets ? splitTwoOffset + 4 * VKSORT_SEG_FIND_DISPATCH : 0};
    if (!chain.chained) {
      list.beginLabel(kLabelHistogram);
      list.dispatchIndirect(kernels.once, kPushPass, 0, tilesCommand);
      list.endLabel();
    }
    // Pass 0's barrier also orders the dispatch commands that the histogram
    // kernel writes, before the later passes' and the buckets' dispatches.
    planReorder(*plan, &chain, 1, false, &list, buckets != 0);
    // Medium segments: a workgroup's passes over each, in the small class's
    // list. Recorded last, so that the large segments' barriers do not wait
    // for them: they run beside the last pass.
    if (hasKernel(c, kKernelSegmentMedium)) {
      list.beginLabel(kLabelMedium);
      list.dispatchIndirect(kKernelSegmentMedium, kPushOneDispatch, 1, areaOffset + 4 * VKSORT_SEG_SMALL_DISPATCH);
      list.endLabel();
    }
    // The buckets of split segments: the class kernels over the buckets'
    // lists, from the split pass's output (alt) to the result buffer. They
    // too run beside the last pass: the split segments' tiles do nothing
    // after pass 0.
    if (buckets) {
      plan->splitShift = splitOffset - areaOffset;
      plan->splitBuckets = buckets;
      list.beginLabel(kLabelBuckets);
      const uint32_t commands[4] = {VKSORT_SEG_MICRO_DISPATCH, VKSORT_SEG_TINY_DISPATCH, VKSORT_SEG_HALF_DISPATCH,
                                    VKSORT_SEG_SUBGROUP_DISPATCH};
      for (uint32_t k = 0; k < 4; ++k)  // VKSORT_SEGMENT_CLASS_* order
        if (hasKernel(c, Kernel(kKernelSegmentMicro + k)))
          list.dispatchIndirect(Kernel(kKernelSegmentMicro + k), kPushBuckets, result, splitOffset + 4 * commands[k]);
      list.endLabel();
    }
    // The buckets of segments split on two digits, listed beside pass 2:
    // the class kernels, small and medium ones included, from pass 1's
    // output (keys) to the result buffer.
    if (twoBuckets) {
      plan->splitTwoShift = splitTwoOffset - areaOffset;
      plan->splitTwoBuckets = twoBuckets;
      list.beginLabel(kLabelTwoDigitBuckets);
      const uint32_t commands[5] = {VKSORT_SEG_MICRO_DISPATCH, VKSORT_SEG_TINY_DISPATCH, VKSORT_SEG_HALF_DISPATCH,
                                    VKSORT_SEG_SUBGROUP_DISPATCH, VKSORT_SEG_SMALL_DISPATCH};
      for (uint32_t k = 0; k < 5; ++k)  // VKSORT_SEGMENT_CLASS_* order
        if (hasKernel(c, Kernel(kKernelSegmentMicro + k)))
          list.dispatchIndirect(Kernel(kKernelSegmentMicro + k), kPushSplitTwo, result,
                                splitTwoOffset + 4 * commands[k]);
      if (hasKernel(c, kKernelSegmentMedium))
        list.dispatchIndirect(kKernelSegmentMedium, kPushSplitTwo, 1, splitTwoOffset + 4 * VKSORT_SEG_SMALL_DISPATCH);
      list.endLabel();
    }
  } else {
    const uint32_t scanBlocks =
        uint32_t(((uint64_t(maxTiles) << c.radixBits) + VKSORT_PORTABLE_SCAN_BLOCK - 1) / VKSORT_PORTABLE_SCAN_BLOCK);
    const VkDeviceSize indirect[2] = {tilesCommand, areaOffset + 4 * VKSORT_SEG_BLOCKS_DISPATCH};
    planPortable(c, *plan, scanBlocks, kernels, &list, indirect);
  }
  if (info.sort.timestampQueryPool) list.add(kCmdTimestamp).query = 1;
  return VKSORT_SUCCESS;
}

VksortResult checkSegmentedRanges(const Config& c, const VksortSegmentedSortInfo& info, const Plan& plan) {
  VksortResult r = checkRanges(c, info.sort, plan);
  if (r != VKSORT_SUCCESS) return r;
  const VkDeviceSize offsetsSize = (VkDeviceSize(info.segmentCount) + 1) * 4;
  if ((r = checkRange("segmentOffsets", info.segmentOffsets, offsetsSize, 4)) != VKSORT_SUCCESS) return r;
  const VksortBufferRange* ranges[5] = {&info.sort.keys, &info.sort.alt, &info.sort.temp, &info.sort.values,
                                        &info.sort.altValues};
  const uint32_t rangeCount = c.valueWords ? 5 : 3;
  for (uint32_t a = 0; a < rangeCount; ++a)
    if (overlaps(info.segmentOffsets, *ranges[a]))
      return fail(VKSORT_ERROR_INVALID_ARGUMENT, "segmentOffsets must not overlap the sort's other ranges");
  if (info.segmentCountBuffer.buffer) {
    if ((r = checkRange("segmentCountBuffer", info.segmentCountBuffer, 4, 4)) != VKSORT_SUCCESS) return r;
    for (uint32_t a = 0; a < rangeCount; ++a)
      if (overlaps(info.segmentCountBuffer, *ranges[a]))
        return fail(VKSORT_ERROR_INVALID_ARGUMENT, "segmentCountBuffer must not overlap the sort's other ranges");
  }
  return VKSORT_SUCCESS;
}

VksortResult checkRanges(const Config& c, const VksortSortInfo& info, const Plan& plan) {
  const VkDeviceSize keysSize = VkDeviceSize(info.count) * c.keyBytes();
  VksortResult r;
  if ((r = checkRange("keys", info.keys, keysSize, c.keyBytes())) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("alt", info.alt, keysSize, c.keyBytes())) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("temp", info.temp, plan.tempBytes, kTempAlignment)) != VKSORT_SUCCESS) return r;
  const VksortBufferRange* ranges[5] = {&info.keys, &info.alt, &info.temp, nullptr, nullptr};
  uint32_t rangeCount = 3;
  if (c.valueWords) {
    const VkDeviceSize valuesSize = VkDeviceSize(info.count) * c.valueBytes();
    if ((r = checkRange("values", info.values, valuesSize, c.valueBytes())) != VKSORT_SUCCESS) return r;
    if ((r = checkRange("altValues", info.altValues, valuesSize, c.valueBytes())) != VKSORT_SUCCESS) return r;
    ranges[rangeCount++] = &info.values;
    ranges[rangeCount++] = &info.altValues;
  } else if (info.values.buffer || info.altValues.buffer) {
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "values were given but the sorter was created for keys only (VksortCreateInfo::valueType)");
  }
  for (uint32_t a = 0; a < rangeCount; ++a)
    for (uint32_t b = a + 1; b < rangeCount; ++b)
      if (overlaps(*ranges[a], *ranges[b]))
        return fail(VKSORT_ERROR_INVALID_ARGUMENT, "the keys, alt, temp, values and altValues ranges must not overlap");
  if (info.countBuffer.buffer) {
    if ((r = checkRange("countBuffer", info.countBuffer, 4, 4)) != VKSORT_SUCCESS) return r;
    for (uint32_t a = 0; a < rangeCount; ++a)
      if (overlaps(info.countBuffer, *ranges[a]))
        return fail(VKSORT_ERROR_INVALID_ARGUMENT, "countBuffer must not overlap the sort's other ranges");
  }
  return VKSORT_SUCCESS;
}

}  // namespace vksort

// planSort: one sort as a value. From the sorter's Config and the sort's
// count and bit range it picks the path (vksort_advanced.h, VksortPath), the
// passes, the tile shape and grid, and the push constants. No Vulkan calls:
// record.cpp turns a Plan into commands, and tests check plans without a GPU.
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
  p.scanBlocks = (tableEntries + kScanBlock - 1) / kScanBlock;
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
  if (c.keyKind == 2) {  // float: negative -> flip all, positive -> flip the sign
    loadTop = all ^ desc;
    loadClear = sign ^ desc;
    // Undo desc first; then a set top bit means the key was positive.
    storeTop = descending ? 0 : sign;
    storeClear = descending ? (all ^ sign) : all;
  } else {
    loadTop = loadClear = storeTop = storeClear = (c.keyKind == 1 ? sign : 0) ^ desc;
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

}  // namespace

VkDeviceSize tempBytes(const Config& c, uint32_t count) {
  if (c.algorithm == VKSORT_ALGORITHM_PORTABLE) return portableSizes(c, count).tempBytes;
  return VKSORT_TEMP_RING_OFFSET + VkDeviceSize(c.t.ringSlots) * VKSORT_RADIX * sizeof(uint64_t);
}

VksortResult planSort(const Config& c, const VksortSortInfo& info, Plan* plan) {
  *plan = Plan{};
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
  if (count == 0) {
    summary.path = VKSORT_PATH_NONE;
    return VKSORT_SUCCESS;
  }

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
  } else if (c.algorithm == VKSORT_ALGORITHM_ONESWEEP && count <= c.t.oneWorkgroupMaxCount) {
    const bool wide = count > c.oneWorkgroupKeys();
    summary.path = wide ? VKSORT_PATH_WIDE_ONE_WORKGROUP : VKSORT_PATH_ONE_WORKGROUP;
    setShape(&summary, (wide ? 2 : 1) * c.t.oneWorkgroupSize, c.t.oneWorkgroupKeysPerThread, 1);
  }
  if (summary.path != VKSORT_PATH_NONE) {
    plan->kernel = k;
    push.numTiles = 1;
    return VKSORT_SUCCESS;
  }

  if (c.algorithm == VKSORT_ALGORITHM_PORTABLE) {
    const PortableSizes p = portableSizes(c, count);
    summary.path = VKSORT_PATH_PORTABLE;
    setShape(&summary, c.t.workgroupSize, c.t.keysPerThread, p.tiles);
    plan->scanBlocks = p.scanBlocks;
    grid2d(p.tiles, c.maxDispatchX, plan->tileGrid);
    grid2d(p.scanBlocks, c.maxDispatchX, plan->blockGrid);
    push.numTiles = p.tiles;
    return VKSORT_SUCCESS;
  }

  // Onesweep: in the one-workgroup shape's tiles up to midsizeMaxCount.
  const bool midsize = c.hasMidsize() && count <= c.t.midsizeMaxCount;
  summary.path = midsize ? VKSORT_PATH_MIDSIZE_ONESWEEP : VKSORT_PATH_ONESWEEP;
  const uint32_t wg = midsize ? c.t.oneWorkgroupSize : c.t.workgroupSize;
  const uint32_t kpt = midsize ? c.t.oneWorkgroupKeysPerThread : c.t.keysPerThread;
  const uint32_t tiles = uint32_t((uint64_t(count) + wg * kpt - 1) / (wg * kpt));
  setShape(&summary, wg, kpt, tiles);
  plan->histogramWorkgroups = histogramWorkgroups(c, count);
  push.numTiles = tiles;
  push.ringClear = tiles < c.t.ringSlots ? tiles : c.t.ringSlots;
  // With an indirect count the one-workgroup kernel goes first: it sorts a
  // live count that fits in its tile and sizes the other dispatches to the
  // live count (one vkCmdDispatchIndirect each, so up to maxDispatchX tiles).
  plan->headIndirect = info.countBuffer.buffer != VK_NULL_HANDLE && tiles <= c.maxDispatchX;
  push.tileKeys = wg * kpt;
  push.histogramKeys = c.histogramWorkgroupSize * kHistogramKeysPerInvocation;
  push.histogramWorkgroups = plan->histogramWorkgroups;
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

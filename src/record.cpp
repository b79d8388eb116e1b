// recordPlan: a Plan (plan.cpp) as commands in the caller's command buffer:
// device addresses into the push constants, the dispatches of the plan's
// path, and a barrier between dependent dispatches. Nothing is allocated,
// submitted or waited on.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace vksort {

namespace {

// A VK_EXT_debug_utils label around a group of commands, when enabled:
// "vksort " and the path's name (vksortPathName), then what the group does.
struct Label {
  const VksortSorter s;
  VkCommandBuffer cmd;
  Label(const VksortSorter sorter, VkCommandBuffer c, const char* fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 4, 5)))
#endif
      : s(sorter), cmd(c) {
    if (!s->fn.cmdBeginDebugUtilsLabel) return;
    char name[64];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(name, sizeof name, fmt, args);
    va_end(args);
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = name;
    s->fn.cmdBeginDebugUtilsLabel(cmd, &label);
  }
  ~Label() {
    if (s->fn.cmdEndDebugUtilsLabel) s->fn.cmdEndDebugUtilsLabel(cmd);
  }
};

void barrier(const VksortSorter s, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
             VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = srcAccess;
  mb.dstAccessMask = dstAccess;
  s->fn.cmdPipelineBarrier(cmd, srcStage, dstStage, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

// Between dependent dispatches of one sort.
void computeBarrier(const VksortSorter s, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess) {
  barrier(s, cmd, srcStage, srcAccess, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void push(const VksortSorter s, VkCommandBuffer cmd, const VksortPush& p) {
  s->fn.cmdPushConstants(cmd, s->pipelines.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
}

void bind(const VksortSorter s, VkCommandBuffer cmd, VkPipeline pipeline) {
  s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
}

// Workgroups in one Onesweep dispatch take their tile from an atomic
// counter, so a grid larger than maxComputeWorkGroupCount[0] can be split
// into several dispatches with no barrier between them.
void dispatchTiles(const VksortSorter s, VkCommandBuffer cmd, uint32_t workgroups) {
  while (workgroups > 0) {
    const uint32_t n = workgroups < s->config.maxDispatchX ? workgroups : s->config.maxDispatchX;
    s->fn.cmdDispatch(cmd, n, 1, 1);
    workgroups -= n;
  }
}

VkDeviceAddress addressOf(const VksortSorter s, const VksortBufferRange& r) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = r.buffer;
  return s->fn.getBufferDeviceAddress(s->device, &info) + r.offset;
}

// The caller's buffers as device addresses: [0] keys or values, [1] alt or
// altValues.
struct Addresses {
  VkDeviceAddress keys[2];
  VkDeviceAddress values[2];
};

// The push constants of one digit pass: pass p reads keys[p % 2] (and
// values) and writes the other buffer; keys become sort bits as pass 0 loads
// them and keys again as the last pass stores them.
VksortPush passPush(const Plan& plan, const Addresses& a, uint32_t pass) {
  VksortPush p = plan.push;
  p.pass = pass;
  p.keysIn = a.keys[pass % 2];
  p.keysOut = a.keys[(pass + 1) % 2];
  p.valuesIn = a.values[pass % 2];
  p.valuesOut = a.values[(pass + 1) % 2];
  for (int i = 0; i < 4; ++i) {
    p.loadXor[i] = pass == 0 ? plan.push.loadXor[i] : 0;
    p.storeXor[i] = pass + 1 == p.passes ? plan.storeXor[i] : 0;
  }
  return p;
}

// The push constants of a one-dispatch kernel: it reads keys (and values)
// and writes buffer `out` (the one-workgroup kernel: writes buffer 1 first
// and ping-pongs from pass to pass), mapping keys as it loads and as it
// stores them.
VksortPush oneDispatchPush(const Plan& plan, const Addresses& a, uint32_t out) {
  VksortPush pc = plan.push;
  pc.keysIn = a.keys[0];
  pc.keysOut = a.keys[out];
  pc.valuesIn = a.values[0];
  pc.valuesOut = a.values[out];
  std::memcpy(pc.storeXor, plan.storeXor, sizeof pc.storeXor);
  return pc;
}

// The one-dispatch paths: one workgroup sorts every key. The bitonic
// kernels write straight to the buffer that the pass count names; the
// one-workgroup kernel reads keys, writes alt, and so on from pass to pass
// (or keeps the tile in shared memory until its last pass).
void recordOneDispatch(const VksortSorter s, VkCommandBuffer cmd, const Plan& plan, const Addresses& a) {
  const Pipelines& p = s->pipelines;
  const VksortPath path = plan.summary.path;
  Label label(s, cmd, "vksort %s", vksortPathName(path));
  const uint32_t out = path == VKSORT_PATH_BITONIC || path == VKSORT_PATH_BITONIC_KEYS ? plan.summary.passes % 2 : 1;
  const VksortPush pc = oneDispatchPush(plan, a, out);
  VkPipeline pipeline = path == VKSORT_PATH_BITONIC_KEYS    ? p.bitonicKeys[plan.kernel]
                        : path == VKSORT_PATH_BITONIC       ? p.bitonic[plan.kernel]
                        : path == VKSORT_PATH_ONE_WORKGROUP ? p.oneWorkgroup
                                                            : p.wideOneWorkgroup;
  bind(s, cmd, pipeline);
  push(s, cmd, pc);
  s->fn.cmdDispatch(cmd, 1, 1, 1);
}

// Onesweep: clear the temp header, the histogram kernel, then one reorder
// dispatch per pass. With plan.headIndirect the one-workgroup kernel clears
// the header instead, sorts the live count itself where it fits, and sizes
// the dispatches that follow to it (VKSORT_FLAG_HEAD_INDIRECT).
void recordOnesweep(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, const Plan& plan,
                    const Addresses& a) {
  const bool midsize = plan.summary.path == VKSORT_PATH_MIDSIZE_ONESWEEP;
  const char* name = vksortPathName(plan.summary.path);
  // The dispatch commands the head writes, in temp.
  const VkDeviceSize counters = info.temp.offset + VKSORT_TEMP_COUNTERS_OFFSET;
  if (plan.headIndirect) {
    Label label(s, cmd, "vksort %s head", name);
    const bool wide = s->config.hasWideOneWorkgroup();
    VksortPush pc = oneDispatchPush(plan, a, 1);
    pc.flags |= VKSORT_FLAG_HEAD_INDIRECT;
    bind(s, cmd, wide ? s->pipelines.wideOneWorkgroup : s->pipelines.oneWorkgroup);
    push(s, cmd, pc);
    s->fn.cmdDispatch(cmd, 1, 1, 1);
    barrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  } else {
    Label label(s, cmd, "vksort %s clear", name);
    // The header (histograms and counters) starts at zero for every sort.
    // The fill is a write after the writes of an earlier sort on the same
    // temp range, perhaps in this command buffer: vksort orders them itself,
    // so that the caller's barrier need not know that temp is cleared by a
    // transfer.
    barrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    s->fn.cmdFillBuffer(cmd, info.temp.buffer, info.temp.offset, VKSORT_TEMP_HEADER_BYTES, 0);
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  }
  {
    Label label(s, cmd, "vksort %s histogram", name);
    VksortPush pc = plan.push;
    pc.keysIn = a.keys[0];
    bind(s, cmd, s->pipelines.histogram);
    push(s, cmd, pc);
    if (plan.headIndirect)
      s->fn.cmdDispatchIndirect(cmd, info.temp.buffer, counters + 4 * VKSORT_CTR_HISTOGRAM_DISPATCH);
    else
      s->fn.cmdDispatch(cmd, plan.histogramWorkgroups, 1, 1);
  }
  bind(s, cmd, midsize ? s->pipelines.midsizeOnesweep : s->pipelines.onesweep);
  const uint32_t passes = plan.summary.passes;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    Label label(s, cmd, "vksort %s pass %u/%u", name, pass + 1, passes);
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    push(s, cmd, passPush(plan, a, pass));
    if (plan.headIndirect)
      s->fn.cmdDispatchIndirect(cmd, info.temp.buffer, counters + 4 * VKSORT_CTR_TILES_DISPATCH);
    else
      dispatchTiles(s, cmd, plan.summary.tiles);
  }
}

// The portable algorithm (shaders/portable_*.comp): per pass the count
// kernel, the table scan (reduce, scan of the block sums, downsweep; the
// downsweep alone when the table is one block) and the scatter kernel, with
// a barrier between dispatches, so no workgroup ever waits on another.
void recordPortable(const VksortSorter s, VkCommandBuffer cmd, const Plan& plan, const Addresses& a) {
  const Pipelines& p = s->pipelines;
  auto dispatch = [&](VkPipeline pipeline, const uint32_t xy[2]) {
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    bind(s, cmd, pipeline);
    s->fn.cmdDispatch(cmd, xy[0], xy[1], 1);
  };
  const uint32_t one[2] = {1, 1};
  const uint32_t passes = plan.summary.passes;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    push(s, cmd, passPush(plan, a, pass));  // count and scatter read the same sort bits
    {
      Label label(s, cmd, "vksort portable count pass %u/%u", pass + 1, passes);
      dispatch(p.portableCount, plan.tileGrid);
    }
    {
      Label label(s, cmd, "vksort portable scan pass %u/%u", pass + 1, passes);
      if (plan.scanBlocks > 1) {
        dispatch(p.portableScan[0], plan.blockGrid);
        dispatch(p.portableScan[1], one);
      }
      dispatch(p.portableScan[2], plan.blockGrid);
    }
    {
      Label label(s, cmd, "vksort portable scatter pass %u/%u", pass + 1, passes);
      dispatch(p.portableScatter, plan.tileGrid);
    }
  }
}

}  // namespace

void recordPlan(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, const Plan& plan) {
  if (plan.summary.path == VKSORT_PATH_NONE) return;  // nothing to sort, nothing to record
  Addresses a{};
  a.keys[0] = addressOf(s, info.keys);
  a.keys[1] = addressOf(s, info.alt);
  if (s->config.valueWords) {
    a.values[0] = addressOf(s, info.values);
    a.values[1] = addressOf(s, info.altValues);
  }
  Plan resolved = plan;
  resolved.push.temp = addressOf(s, info.temp);
  resolved.push.countAddress = info.countBuffer.buffer ? addressOf(s, info.countBuffer) : 0;

  if (info.timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info.timestampQueryPool, info.firstTimestampQuery);
  switch (plan.summary.path) {
    case VKSORT_PATH_PORTABLE: recordPortable(s, cmd, resolved, a); break;
    case VKSORT_PATH_MIDSIZE_ONESWEEP:
    case VKSORT_PATH_ONESWEEP: recordOnesweep(s, cmd, info, resolved, a); break;
    default: recordOneDispatch(s, cmd, resolved, a); break;
  }
  if (info.timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info.timestampQueryPool,
                            info.firstTimestampQuery + 1);
}

}  // namespace vksort

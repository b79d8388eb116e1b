// recordPlan: a Plan (plan.cpp) as commands in the caller's command buffer.
// The plan lists every command; this file turns each into its Vulkan call,
// with the device addresses in the push constants and the pipeline of each
// dispatch's kernel, bound and pushed only when they change. Nothing is
// allocated, submitted or waited on.
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace vksort {

namespace {

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

// The push constants of a dispatch (PushKind).
// base: Plan::push with the temp and count addresses.
VksortPush pushConstants(const VksortPush& base, const Plan& plan, const Addresses& a, PushKind kind, uint32_t pass) {
  const uint32_t* storeXor = plan.storeXor;
  VksortPush p = base;
  if (kind == kPushPass) {
    // Pass p reads keys[p % 2] (and values) and writes the other buffer;
    // keys become sort bits as pass 0 loads them and keys again as the last
    // pass stores them. The segmented kernels check the pass (a split
    // segment's pass 0 stores keys too), so they have storeXor in every pass.
    p.pass = pass;
    p.keysIn = a.keys[pass % 2];
    p.keysOut = a.keys[(pass + 1) % 2];
    p.valuesIn = a.values[pass % 2];
    p.valuesOut = a.values[(pass + 1) % 2];
    const bool store = pass + 1 == p.passes || plan.summary.path == VKSORT_PATH_SEGMENTED;
    for (int i = 0; i < 4; ++i) {
      p.loadXor[i] = pass == 0 ? base.loadXor[i] : 0;
      p.storeXor[i] = store ? storeXor[i] : 0;
    }
  } else if (kind == kPushChained) {
    // The kernel picks each pass's buffers and maps keys in pass 0 and the
    // last pass (onesweep.comp, CHAINED).
    p.keysIn = a.keys[0];
    p.keysOut = a.keys[1];
    p.valuesIn = a.values[0];
    p.valuesOut = a.values[1];
    std::memcpy(p.storeXor, storeXor, sizeof p.storeXor);
  } else if (kind == kPushBuckets) {
    // The class kernels over the buckets of split segments: they read the
    // split pass's output (alt), write buffer `pass`, and find the buckets'
    // lists where they would find the segments' (segments.glsl).
    p.keysIn = a.keys[1];
    p.keysOut = a.keys[pass];
    p.valuesIn = a.values[1];
    p.valuesOut = a.values[pass];
    std::memcpy(p.storeXor, storeXor, sizeof p.storeXor);
    p.flags |= VKSORT_FLAG_BUCKETS;
    p.temp += plan.splitShift;
    p.segmentCount = plan.splitBuckets;
  } else if (kind == kPushSplitTwo) {
    // The class kernels over the buckets of segments split on two digits:
    // they read pass 1's output (keys) and write buffer `pass` (the medium
    // kernel's passes: alt, then back and forth).
    p.keysIn = a.keys[0];
    p.keysOut = a.keys[pass];
    p.valuesIn = a.values[0];
    p.valuesOut = a.values[pass];
    std::memcpy(p.storeXor, storeXor, sizeof p.storeXor);
    p.flags |= VKSORT_FLAG_BUCKETS;
    p.temp += plan.splitTwoShift;
    p.segmentCount = plan.splitTwoBuckets;
  } else if (kind == kPushFindBuckets) {
    // segment_buckets.comp reads pass 1's output (keys) and lists the
    // two-digit buckets.
    p.keysIn = a.keys[0];
    p.keysOut = p.valuesIn = p.valuesOut = 0;
  } else if (kind == kPushSegmentBins) {
    // The bins kernel reads the segment offsets (keysIn) and count
    // (countAddress) and writes temp only; the caller sets both.
    p.keysOut = p.valuesIn = p.valuesOut = 0;
  } else {
    // A one-dispatch kernel reads keys (and values) and writes buffer
    // `pass`, mapping keys as it loads and as it stores them.
    p.keysIn = a.keys[0];
    p.keysOut = a.keys[pass];
    p.valuesIn = a.values[0];
    p.valuesOut = a.values[pass];
    std::memcpy(p.storeXor, storeXor, sizeof p.storeXor);
  }
  return p;
}

}  // namespace

const char* labelName(Label l) {
  switch (l) {
    case kLabelSort: return "";
    case kLabelOneDispatch: return "one-dispatch routes";
    case kLabelClear: return "clear";
    case kLabelHistogram: return "histogram";
    case kLabelBins: return "bins";
    case kLabelMicro: return "micro segments";
    case kLabelTiny: return "tiny segments";
    case kLabelHalf: return "half-subgroup segments";
    case kLabelSubgroup: return "subgroup segments";
    case kLabelSmall: return "small segments";
    case kLabelMedium: return "medium segments";
    case kLabelBuckets: return "split buckets";
    case kLabelTwoDigitBuckets: return "two-digit buckets";
    case kLabelPasses: return "passes";
    case kLabelPass: return "pass";
    case kLabelCount: return "count pass";
    case kLabelScan: return "scan pass";
    case kLabelScatter: return "scatter pass";
  }
  return "";
}

void recordPlan(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, const Plan& plan,
                const VksortBufferRange* segmentOffsets) {
  if (plan.commandCount == 0) return;  // nothing to sort, nothing to record
  const DeviceFunctions& fn = s->fn;
  Addresses a{};
  a.keys[0] = addressOf(s, info.keys);
  a.keys[1] = addressOf(s, info.alt);
  if (s->config.valueWords) {
    a.values[0] = addressOf(s, info.values);
    a.values[1] = addressOf(s, info.altValues);
  }
  VksortPush base = plan.push;
  base.temp = addressOf(s, info.temp);
  base.countAddress = info.countBuffer.buffer ? addressOf(s, info.countBuffer) : 0;
  const VkDeviceAddress offsets = segmentOffsets ? addressOf(s, *segmentOffsets) : 0;

  Kernel bound = kKernelCount;
  bool pushed = false;
  PushKind pushedKind = kPushPass;
  uint32_t pushedPass = 0;
  for (uint32_t i = 0; i < plan.commandCount; ++i) {
    const Command& c = plan.commands[i];
    if (c.type == kCmdDispatch || c.type == kCmdDispatchIndirect) {
      if (c.kernel != bound) fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipelines.kernel[c.kernel]);
      bound = c.kernel;
      if (!pushed || c.push != pushedKind || c.pass != pushedPass) {
        VksortPush p = pushConstants(base, plan, a, c.push, c.pass);
        if (c.push == kPushSegmentBins) p.keysIn = offsets;
        fn.cmdPushConstants(cmd, s->pipelines.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        pushed = true;
        pushedKind = c.push;
        pushedPass = c.pass;
      }
    }
    switch (c.type) {
      case kCmdTimestamp:
        fn.cmdWriteTimestamp(cmd, c.query ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                             info.timestampQueryPool, info.firstTimestampQuery + c.query);
        break;
      case kCmdBeginLabel:
        if (fn.cmdBeginDebugUtilsLabel) {
          // "vksort " and the path's name (vksortPathName), then what the
          // group does.
          char name[64];
          const char* path = vksortPathName(plan.summary.path);
          if (c.label >= kLabelPass)
            std::snprintf(name, sizeof name, "vksort %s %s %u/%u", path, labelName(c.label), c.pass + 1u,
                          plan.summary.passes);
          else
            std::snprintf(name, sizeof name, "vksort %s%s%s", path, c.label == kLabelSort ? "" : " ",
                          labelName(c.label));
          VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
          label.pLabelName = name;
          fn.cmdBeginDebugUtilsLabel(cmd, &label);
        }
        break;
      case kCmdEndLabel:
        if (fn.cmdEndDebugUtilsLabel) fn.cmdEndDebugUtilsLabel(cmd);
        break;
      case kCmdBarrier: {
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = c.barrier.srcAccess;
        mb.dstAccessMask = c.barrier.dstAccess;
        fn.cmdPipelineBarrier(cmd, c.barrier.srcStage, c.barrier.dstStage, 0, 1, &mb, 0, nullptr, 0, nullptr);
        break;
      }
      case kCmdFillHeader:
        fn.cmdFillBuffer(cmd, info.temp.buffer, info.temp.offset + c.fill.offset, c.fill.size, 0);
        break;
      case kCmdDispatch:
        // A grid wider than maxComputeWorkGroupCount[0] is only ever
        // one-dimensional Onesweep tiles (Command::groups).
        for (uint32_t left = c.groups[0]; left > 0;) {
          const uint32_t n = left < s->config.maxDispatchX ? left : s->config.maxDispatchX;
          fn.cmdDispatch(cmd, n, c.groups[1], 1);
          left -= n;
        }
        break;
      case kCmdDispatchIndirect:
        fn.cmdDispatchIndirect(cmd, info.temp.buffer, info.temp.offset + c.indirectOffset);
        break;
    }
  }
}

}  // namespace vksort

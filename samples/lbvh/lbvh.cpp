// vksort_lbvh: builds a linear BVH (Karras 2012) over a procedural scene of
// triangles, entirely on the GPU:
//   morton     scene bounds of the centroids, then a 30-bit Morton code per triangle
//   sort       vksort argsort: u32 keys, bits [0, 30), the triangle indices as values
//   hierarchy  N-1 internal nodes from the sorted codes (common prefixes), in parallel
//   refit      bottom-up boxes, one thread per leaf, atomic counters at the internal nodes
// then checks the tree on the CPU and reports per-stage GPU times from timestamps.
//
//   vksort_lbvh [--n N] [--runs R] [--png FILE] [--no-check] [--validation] [--device I]
//
// --png ray-casts the finished BVH (left: shaded hits, right: nodes visited per ray).
#include <stb_image_write.h>
#include <vksort/vksort.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lbvh_bounds_spv.h"
#include "lbvh_hierarchy_spv.h"
#include "lbvh_morton_spv.h"
#include "lbvh_raycast_spv.h"
#include "lbvh_refit_spv.h"
#include "mix32.h"
#include "vk_context.h"

namespace {

constexpr uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;
constexpr uint32_t kLeaf = 0xffffffffu, kNoParent = 0xffffffffu;
constexpr uint32_t kImageWidth = 480, kImageHeight = 360;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "vksort_lbvh: %s\n", what.c_str());
  std::_Exit(1);  // the device may be hung: skip destructors that would wait on it
}

// Must match lbvh.glsl.
struct Push {
  VkDeviceAddress triangles, keys, indices, nodes, parents, counters, bounds, image;
  uint32_t count, width, height;
  float angle;
};
static_assert(sizeof(Push) == 80, "Push must match lbvh.glsl");

struct Triangle {
  float v[3][4];  // a, b, c as vec4 (w unused)
};
struct Node {
  float lo[4], hi[4];  // see lbvh.glsl
};

// Small triangles ("scales") in random orientations over a torus and a sphere
// that passes through it. Sizes shrink with N so that the surfaces stay about
// equally covered.
std::vector<Triangle> makeScene(uint32_t n) {
  std::vector<Triangle> tris(n);
  uint32_t state = 0x2545f491u;
  auto uniform = [&state]() {
    state = mix32(state + 0x9e3779b9u);
    return (float(state >> 8) + 0.5f) * (1.0f / 16777216.0f);
  };
  const float size = 8.0f / std::sqrt(float(n));
  for (uint32_t i = 0; i < n; ++i) {
    float c[3];
    const float u = 6.2831853f * uniform(), v = 6.2831853f * uniform();
    if (i % 10 < 7) {  // torus in the xz plane, R = 1, r = 0.3
      const float rr = 1.0f + 0.3f * std::cos(v);
      c[0] = rr * std::cos(u), c[1] = 0.3f * std::sin(v), c[2] = rr * std::sin(u);
    } else {  // sphere of radius 0.55 at (1, 0.2, 0)
      const float z = 2.0f * uniform() - 1.0f, r = std::sqrt(1.0f - z * z);
      c[0] = 1.0f + 0.55f * r * std::cos(u), c[1] = 0.2f + 0.55f * z, c[2] = 0.55f * r * std::sin(u);
    }
    for (auto& vertex : tris[i].v) {
      for (int a = 0; a < 3; ++a) vertex[a] = c[a] + size * (uniform() - 0.5f);
      vertex[3] = 0.0f;
    }
  }
  return tris;
}

VkPipeline makePipeline(VkDevice device, VkPipelineLayout layout, const uint32_t* code, size_t size) {
  VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, size, code};
  VkShaderModule module;
  if (vkCreateShaderModule(device, &mci, nullptr, &module) != VK_SUCCESS) die("vkCreateShaderModule failed");
  VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pci.stage = {
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main"};
  pci.layout = layout;
  VkPipeline pipeline;
  if (vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pci, nullptr, &pipeline) != VK_SUCCESS)
    die("vkCreateComputePipelines failed");
  vkDestroyShaderModule(device, module, nullptr);
  return pipeline;
}

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
             VkAccessFlags dstAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, srcAccess, dstAccess};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

VkDeviceAddress addressOf(VkDevice device, const GpuBuffer& b) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, b.buffer};
  return vkGetBufferDeviceAddress(device, &info);
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The CPU check of the finished tree. Returns an empty string or what is wrong.
std::string checkTree(uint32_t n, const std::vector<Triangle>& tris, const std::vector<Node>& nodes,
                      const std::vector<uint32_t>& parents, const std::vector<uint32_t>& keys,
                      const std::vector<uint32_t>& indices, uint32_t* maxDepth, double* meanLeafDepth) {
  const uint32_t total = 2 * n - 1, leaf0 = n - 1;
  for (uint32_t k = 0; k < n; ++k) {
    if (keys[k] >= (1u << 30)) return "Morton code " + std::to_string(k) + " has more than 30 bits";
    if (k > 0 && keys[k - 1] > keys[k]) return "Morton codes out of order at " + std::to_string(k);
  }
  if (parents[0] != kNoParent) return "the root has a parent";
  std::vector<uint8_t> seenNode(total, 0);
  std::vector<uint8_t> seenPrim(n, 0);
  std::vector<uint32_t> first(total), last(total);  // the sorted leaf range under each node
  uint32_t internalCount = 0, leafCount = 0;
  uint64_t depthSum = 0;
  *maxDepth = 0;
  struct Item {
    uint32_t node, depth;
    bool expanded;
  };
  std::vector<Item> stack{{0, 0, false}};
  auto contains = [](const Node& outer, const float* lo, const float* hi) {
    for (int a = 0; a < 3; ++a)
      if (!(outer.lo[a] <= lo[a] && outer.hi[a] >= hi[a])) return false;
    return true;
  };
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const uint32_t i = item.node;
    const Node& node = nodes[i];
    if (item.expanded) {  // post-order: both children have their ranges
      const uint32_t l = bitsOf(node.lo[3]), r = bitsOf(node.hi[3]);
      if (last[l] + 1 != first[r]) return "node " + std::to_string(i) + " covers a range with a gap";
      first[i] = first[l], last[i] = last[r];
      continue;
    }
    if (seenNode[i]++) return "node " + std::to_string(i) + " is reachable twice";
    *maxDepth = std::max(*maxDepth, item.depth);
    if (i >= leaf0) {
      if (bitsOf(node.hi[3]) != kLeaf) return "leaf node " + std::to_string(i) + " is not marked as a leaf";
      const uint32_t prim = bitsOf(node.lo[3]);
      if (prim >= n || prim != indices[i - leaf0]) return "leaf " + std::to_string(i) + " has the wrong primitive";
      if (seenPrim[prim]++) return "primitive " + std::to_string(prim) + " is in two leaves";
      for (const auto& v : tris[prim].v)
        if (!contains(node, v, v)) return "leaf " + std::to_string(i) + "'s box misses its triangle";
      first[i] = last[i] = i - leaf0;
      ++leafCount;
      depthSum += item.depth;
      continue;
    }
    ++internalCount;
    const uint32_t children[2] = {bitsOf(node.lo[3]), bitsOf(node.hi[3])};
    stack.push_back({i, item.depth, true});
    for (uint32_t c : children) {
      if (c == 0 || c >= total) return "node " + std::to_string(i) + " has a bad child " + std::to_string(c);
      if (parents[c] != i) return "node " + std::to_string(c) + "'s parent is not " + std::to_string(i);
      if (!contains(node, nodes[c].lo, nodes[c].hi)) {
        for (uint32_t q = 0; q < total && total < 20; ++q)
          std::printf("DEBUG node %u lo %g %g %g %08x hi %g %g %g %08x parent %08x\n", q, nodes[q].lo[0],
                      nodes[q].lo[1], nodes[q].lo[2], bitsOf(nodes[q].lo[3]), nodes[q].hi[0], nodes[q].hi[1],
                      nodes[q].hi[2], bitsOf(nodes[q].hi[3]), parents[q]);
        return "node " + std::to_string(i) + "'s box does not contain child " + std::to_string(c);
      }
      stack.push_back({c, item.depth + 1, false});
    }
  }
  if (internalCount != n - 1) return std::to_string(internalCount) + " internal nodes reachable, not N-1";
  if (leafCount != n) return std::to_string(leafCount) + " leaves reachable, not N";
  for (uint32_t p = 0; p < n; ++p)
    if (seenPrim[p] != 1) return "primitive " + std::to_string(p) + " is not in the tree";
  if (first[0] != 0 || last[0] != n - 1) return "the root does not cover every leaf";
  *meanLeafDepth = double(depthSum) / n;
  return "";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = 1000000;
  int runs = 5;
  bool check = true;
  std::string png;
  VkContextOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--n")
      n = uint32_t(std::strtoul(next(), nullptr, 0));
    else if (a == "--runs")
      runs = std::atoi(next());
    else if (a == "--png")
      png = next();
    else if (a == "--no-check")
      check = false;
    else if (a == "--validation")
      options.validation = true;
    else if (a == "--device")
      options.deviceIndex = std::atoi(next());
    else {
      std::printf("usage: vksort_lbvh [--n N] [--runs R] [--png FILE] [--no-check] [--validation] [--device I]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (n < 2 || n > 65535u * 256u) die("--n must be 2 ... 16776960 (one dispatch row)");
  if (runs < 1) die("--runs must be at least 1");

  VkContext ctx;
  std::string error;
  if (!ctx.init(options, &error)) die(error);
  if (ctx.timestampValidBits == 0) die("the compute queue has no timestamps");
  VkDevice device = ctx.device;

  VksortCreateInfo ci{};
  ci.instance = ctx.instance;
  ci.physicalDevice = ctx.physicalDevice;
  ci.device = device;
  ci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
  ci.pDeviceCreateInfo = &ctx.deviceCreateInfo;
  ci.keyType = VKSORT_KEY_U32;
  ci.valueType = VKSORT_VALUE_INDEX;  // argsort: vksort writes the sorted triangle indices
  VksortSorter sorter;
  if (vksortCreateSorter(&ci, &sorter) != VKSORT_SUCCESS) die(vksortGetLastError());
  VksortMemoryRequirements req;
  if (vksortGetMemoryRequirements(sorter, n, &req) != VKSORT_SUCCESS) die(vksortGetLastError());

  // Buffers (the harness adds SHADER_DEVICE_ADDRESS usage and the device-address allocation flag).
  const std::vector<Triangle> tris = makeScene(n);
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, src = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           dst = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkDeviceSize nodeCount = 2 * VkDeviceSize(n) - 1;
  GpuBuffer triBuf = ctx.createBuffer(sizeof(Triangle) * n, storage | dst, false);
  GpuBuffer keys = ctx.createBuffer(req.keysSize, req.keysUsage | src, false);
  GpuBuffer alt = ctx.createBuffer(req.altSize, req.altUsage | src, false);
  GpuBuffer values = ctx.createBuffer(req.valuesSize, req.valuesUsage | src, false);
  GpuBuffer altValues = ctx.createBuffer(req.valuesSize, req.valuesUsage | src, false);
  GpuBuffer temp = ctx.createBuffer(req.tempSize, req.tempUsage, false);
  GpuBuffer nodes = ctx.createBuffer(sizeof(Node) * nodeCount, storage | src, false);
  GpuBuffer parents = ctx.createBuffer(4 * nodeCount, storage | src, false);
  GpuBuffer counters = ctx.createBuffer(4 * (n - 1), storage | dst, false);
  GpuBuffer bounds = ctx.createBuffer(32, storage | dst, false);
  {
    GpuBuffer staging = ctx.createBuffer(sizeof(Triangle) * n, src, true);
    std::memcpy(staging.mapped, tris.data(), sizeof(Triangle) * n);
    VkCommandBuffer cmd = ctx.beginCommands();
    VkBufferCopy copy{0, 0, sizeof(Triangle) * n};
    vkCmdCopyBuffer(cmd, staging.buffer, triBuf.buffer, 1, &copy);
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error);
    ctx.destroyBuffer(staging);
  }

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
  VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  lci.pushConstantRangeCount = 1;
  lci.pPushConstantRanges = &range;
  VkPipelineLayout layout;
  if (vkCreatePipelineLayout(device, &lci, nullptr, &layout) != VK_SUCCESS) die("vkCreatePipelineLayout failed");
  const VkPipeline boundsPipe = makePipeline(device, layout, lbvh_bounds_spv, sizeof lbvh_bounds_spv);
  const VkPipeline mortonPipe = makePipeline(device, layout, lbvh_morton_spv, sizeof lbvh_morton_spv);
  const VkPipeline hierarchyPipe = makePipeline(device, layout, lbvh_hierarchy_spv, sizeof lbvh_hierarchy_spv);
  const VkPipeline refitPipe = makePipeline(device, layout, lbvh_refit_spv, sizeof lbvh_refit_spv);
  const VkPipeline raycastPipe = makePipeline(device, layout, lbvh_raycast_spv, sizeof lbvh_raycast_spv);

  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = 6;
  VkQueryPool queries;
  if (vkCreateQueryPool(device, &qci, nullptr, &queries) != VK_SUCCESS) die("vkCreateQueryPool failed");

  Push push{};
  push.triangles = addressOf(device, triBuf);
  push.keys = addressOf(device, keys);
  push.nodes = addressOf(device, nodes);
  push.parents = addressOf(device, parents);
  push.counters = addressOf(device, counters);
  push.bounds = addressOf(device, bounds);
  push.count = n;
  auto dispatch = [&](VkCommandBuffer cmd, VkPipeline pipeline, uint32_t groupsX, uint32_t groupsY) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cmd, groupsX, groupsY, 1);
  };
  const VkPipelineStageFlags compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

  std::printf("vksort_lbvh: %u triangles on %s (%s)\n", n, ctx.deviceName().c_str(), ctx.driverDescription().c_str());
  std::vector<double> times[5];  // morton, sort, hierarchy, refit, total
  VksortResultBuffer where = VKSORT_RESULT_IN_KEYS;
  for (int run = 0; run < runs; ++run) {
    VkCommandBuffer cmd = ctx.beginCommands();
    vkCmdResetQueryPool(cmd, queries, 0, 6);
    // Clear the bounds (minima to the largest ordered value, maxima to the smallest) and the refit counters.
    vkCmdFillBuffer(cmd, bounds.buffer, 0, 16, 0xffffffffu);
    vkCmdFillBuffer(cmd, bounds.buffer, 16, 16, 0u);
    vkCmdFillBuffer(cmd, counters.buffer, 0, 4 * (n - 1), 0u);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, compute, rw);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);

    // 1. Morton codes: bounds of the centroids, then a code per triangle.
    dispatch(cmd, boundsPipe, std::min((n + 255) / 256, 128u), 1);
    barrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, compute, VK_ACCESS_SHADER_READ_BIT);
    dispatch(cmd, mortonPipe, (n + 255) / 256, 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);

    // 2. vksort.h, "Before the sort": the keys' writer (morton.comp) must be visible to COMPUTE_SHADER
    // reads and writes, and earlier uses of alt, values, altValues and temp (the previous run, already
    // waited for here) must be done before COMPUTE_SHADER | TRANSFER.
    barrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, compute | VK_PIPELINE_STAGE_TRANSFER_BIT, rw);
    VksortSortInfo si{};
    si.count = n;
    si.keys = {keys.buffer, 0, req.keysSize};
    si.alt = {alt.buffer, 0, req.altSize};
    si.values = {values.buffer, 0, req.valuesSize};  // argsort: output only
    si.altValues = {altValues.buffer, 0, req.valuesSize};
    si.temp = {temp.buffer, 0, req.tempSize};
    si.beginBit = 0;
    si.endBit = 30;  // 30-bit Morton codes: 4 passes of 8 bits (the last one 6)
    si.timestampQueryPool = queries;
    si.firstTimestampQuery = 2;
    if (vksortRecordSort(sorter, cmd, &si, &where) != VKSORT_SUCCESS) die(vksortGetLastError());
    const GpuBuffer& sortedKeys = where == VKSORT_RESULT_IN_KEYS ? keys : alt;
    const GpuBuffer& sortedIndices = where == VKSORT_RESULT_IN_KEYS ? values : altValues;
    push.keys = addressOf(device, sortedKeys);
    push.indices = addressOf(device, sortedIndices);
    // vksort.h, "After the sort": the results were last written by COMPUTE_SHADER (SHADER_WRITE).
    barrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, compute, VK_ACCESS_SHADER_READ_BIT);

    // 3. Hierarchy: internal node i for i in [0, N-2], all at once.
    dispatch(cmd, hierarchyPipe, (n - 1 + 255) / 256, 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 4);
    barrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, compute, rw);

    // 4. Refit: leaves up to the root.
    dispatch(cmd, refitPipe, (n + 255) / 256, 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 5);
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error);
    push.keys = addressOf(device, keys);  // morton.comp writes the unsorted keys there next run

    uint64_t t[6];
    if (vkGetQueryPoolResults(device, queries, 0, 6, sizeof t, t, 8, VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
      die("vkGetQueryPoolResults failed");
    const double ms = double(ctx.properties.limits.timestampPeriod) * 1e-6;
    const double stage[5] = {double(t[1] - t[0]) * ms, double(t[3] - t[2]) * ms, double(t[4] - t[3]) * ms,
                             double(t[5] - t[4]) * ms, double(t[5] - t[0]) * ms};
    for (int s = 0; s < 5; ++s) times[s].push_back(stage[s]);
    std::printf("run %d: morton %.3f ms, sort %.3f ms, hierarchy %.3f ms, refit %.3f ms, total %.3f ms\n", run,
                stage[0], stage[1], stage[2], stage[3], stage[4]);
  }
  const double total = median(times[4]);
  std::printf(
      "median of %d: morton %.3f ms, sort %.3f ms, hierarchy %.3f ms, refit %.3f ms, total %.3f ms "
      "(%.1f M triangles/s)\n",
      runs, median(times[0]), median(times[1]), median(times[2]), median(times[3]), total,
      total > 0 ? double(n) / total * 1e-3 : 0.0);

  bool ok = true;
  const GpuBuffer& sortedKeys = where == VKSORT_RESULT_IN_KEYS ? keys : alt;
  const GpuBuffer& sortedIndices = where == VKSORT_RESULT_IN_KEYS ? values : altValues;
  if (check) {
    GpuBuffer hostNodes = ctx.createBuffer(sizeof(Node) * nodeCount, dst, true);
    GpuBuffer hostParents = ctx.createBuffer(4 * nodeCount, dst, true);
    GpuBuffer hostKeys = ctx.createBuffer(4 * VkDeviceSize(n), dst, true);
    GpuBuffer hostIndices = ctx.createBuffer(4 * VkDeviceSize(n), dst, true);
    VkCommandBuffer cmd = ctx.beginCommands();
    const std::pair<const GpuBuffer*, const GpuBuffer*> copies[4] = {
        {&nodes, &hostNodes}, {&parents, &hostParents}, {&sortedKeys, &hostKeys}, {&sortedIndices, &hostIndices}};
    for (const auto& c : copies) {
      VkBufferCopy copy{0, 0, c.second->size};
      vkCmdCopyBuffer(cmd, c.first->buffer, c.second->buffer, 1, &copy);
    }
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error);
    auto asVector = [](const GpuBuffer& b, auto* type) {
      using T = std::remove_pointer_t<decltype(type)>;
      const T* p = static_cast<const T*>(b.mapped);
      return std::vector<T>(p, p + b.size / sizeof(T));
    };
    uint32_t maxDepth = 0;
    double meanDepth = 0;
    const std::string problem = checkTree(
        n, tris, asVector(hostNodes, static_cast<Node*>(nullptr)),
        asVector(hostParents, static_cast<uint32_t*>(nullptr)), asVector(hostKeys, static_cast<uint32_t*>(nullptr)),
        asVector(hostIndices, static_cast<uint32_t*>(nullptr)), &maxDepth, &meanDepth);
    ok = problem.empty();
    if (ok)
      std::printf(
          "check: PASS: %u internal nodes, every triangle in exactly one leaf, every box contains its "
          "children, contiguous leaf ranges; depth max %u, mean leaf depth %.1f\n",
          n - 1, maxDepth, meanDepth);
    else
      std::printf("check: FAIL: %s\n", problem.c_str());
    for (GpuBuffer* b : {&hostNodes, &hostParents, &hostKeys, &hostIndices}) ctx.destroyBuffer(*b);
  }

  if (!png.empty()) {
    GpuBuffer image =
        ctx.createBuffer(4 * 2 * VkDeviceSize(kImageWidth) * kImageHeight, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    push.image = addressOf(device, image);
    push.width = kImageWidth;
    push.height = kImageHeight;
    push.angle = 0.5f;
    VkCommandBuffer cmd = ctx.beginCommands();
    dispatch(cmd, raycastPipe, (kImageWidth + 7) / 8, (kImageHeight + 7) / 8);
    barrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if (!ctx.submitAndWait(cmd, kFenceTimeoutNs, &error)) die(error);
    if (!stbi_write_png(png.c_str(), int(2 * kImageWidth), int(kImageHeight), 4, image.mapped,
                        int(2 * kImageWidth * 4)))
      die("cannot write " + png);
    std::printf("wrote %s (left: shaded hits, right: BVH nodes visited per ray)\n", png.c_str());
    ctx.destroyBuffer(image);
  }

  for (const std::string& m : ctx.takeValidationMessages()) {
    std::printf("validation: %s\n", m.c_str());
    ok = false;
  }
  vkDestroyQueryPool(device, queries, nullptr);
  for (VkPipeline p : {boundsPipe, mortonPipe, hierarchyPipe, refitPipe, raycastPipe})
    vkDestroyPipeline(device, p, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  for (GpuBuffer* b : {&triBuf, &keys, &alt, &values, &altValues, &temp, &nodes, &parents, &counters, &bounds})
    ctx.destroyBuffer(*b);
  vksortDestroySorter(sorter);
  return ok ? 0 : 1;
}

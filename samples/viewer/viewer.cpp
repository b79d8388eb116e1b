// vksort_viewer: a million camera-facing particles from several emitters
// (6 by default, each with its own place, shape, colour and particle count),
// alpha-blended back to front, depth-sorted by ONE vksort segmented sort every
// frame: emitter e's particles are segment e of the keys and ids. One command
// buffer per frame holds: culling (a compute pass that writes each emitter's
// keys and ids into its segment, visible ones first, and counts them into the
// emitter's VkDrawIndirectCommand), the segmented sort (vksortRecordSegmentedSort,
// one segment per emitter), one vkCmdDrawIndirect per emitter, farthest
// emitter first (instance k = the emitter's k-th farthest particle), and a
// Dear ImGui overlay.
//
//   vksort_viewer [--particles N] [--emitters E] [--frames F] [--width W] [--height H]
//                 [--key-bits 32|24|16|8] [--no-sort] [--headless] [--out FILE.png] [--check]
//
// --emitters: 1 ... 8 (default 6); the particles are shared among them.
// --headless renders offscreen (no window, no swapchain); --out writes the
// last frame as PNG (headless, or windowed where the swapchain allows copies);
// --check compares the last frame at a grid of pixels with a CPU reference
// that composites the same particles, each emitter sorted on the CPU and the
// emitters in the same order as the draws, and exits 1 if they differ (an
// unsorted frame must fail it).
#include <vksort/vksort.h>
#include <vksort/vksort_advanced.h>
#include <vulkan/vulkan.h>  // the loader's prototypes, also used by Debian's prebuilt ImGui backends

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mix32.h"
#include "viewer_cull_spv.h"
#include "viewer_particle_frag_spv.h"
#include "viewer_particle_vert_spv.h"

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "vksort_viewer: %s\n", what.c_str());
  std::_Exit(1);  // the device may be hung: skip destructors that would wait on it
}

#define VK(call)                                                                \
  do {                                                                          \
    VkResult r_ = (call);                                                       \
    if (r_ != VK_SUCCESS) die(std::string(#call) + " = " + std::to_string(r_)); \
  } while (0)

constexpr uint64_t kFenceTimeoutNs = 60ull * 1000 * 1000 * 1000;
constexpr float kBackground[3] = {0.02f, 0.02f, 0.04f};
constexpr float kNear = 0.05f;

constexpr uint32_t kMaxEmitters = 8;  // particles.glsl's

struct Options {
  uint32_t particles = 1000000;
  uint32_t emitters = 6;
  int frames = 0;  // 0: until the window closes (headless: 1)
  uint32_t width = 1280, height = 720;
  int keyBits = 32;
  bool sort = true, headless = false, check = false;
  std::string out;
};

struct Particle {
  float position[3];
  uint32_t color;
};

// Must match particles.glsl.
struct Push {
  float eye[4], right[4], up[4], forward[4];
  float focal[2];
  uint32_t count, keyMode, emitterCount, segmentBase;
  VkDeviceAddress particles, keys, values, emitters;
};
static_assert(sizeof(Push) == 120, "Push must match particles.glsl");

// particles.glsl's Emitters: rewritten every frame by vkCmdUpdateBuffer, then the culling pass
// counts into draws[e].instanceCount and culled[e]. segmentOffsets is what the segmented sort reads.
struct EmitterTable {
  VkDrawIndirectCommand draws[kMaxEmitters];  // emitter e's draw: 6 vertices, its visible particles
  uint32_t culled[kMaxEmitters];
  uint32_t firstParticle[kMaxEmitters];
  uint32_t segmentOffsets[kMaxEmitters + 1];  // CSR: segment e = keys [segmentOffsets[e], segmentOffsets[e + 1])
};
static_assert(offsetof(EmitterTable, culled) == 128 && offsetof(EmitterTable, segmentOffsets) == 192 &&
                  sizeof(EmitterTable) == 228,
              "EmitterTable must match particles.glsl");

struct Camera {
  float eye[3], right[3], up[3], forward[3];
  float fx, fy, nearZ, farZ;
};

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;
  void* mapped = nullptr;
};

struct Image {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

// The emitters: gaussian clouds at different places, of different shapes (sigma per axis),
// tints and shares of the particles. Each is bounded (kCutoff) and set apart from the others, so
// that no two of them share any volume: see recordFrame for why drawing whole emitters in camera
// order then looks right.
struct EmitterSpec {
  const char* name;
  float center[3];
  float sigma[3];
  uint32_t color;   // ABGR: unpackUnorm4x8 reads R first
  uint32_t weight;  // its share of the particles
};
const EmitterSpec kEmitters[kMaxEmitters] = {
    {"red", {0.10f, -0.10f, 0.00f}, {0.27f, 0.25f, 0.27f}, 0xff3828ffu, 24},
    {"green", {1.30f, 0.35f, -0.20f}, {0.22f, 0.08f, 0.22f}, 0xff30d040u, 17},   // a flat disc
    {"blue", {-0.60f, -0.45f, 1.05f}, {0.18f, 0.28f, 0.18f}, 0xffff6828u, 15},   // tall
    {"yellow", {0.30f, 0.80f, -1.20f}, {0.32f, 0.13f, 0.13f}, 0xff20d8ffu, 13},  // long along x
    {"magenta", {1.35f, -0.80f, -1.20f}, {0.20f, 0.20f, 0.20f}, 0xffff40e0u, 11},
    {"cyan", {1.00f, -0.42f, 0.85f}, {0.13f, 0.13f, 0.28f}, 0xffffe040u, 9},  // long along z
    {"white", {-1.00f, 0.70f, -0.40f}, {0.15f, 0.15f, 0.15f}, 0xffffffffu, 7},
    {"orange", {0.20f, -0.85f, 1.20f}, {0.12f, 0.12f, 0.12f}, 0xff1890ffu, 4}};
// Each cloud is cut off at kCutoff sigmas: an ellipsoid, and no two emitters' ellipsoids meet.
constexpr float kCutoff = 2.5f;

// Emitter e gets particles [first[e], first[e] + counts[e]), by weight (the rest to emitter 0).
void splitParticles(uint32_t n, uint32_t emitters, uint32_t* first, uint32_t* counts) {
  uint32_t weights = 0, given = 0;
  for (uint32_t e = 0; e < emitters; ++e) weights += kEmitters[e].weight;
  for (uint32_t e = 0; e < emitters; ++e) given += counts[e] = uint32_t(uint64_t(n) * kEmitters[e].weight / weights);
  counts[0] += n - given;
  for (uint32_t e = 0; e < emitters; ++e) first[e] = e == 0 ? 0 : first[e - 1] + counts[e - 1];
}

// Emitter-major: each emitter's particles are contiguous, in random order within it, so the
// buffer order has nothing to do with depth.
std::vector<Particle> makeParticles(uint32_t n, uint32_t emitters) {
  uint32_t first[kMaxEmitters], counts[kMaxEmitters];
  splitParticles(n, emitters, first, counts);
  std::vector<Particle> p(n);
  uint32_t state = 0x12345678u;
  auto uniform = [&state]() {
    state = mix32(state + 0x9e3779b9u);
    return (float(state >> 8) + 0.5f) * (1.0f / 16777216.0f);
  };
  for (uint32_t e = 0; e < emitters; ++e) {
    const EmitterSpec& em = kEmitters[e];
    for (uint32_t i = first[e]; i < first[e] + counts[e]; ++i) {
      float g[4];  // normal samples, Box-Muller: two per pair of uniforms; drawn again past the cutoff
      do {
        for (int a = 0; a < 4; a += 2) {
          const float r = std::sqrt(-2.0f * std::log(uniform())), t = 6.2831853f * uniform();
          g[a] = r * std::cos(t), g[a + 1] = r * std::sin(t);
        }
      } while (g[0] * g[0] + g[1] * g[1] + g[2] * g[2] > kCutoff * kCutoff);
      for (int a = 0; a < 3; ++a) p[i].position[a] = em.center[a] + em.sigma[a] * g[a];
      // Dark cores, bright shells, and a little noise: sorted, each emitter shows its bright
      // outside; unsorted, particles from its core and its far side show through.
      const float shell = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) / kCutoff;
      const float k = 0.3f + 0.6f * shell * shell + 0.1f * uniform();
      uint32_t rgb = 0;
      for (int ch = 0; ch < 3; ++ch) rgb |= uint32_t(float((em.color >> (8 * ch)) & 255u) * k) << (8 * ch);
      p[i].color = rgb | 0xff000000u;
    }
  }
  return p;
}

Camera makeCamera(float angle, uint32_t width, uint32_t height) {
  Camera c;
  const float dist = 3.6f, pitch = 0.35f;
  c.eye[0] = dist * std::cos(pitch) * std::sin(angle);
  c.eye[1] = dist * std::sin(pitch);
  c.eye[2] = dist * std::cos(pitch) * std::cos(angle);
  for (int i = 0; i < 3; ++i) c.forward[i] = -c.eye[i] / dist;  // looking at the origin
  // right = forward x (0, 1, 0), normalised; up = right x forward
  const float rx = -c.forward[2], rz = c.forward[0], rl = std::sqrt(rx * rx + rz * rz);
  c.right[0] = rx / rl, c.right[1] = 0, c.right[2] = rz / rl;
  c.up[0] = c.right[1] * c.forward[2] - c.right[2] * c.forward[1];
  c.up[1] = c.right[2] * c.forward[0] - c.right[0] * c.forward[2];
  c.up[2] = c.right[0] * c.forward[1] - c.right[1] * c.forward[0];
  c.fy = 1.0f / std::tan(0.5f * 0.9f);  // about 52 degrees vertical field of view
  c.fx = c.fy * float(height) / float(width);
  c.nearZ = kNear;
  c.farZ = dist + 3.0f;
  return c;
}

float particleRadius(uint32_t maxParticles) { return 0.02f * std::cbrt(1e6f / float(std::max(maxParticles, 1000u))); }

class Viewer {
 public:
  explicit Viewer(const Options& o) : opt_(o) {}
  int run();

 private:
  // Setup.
  void createInstanceAndDevice();
  void createBuffers();
  void createPipelines();
  void createTargets();  // the HDR target, the swapchain or the offscreen image, framebuffers
  void destroyTargets();
  void initImGui();

  // Helpers.
  Buffer makeBuffer(VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want);
  void destroyBuffer(Buffer& b);
  Image makeImage(VkFormat format, VkImageUsageFlags usage);
  void destroyImage(Image& i);
  uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) const;
  VkCommandBuffer beginOneTime();
  void endOneTime(VkCommandBuffer cmd);
  void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
               VkAccessFlags dstAccess);
  void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src,
                    VkAccessFlags srcAccess, VkPipelineStageFlags dst, VkAccessFlags dstAccess);

  // Per frame.
  void buildOverlay();
  void buildWindow();
  void planFrame();
  VksortSegmentedSortInfo sortInfo() const;
  void recordFrame(VkCommandBuffer cmd, uint32_t imageIndex, bool readback);
  void fillPush(Push* p) const;
  bool checkAgainstCpu(const std::vector<uint8_t>& rgba);
  std::vector<uint8_t> readbackPixels() const;

  Options opt_;
  GLFWwindow* window_ = nullptr;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  VkPhysicalDevice gpu_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props_{};
  VkPhysicalDeviceMemoryProperties memProps_{};
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  bool timestamps_ = false;

  // Sorting.
  VksortSorter sorterF32_ = nullptr, sorterU32_ = nullptr;
  VksortMemoryRequirements req_{};
  std::vector<Particle> particles_;
  Buffer particleBuf_, keys_, alt_, values_, altValues_, temp_, emitters_, stats_, pixels_;

  // Emitters: emitterCount_ of them; emitter e owns particles [first_[e], first_[e] + size_[e]).
  uint32_t emitterCount_ = 0;
  uint32_t first_[kMaxEmitters] = {}, size_[kMaxEmitters] = {};
  // This frame (planFrame): active particles per emitter, the segments' CSR offsets over the
  // active ones, the order of the draws (farthest emitter first), and visible counts (read back).
  uint32_t activeOf_[kMaxEmitters] = {}, offsets_[kMaxEmitters + 1] = {}, order_[kMaxEmitters] = {};
  uint32_t visibleOf_[kMaxEmitters] = {};
  VkQueryPool queries_ = VK_NULL_HANDLE;

  // Pipelines.
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline cull_ = VK_NULL_HANDLE, draw_ = VK_NULL_HANDLE;
  VkRenderPass particlePass_ = VK_NULL_HANDLE, overlayPass_ = VK_NULL_HANDLE;
  VkDescriptorPool imguiPool_ = VK_NULL_HANDLE;

  // Targets.
  const VkFormat hdrFormat_ = VK_FORMAT_R16G16B16A16_SFLOAT;
  VkFormat presentFormat_ = VK_FORMAT_R8G8B8A8_UNORM;
  uint32_t width_ = 0, height_ = 0;
  Image hdr_;
  VkFramebuffer hdrFramebuffer_ = VK_NULL_HANDLE;
  Image offscreen_;  // headless: stands in for the swapchain image
  VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
  std::vector<VkImage> presentImages_;
  std::vector<VkImageView> presentViews_;
  std::vector<VkFramebuffer> presentFramebuffers_;
  bool canReadSwapchain_ = false;

  // State shown and changed by the overlay.
  bool sort_ = true, rotate_ = true, showOverlay_ = true;
  int keyMode_ = 0;  // 0: f32 32 bits, 1: u32 24 bits, 2: u32 16 bits, 3: u32 8 bits
  int active_ = 0;
  float angle_ = 0.6f;
  Camera camera_{};
  uint32_t visible_ = 0;
  double sortMs_ = 0, cullMs_ = 0, drawMs_ = 0;
  VksortResultBuffer where_ = VKSORT_RESULT_IN_KEYS;
  float overlayRect_[4] = {0, 0, 0, 0};  // x, y, w, h of the ImGui window, skipped by --check
};

uint32_t Viewer::memoryType(uint32_t bits, VkMemoryPropertyFlags want) const {
  for (uint32_t i = 0; i < memProps_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (memProps_.memoryTypes[i].propertyFlags & want) == want) return i;
  die("no suitable memory type");
}

Buffer Viewer::makeBuffer(VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want) {
  Buffer b;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = std::max<VkDeviceSize>(size, 16);
  bci.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  VK(vkCreateBuffer(device_, &bci, nullptr, &b.buffer));
  VkMemoryRequirements mr;
  vkGetBufferMemoryRequirements(device_, b.buffer, &mr);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;  // vksort and our shaders use device addresses
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &flags, mr.size,
                           memoryType(mr.memoryTypeBits, want)};
  VK(vkAllocateMemory(device_, &mai, nullptr, &b.memory));
  VK(vkBindBufferMemory(device_, b.buffer, b.memory, 0));
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, nullptr, b.buffer};
  b.address = vkGetBufferDeviceAddress(device_, &info);
  if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) VK(vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
  return b;
}

void Viewer::destroyBuffer(Buffer& b) {
  vkDestroyBuffer(device_, b.buffer, nullptr);
  vkFreeMemory(device_, b.memory, nullptr);
  b = Buffer{};
}

Image Viewer::makeImage(VkFormat format, VkImageUsageFlags usage) {
  Image img;
  VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  ici.imageType = VK_IMAGE_TYPE_2D;
  ici.format = format;
  ici.extent = {width_, height_, 1};
  ici.mipLevels = ici.arrayLayers = 1;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_OPTIMAL;
  ici.usage = usage;
  VK(vkCreateImage(device_, &ici, nullptr, &img.image));
  VkMemoryRequirements mr;
  vkGetImageMemoryRequirements(device_, img.image, &mr);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, mr.size,
                           memoryType(mr.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VK(vkAllocateMemory(device_, &mai, nullptr, &img.memory));
  VK(vkBindImageMemory(device_, img.image, img.memory, 0));
  VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vci.image = img.image;
  vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vci.format = format;
  vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VK(vkCreateImageView(device_, &vci, nullptr, &img.view));
  return img;
}

void Viewer::destroyImage(Image& i) {
  vkDestroyImageView(device_, i.view, nullptr);
  vkDestroyImage(device_, i.image, nullptr);
  vkFreeMemory(device_, i.memory, nullptr);
  i = Image{};
}

VkCommandBuffer Viewer::beginOneTime() {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool_,
                                 VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cmd;
  VK(vkAllocateCommandBuffers(device_, &ai, &cmd));
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                              VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK(vkBeginCommandBuffer(cmd, &bi));
  return cmd;
}

void Viewer::endOneTime(VkCommandBuffer cmd) {
  VK(vkEndCommandBuffer(cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  VK(vkCreateFence(device_, &fci, nullptr, &fence));
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 0, nullptr, nullptr, 1, &cmd};
  VK(vkQueueSubmit(queue_, 1, &si, fence));
  VK(vkWaitForFences(device_, 1, &fence, VK_TRUE, kFenceTimeoutNs));
  vkDestroyFence(device_, fence, nullptr);
  vkFreeCommandBuffers(device_, pool_, 1, &cmd);
}

void Viewer::barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                     VkAccessFlags dstAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, srcAccess, dstAccess};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Viewer::imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                          VkAccessFlags dstAccess) {
  VkImageMemoryBarrier ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  ib.srcAccessMask = srcAccess;
  ib.dstAccessMask = dstAccess;
  ib.oldLayout = from;
  ib.newLayout = to;
  ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  ib.image = image;
  ib.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, nullptr, 0, nullptr, 1, &ib);
}

void Viewer::createInstanceAndDevice() {
  std::vector<const char*> extensions;
  if (!opt_.headless) {
    if (!glfwInit()) die("glfwInit failed (no display? try --headless)");
    if (!glfwVulkanSupported()) die("GLFW finds no Vulkan loader");
    uint32_t n = 0;
    const char** names = glfwGetRequiredInstanceExtensions(&n);
    extensions.assign(names, names + n);
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vksort_viewer";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = uint32_t(extensions.size());
  ici.ppEnabledExtensionNames = extensions.data();
  VK(vkCreateInstance(&ici, nullptr, &instance_));
  if (!opt_.headless) {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    window_ = glfwCreateWindow(int(opt_.width), int(opt_.height), "vksort viewer", nullptr, nullptr);
    if (!window_) die("glfwCreateWindow failed");
    VK(glfwCreateWindowSurface(instance_, window_, nullptr, &surface_));
  }

  // The first device that runs vksort and has a graphics+compute queue (that can present).
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> gpus(count);
  vkEnumeratePhysicalDevices(instance_, &count, gpus.data());
  std::string reasons;
  VksortDeviceRequirements need{};
  for (VkPhysicalDevice gpu : gpus) {
    if (vksortCheckDeviceSupport(instance_, gpu, vkGetInstanceProcAddr, VK_API_VERSION_1_3, VKSORT_ALGORITHM_AUTO,
                                 &need) != VKSORT_SUCCESS) {
      reasons += std::string("\n  ") + vksortGetLastError();
      continue;
    }
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(gpu, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(gpu, &nq, qf.data());
    for (uint32_t i = 0; i < nq && !gpu_; ++i) {
      const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
      VkBool32 present = VK_TRUE;
      if (surface_) vkGetPhysicalDeviceSurfaceSupportKHR(gpu, i, surface_, &present);
      if ((qf[i].queueFlags & want) == want && present) {
        gpu_ = gpu;
        family_ = i;
        timestamps_ = qf[i].timestampValidBits > 0;
      }
    }
    if (gpu_) break;
  }
  if (!gpu_) die("no Vulkan device can run vksort and draw" + reasons);
  vkGetPhysicalDeviceProperties(gpu_, &props_);
  vkGetPhysicalDeviceMemoryProperties(gpu_, &memProps_);

  // vksort's features, nothing else; the swapchain extension when windowed.
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &f13};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  if (vksortEnableRequiredFeatures(&need, &f2) != VKSORT_SUCCESS) die(vksortGetLastError());
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family_, 1, &priority};
  std::vector<const char*> deviceExtensions(need.extensionNames, need.extensionNames + need.extensionCount);
  if (!opt_.headless) deviceExtensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2, 0, 1, &qci};
  dci.enabledExtensionCount = uint32_t(deviceExtensions.size());
  dci.ppEnabledExtensionNames = deviceExtensions.data();
  VK(vkCreateDevice(gpu_, &dci, nullptr, &device_));
  vkGetDeviceQueue(device_, family_, 0, &queue_);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = family_;
  VK(vkCreateCommandPool(device_, &pci, nullptr, &pool_));

  // Two sorters over the same buffers, both for segmented sorts: f32 view depth (all 32 bits) and
  // quantised u32 depth (top 24/16/8 bits).
  for (VksortKeyType type : {VKSORT_KEY_F32, VKSORT_KEY_U32}) {
    VksortCreateInfo ci{};
    ci.instance = instance_;
    ci.physicalDevice = gpu_;
    ci.device = device_;
    ci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
    ci.pDeviceCreateInfo = &dci;
    ci.keyType = type;
    ci.valueType = VKSORT_VALUE_32;  // the values are the particle ids written by the culling pass
    ci.segmented = VK_TRUE;          // vksortRecordSegmentedSort: one segment per emitter
    VksortSorter* s = type == VKSORT_KEY_F32 ? &sorterF32_ : &sorterU32_;
    if (vksortCreateSorter(&ci, s) != VKSORT_SUCCESS) die(vksortGetLastError());
  }
}

void Viewer::createBuffers() {
  const uint32_t n = opt_.particles;
  emitterCount_ = opt_.emitters;
  splitParticles(n, emitterCount_, first_, size_);
  // Segmented sorts of up to n keys (all particles active) in emitterCount_ segments.
  VksortMemoryRequirements r32;
  if (vksortGetSegmentedMemoryRequirements(sorterF32_, n, emitterCount_, &req_) != VKSORT_SUCCESS ||
      vksortGetSegmentedMemoryRequirements(sorterU32_, n, emitterCount_, &r32) != VKSORT_SUCCESS)
    die(vksortGetLastError());
  req_.tempSize = std::max(req_.tempSize, r32.tempSize);
  req_.tempUsage |= r32.tempUsage;
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  particleBuf_ =
      makeBuffer(sizeof(Particle) * n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, local);
  keys_ = makeBuffer(req_.keysSize, req_.keysUsage | r32.keysUsage, local);
  alt_ = makeBuffer(req_.altSize, req_.altUsage | r32.altUsage, local);
  values_ = makeBuffer(req_.valuesSize, req_.valuesUsage | r32.valuesUsage, local);
  altValues_ = makeBuffer(req_.valuesSize, req_.valuesUsage | r32.valuesUsage, local);
  temp_ = makeBuffer(req_.tempSize, req_.tempUsage, local);
  // The EmitterTable: the per-emitter draws (the culling pass counts into them), the segment
  // offsets the sort reads (storage), written by vkCmdUpdateBuffer and copied to stats_.
  emitters_ = makeBuffer(sizeof(EmitterTable),
                         VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         local);
  stats_ = makeBuffer(sizeof(EmitterTable::draws), VK_BUFFER_USAGE_TRANSFER_DST_BIT, host);

  // Upload the particles through a staging buffer.
  particles_ = makeParticles(n, emitterCount_);
  Buffer staging = makeBuffer(sizeof(Particle) * n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, host);
  std::memcpy(staging.mapped, particles_.data(), sizeof(Particle) * n);
  VkCommandBuffer cmd = beginOneTime();
  VkBufferCopy copy{0, 0, sizeof(Particle) * n};
  vkCmdCopyBuffer(cmd, staging.buffer, particleBuf_.buffer, 1, &copy);
  endOneTime(cmd);  // waits: the first frame needs no barrier for the upload
  destroyBuffer(staging);

  if (timestamps_) {
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = 5;
    VK(vkCreateQueryPool(device_, &qci, nullptr, &queries_));
  }
}

void Viewer::createPipelines() {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(Push)};
  VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  lci.pushConstantRangeCount = 1;
  lci.pPushConstantRanges = &range;
  VK(vkCreatePipelineLayout(device_, &lci, nullptr, &layout_));
  auto module = [this](const uint32_t* code, size_t size) {
    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, size, code};
    VkShaderModule m;
    VK(vkCreateShaderModule(device_, &mci, nullptr, &m));
    return m;
  };

  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT,
                module(viewer_cull_spv, sizeof viewer_cull_spv),     "main"};
  cpci.layout = layout_;
  VK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cpci, nullptr, &cull_));
  vkDestroyShaderModule(device_, cpci.stage.module, nullptr);

  // Particle pass: the HDR target is cleared, drawn into, then blitted (TRANSFER_SRC).
  VkAttachmentDescription att{0,
                              hdrFormat_,
                              VK_SAMPLE_COUNT_1_BIT,
                              VK_ATTACHMENT_LOAD_OP_CLEAR,
                              VK_ATTACHMENT_STORE_OP_STORE,
                              VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                              VK_ATTACHMENT_STORE_OP_DONT_CARE,
                              VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{0, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, nullptr, 1, &ref};
  VkSubpassDependency deps[2] = {
      {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0,
       VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0},
      {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
       VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0}};
  VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, nullptr, 0, 1, &att, 1, &sub, 2, deps};
  VK(vkCreateRenderPass(device_, &rpci, nullptr, &particlePass_));

  // Overlay pass: loads what the blit wrote into the presented image, draws ImGui, leaves it ready
  // for a copy (TRANSFER_SRC); a barrier moves it on to PRESENT_SRC when windowed.
  att.format = presentFormat_;
  att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
  att.initialLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  deps[0].srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  VK(vkCreateRenderPass(device_, &rpci, nullptr, &overlayPass_));

  VkPipelineShaderStageCreateInfo stages[2] = {
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_VERTEX_BIT,
       module(viewer_particle_vert_spv, sizeof viewer_particle_vert_spv), "main"},
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_FRAGMENT_BIT,
       module(viewer_particle_frag_spv, sizeof viewer_particle_frag_spv), "main"}};
  VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = vp.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rs.cullMode = VK_CULL_MODE_NONE;
  rs.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.blendEnable = VK_TRUE;  // "over": back to front
  blend.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
  blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  blend.colorBlendOp = VK_BLEND_OP_ADD;
  blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
  blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  blend.alphaBlendOp = VK_BLEND_OP_ADD;
  blend.colorWriteMask = 0xf;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  const VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, nullptr, 0, 2, dyn};
  VkGraphicsPipelineCreateInfo gpci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  gpci.stageCount = 2;
  gpci.pStages = stages;
  gpci.pVertexInputState = &vi;
  gpci.pInputAssemblyState = &ia;
  gpci.pViewportState = &vp;
  gpci.pRasterizationState = &rs;
  gpci.pMultisampleState = &ms;
  gpci.pColorBlendState = &cb;
  gpci.pDynamicState = &ds;
  gpci.layout = layout_;
  gpci.renderPass = particlePass_;
  VK(vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &gpci, nullptr, &draw_));
  for (auto& s : stages) vkDestroyShaderModule(device_, s.module, nullptr);
}

void Viewer::createTargets() {
  if (window_) {
    VkSurfaceCapabilitiesKHR caps;
    VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu_, surface_, &caps));
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window_, &fw, &fh);
    width_ = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent.width : uint32_t(fw);
    height_ = caps.currentExtent.height != UINT32_MAX ? caps.currentExtent.height : uint32_t(fh);
    canReadSwapchain_ = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    VkSwapchainCreateInfoKHR sci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    sci.surface = surface_;
    sci.minImageCount =
        caps.maxImageCount ? std::min(caps.minImageCount + 1, caps.maxImageCount) : caps.minImageCount + 1;
    sci.imageFormat = presentFormat_;
    sci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    sci.imageExtent = {width_, height_};
    sci.imageArrayLayers = 1;
    sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                     (canReadSwapchain_ ? VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_SRC_BIT) : 0u);
    sci.preTransform = caps.currentTransform;
    sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;  // always supported
    sci.clipped = VK_TRUE;
    VK(vkCreateSwapchainKHR(device_, &sci, nullptr, &swapchain_));
    uint32_t n = 0;
    vkGetSwapchainImagesKHR(device_, swapchain_, &n, nullptr);
    presentImages_.resize(n);
    vkGetSwapchainImagesKHR(device_, swapchain_, &n, presentImages_.data());
    for (VkImage img : presentImages_) {
      VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
      vci.image = img;
      vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
      vci.format = presentFormat_;
      vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      VkImageView view;
      VK(vkCreateImageView(device_, &vci, nullptr, &view));
      presentViews_.push_back(view);
    }
  } else {
    width_ = opt_.width;
    height_ = opt_.height;
    offscreen_ = makeImage(presentFormat_, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    presentImages_ = {offscreen_.image};
    presentViews_ = {offscreen_.view};
  }
  hdr_ = makeImage(hdrFormat_, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fci.renderPass = particlePass_;
  fci.attachmentCount = 1;
  fci.pAttachments = &hdr_.view;
  fci.width = width_;
  fci.height = height_;
  fci.layers = 1;
  VK(vkCreateFramebuffer(device_, &fci, nullptr, &hdrFramebuffer_));
  fci.renderPass = overlayPass_;
  for (VkImageView& view : presentViews_) {
    fci.pAttachments = &view;
    VkFramebuffer fb;
    VK(vkCreateFramebuffer(device_, &fci, nullptr, &fb));
    presentFramebuffers_.push_back(fb);
  }
  pixels_ = makeBuffer(VkDeviceSize(width_) * height_ * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
}

void Viewer::destroyTargets() {
  for (VkFramebuffer fb : presentFramebuffers_) vkDestroyFramebuffer(device_, fb, nullptr);
  presentFramebuffers_.clear();
  vkDestroyFramebuffer(device_, hdrFramebuffer_, nullptr);
  destroyImage(hdr_);
  destroyBuffer(pixels_);
  if (swapchain_) {
    for (VkImageView v : presentViews_) vkDestroyImageView(device_, v, nullptr);
    vkDestroySwapchainKHR(device_, swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
  } else {
    destroyImage(offscreen_);
  }
  presentViews_.clear();
  presentImages_.clear();
}

void Viewer::initImGui() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::StyleColorsDark();
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                  nullptr,
                                  VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                                  4,
                                  1,
                                  &size};
  VK(vkCreateDescriptorPool(device_, &dpci, nullptr, &imguiPool_));
  if (window_) ImGui_ImplGlfw_InitForVulkan(window_, true);
  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = instance_;
  info.PhysicalDevice = gpu_;
  info.Device = device_;
  info.QueueFamily = family_;
  info.Queue = queue_;
  info.DescriptorPool = imguiPool_;
  info.MinImageCount = 2;
  info.ImageCount = 2;  // one frame in flight: two sets of ImGui vertex buffers are plenty
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  ImGui_ImplVulkan_Init(&info, overlayPass_);
  VkCommandBuffer cmd = beginOneTime();
  ImGui_ImplVulkan_CreateFontsTexture(cmd);
  endOneTime(cmd);
  ImGui_ImplVulkan_DestroyFontUploadObjects();
}

void Viewer::fillPush(Push* p) const {
  const Camera& c = camera_;
  for (int i = 0; i < 3; ++i) {
    p->eye[i] = c.eye[i];
    p->right[i] = c.right[i];
    p->up[i] = c.up[i];
    p->forward[i] = c.forward[i];
  }
  p->eye[3] = c.nearZ;
  p->right[3] = c.farZ;
  p->up[3] = particleRadius(opt_.particles);
  p->forward[3] = 0.85f;  // opacity at the centre
  p->focal[0] = c.fx;
  p->focal[1] = c.fy;
  p->count = uint32_t(active_);
  p->keyMode = keyMode_ == 0 ? 0u : 1u;
  p->particles = particleBuf_.address;
  p->keys = keys_.address;
  p->values = values_.address;
  p->emitterCount = emitterCount_;
  p->segmentBase = 0;  // set per draw
  p->emitters = emitters_.address;
}

const char* const kKeyModes[4] = {"32 bits: f32 view depth", "24 bits: u32 depth, bits [8, 32)",
                                  "16 bits: u32 depth, bits [16, 32)", "8 bits: u32 depth, bits [24, 32)"};

// This frame's segments and draw order. The active particles (the slider) are shared among the
// emitters by their sizes; segment e of the keys and ids holds emitter e's active particles, so
// the CSR offsets are the prefix sums of those counts (recordFrame writes them to the GPU).
void Viewer::planFrame() {
  const uint32_t total = uint32_t(active_);
  uint32_t given = 0;
  for (uint32_t e = 0; e < emitterCount_; ++e)
    given += activeOf_[e] = uint32_t(uint64_t(size_[e]) * total / opt_.particles);
  for (uint32_t e = 0; e < emitterCount_ && given < total; ++e) {  // the rounding's remainder
    const uint32_t more = std::min(total - given, size_[e] - activeOf_[e]);
    activeOf_[e] += more;
    given += more;
  }
  offsets_[0] = 0;
  for (uint32_t e = 0; e < emitterCount_; ++e) offsets_[e + 1] = offsets_[e] + activeOf_[e];
  // The emitters are drawn by the view depth of their centres, farthest first (see recordFrame).
  float depth[kMaxEmitters];
  for (uint32_t e = 0; e < emitterCount_; ++e) {
    depth[e] = 0;
    for (int k = 0; k < 3; ++k) depth[e] += (kEmitters[e].center[k] - camera_.eye[k]) * camera_.forward[k];
    order_[e] = e;
  }
  std::stable_sort(order_, order_ + emitterCount_, [&depth](uint32_t a, uint32_t b) { return depth[a] > depth[b]; });
}

// The frame's one sort: every active particle's key and id, one segment per emitter.
VksortSegmentedSortInfo Viewer::sortInfo() const {
  VksortSegmentedSortInfo ssi{};
  VksortSortInfo& si = ssi.sort;
  si.count = uint32_t(active_);  // the keys the segments cover: the active particles, visible or culled
  si.keys = {keys_.buffer, 0, req_.keysSize};
  si.alt = {alt_.buffer, 0, req_.altSize};
  si.values = {values_.buffer, 0, req_.valuesSize};
  si.altValues = {altValues_.buffer, 0, req_.valuesSize};
  si.temp = {temp_.buffer, 0, req_.tempSize};
  si.descending = VK_TRUE;  // far first; culled particles (key 0) last
  if (keyMode_ > 0) {
    si.beginBit = uint32_t(8 * keyMode_);  // the top 24, 16 or 8 bits of the quantised depth
    si.endBit = 32;
  }
  si.timestampQueryPool = queries_;
  si.firstTimestampQuery = 2;
  ssi.segmentCount = emitterCount_;
  ssi.segmentOffsets = {emitters_.buffer, offsetof(EmitterTable, segmentOffsets),
                        VkDeviceSize(emitterCount_ + 1) * sizeof(uint32_t)};
  return ssi;
}

void Viewer::buildOverlay() {
  if (window_) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(width_), float(height_));
    io.DeltaTime = 1.0f / 60.0f;
  }
  ImGui_ImplVulkan_NewFrame();
  // An auto-sized window is measured in its first frame and drawn from the second: build the very
  // first frame twice, so that even a single headless frame shows the overlay.
  for (int pass = ImGui::GetFrameCount() == 0 ? 0 : 1; pass < 2; ++pass) {
    ImGui::NewFrame();
    buildWindow();
    if (pass == 0) ImGui::EndFrame();
  }
  ImGui::Render();
}

void Viewer::buildWindow() {
  if (showOverlay_) {
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_Always);
    ImGui::Begin("vksort viewer", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove);
    ImGui::Text("%s", props_.deviceName);
    ImGui::Text("particles: %d active in %u emitters, %u visible after culling", active_, emitterCount_, visible_);
    if (timestamps_)
      ImGui::Text("GPU ms: cull %.3f  sort %.3f  draw %.3f", cullMs_, sortMs_, drawMs_);
    else
      ImGui::Text("GPU ms: (no timestamps on this queue)");
    const VksortSegmentedSortInfo ssi = sortInfo();
    VksortSegmentedSortPlan plan{};
    if (vksortGetSegmentedSortPlan(keyMode_ == 0 ? sorterF32_ : sorterU32_, &ssi, &plan) != VKSORT_SUCCESS)
      die(vksortGetLastError());
    ImGui::Text("vksort segmented sort: %u segments (1 per emitter), %s keys, bits [%u, 32),", emitterCount_,
                keyMode_ == 0 ? "f32" : "u32", ssi.sort.beginBit);
    ImGui::Text("descending (far first), u32 particle ids as values, culled ones last");
    ImGui::Text("by size: <= %u keys a subgroup, <= %u a workgroup, else %u radix pass%s over tiles", plan.tinyMaxCount,
                plan.mediumMaxCount, plan.passes, plan.passes == 1 ? "" : "es");
    ImGui::Text("emitters (segments), drawn farthest first by the depth of their centre:");
    for (uint32_t k = 0; k < emitterCount_; ++k) {
      const uint32_t e = order_[k], n = activeOf_[e], c = kEmitters[e].color;
      const ImVec4 tint(float(c & 255u) / 255, float((c >> 8) & 255u) / 255, float((c >> 16) & 255u) / 255, 1);
      ImGui::TextColored(tint, "  %-7s %8u keys, %-9s %8u visible", kEmitters[e].name, n,
                         n == 0                     ? "empty"
                         : n <= plan.tinyMaxCount   ? "subgroup"
                         : n <= plan.mediumMaxCount ? "workgroup"
                                                    : "radix",
                         visibleOf_[e]);
    }
    ImGui::Checkbox("sort back to front (off: blending artefacts)", &sort_);
    ImGui::Combo("key bits", &keyMode_, kKeyModes, 4);
    ImGui::SliderInt("particles", &active_, 1, int(opt_.particles), "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("rotate camera", &rotate_);
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    overlayRect_[0] = pos.x, overlayRect_[1] = pos.y, overlayRect_[2] = size.x, overlayRect_[3] = size.y;
    ImGui::End();
  }
}

void Viewer::recordFrame(VkCommandBuffer cmd, uint32_t imageIndex, bool readback) {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                              VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK(vkBeginCommandBuffer(cmd, &bi));
  if (queries_) {
    vkCmdResetQueryPool(cmd, queries_, 0, 5);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  }

  // The previous frame's draw, sort and copies are done with these buffers before we write them
  // again (with one frame in flight the fence already ensures it; with several, this barrier does).
  barrier(cmd,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
              VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  // The emitter table: this frame's segment offsets (planFrame) and zeroed counters.
  EmitterTable table{};
  for (VkDrawIndirectCommand& d : table.draws) d = {6, 0, 0, 0};  // 6 vertices per quad; instanceCount: the cull's
  std::memcpy(table.firstParticle, first_, sizeof first_);
  std::memcpy(table.segmentOffsets, offsets_, sizeof offsets_);
  vkCmdUpdateBuffer(cmd, emitters_.buffer, 0, sizeof table, &table);
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);

  // 1. Culling: each emitter's keys and particle ids into its segment, visible ones first, and
  // its visible count into its draw.
  Push push;
  fillPush(&push);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, cull_);
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, (uint32_t(active_) + 255) / 256, 1, 1);
  if (queries_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_, 1);

  // vksort.h, "Before the sort": the keys and values written above (and the segment offsets,
  // written by the update before the culling pass and made visible by the barrier after it) must
  // be visible to COMPUTE_SHADER (read and write); earlier uses of alt, altValues and temp must be
  // done before COMPUTE_SHADER | TRANSFER (the first barrier of the frame covers those). The same
  // barrier makes the visible counts visible to the indirect draws and to the stats copy.
  barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
              VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
              VK_ACCESS_TRANSFER_READ_BIT);

  // 2. The sort: one segmented sort, one segment per emitter, descending depth within each.
  VkDeviceAddress sortedIds = values_.address;
  if (sort_) {
    const VksortSegmentedSortInfo ssi = sortInfo();
    if (vksortRecordSegmentedSort(keyMode_ == 0 ? sorterF32_ : sorterU32_, cmd, &ssi, &where_) != VKSORT_SUCCESS)
      die(vksortGetLastError());
    sortedIds = where_ == VKSORT_RESULT_IN_KEYS ? values_.address : altValues_.address;
    // vksort.h, "After the sort": the results were last written by COMPUTE_SHADER (SHADER_WRITE);
    // the vertex shader reads the sorted ids.
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT);
  } else if (queries_) {
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_, 3);
  }

  // 3. The particles, back to front, into the HDR target (float blending, no 8-bit rounding per layer).
  VkClearValue clear{};
  clear.color = {{kBackground[0], kBackground[1], kBackground[2], 1.0f}};
  VkRenderPassBeginInfo rpbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                             nullptr,
                             particlePass_,
                             hdrFramebuffer_,
                             {{0, 0}, {width_, height_}},
                             1,
                             &clear};
  vkCmdBeginRenderPass(cmd, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
  const VkViewport viewport{0, 0, float(width_), float(height_), 0, 1};
  const VkRect2D scissor{{0, 0}, {width_, height_}};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw_);
  push.values = sortedIds;  // vksort left the push constants undefined: push them again
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
  // One draw per emitter, each back to front within itself (its sorted segment). The emitters go
  // in camera order, farthest centre first (planFrame), not in a fixed order: with a fixed order,
  // from half of the viewpoints a far emitter would be drawn over a near one wherever the two
  // overlap on screen. Drawing whole emitters one after the other is right as long as no two of
  // them interleave in depth where they overlap on screen. That is what makes it fine for this
  // demo: its emitters are convex clouds of similar sizes that share no volume (kEmitters:
  // ellipsoids cut off at kCutoff sigmas that never meet), so one is entirely behind the other
  // along every line of sight through both, and their centres' depths order them so from every
  // viewpoint the camera takes. Emitters that share volume (smoke through fire) would need all
  // their particles in one sort: --emitters 1. --check composites the emitters in this same order.
  for (uint32_t k = 0; k < emitterCount_; ++k) {
    const uint32_t e = order_[k];
    if (activeOf_[e] == 0) continue;
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT,
                       offsetof(Push, segmentBase), sizeof(uint32_t), &offsets_[e]);
    vkCmdDrawIndirect(cmd, emitters_.buffer, e * sizeof(VkDrawIndirectCommand), 1, sizeof(VkDrawIndirectCommand));
  }
  vkCmdEndRenderPass(cmd);
  if (queries_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, queries_, 4);

  // 4. Blit (float to 8 bits) into the image we show, then the overlay on top.
  VkImage target = presentImages_[imageIndex];
  imageBarrier(cmd, target, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkImageBlit blit{};
  blit.srcSubresource = blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  blit.srcOffsets[1] = blit.dstOffsets[1] = {int32_t(width_), int32_t(height_), 1};
  vkCmdBlitImage(cmd, hdr_.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                 &blit, VK_FILTER_NEAREST);
  rpbi.renderPass = overlayPass_;
  rpbi.framebuffer = presentFramebuffers_[imageIndex];
  rpbi.clearValueCount = 0;
  vkCmdBeginRenderPass(cmd, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
  ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
  vkCmdEndRenderPass(cmd);

  // 5. Copies for the host: the visible counts (the draws), and the frame when asked.
  VkBufferCopy copy{offsetof(EmitterTable, draws), 0, sizeof(EmitterTable::draws)};
  vkCmdCopyBuffer(cmd, emitters_.buffer, stats_.buffer, 1, &copy);
  if (readback) {
    VkBufferImageCopy bic{};
    bic.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    bic.imageExtent = {width_, height_, 1};
    vkCmdCopyImageToBuffer(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels_.buffer, 1, &bic);
  }
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  if (swapchain_)
    imageBarrier(cmd, target, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0,
                 VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
  VK(vkEndCommandBuffer(cmd));
}

std::vector<uint8_t> Viewer::readbackPixels() const {
  std::vector<uint8_t> rgba(size_t(width_) * height_ * 4);
  std::memcpy(rgba.data(), pixels_.mapped, rgba.size());
  if (presentFormat_ == VK_FORMAT_B8G8R8A8_UNORM || presentFormat_ == VK_FORMAT_B8G8R8A8_SRGB)
    for (size_t i = 0; i < rgba.size(); i += 4) std::swap(rgba[i], rgba[i + 2]);
  return rgba;
}

// The CPU reference: the same visible particles (same culling test), emitter by emitter in the
// order of the draws, each emitter's sorted far to near on the CPU, composited "over" the
// background at pixel centres with the shaders' opacity profile.
bool Viewer::checkAgainstCpu(const std::vector<uint8_t>& rgba) {
  struct Splat {
    float x, y, z;
    float rgb[3];
  };
  Push p;
  fillPush(&p);
  const float radius = p.up[3], opacity = p.forward[3];
  std::vector<Splat> splats;
  for (uint32_t n = 0; n < emitterCount_; ++n) {
    const uint32_t e = order_[n];
    const size_t begin = splats.size();
    for (uint32_t i = first_[e]; i < first_[e] + activeOf_[e]; ++i) {
      float d[3], v[3];
      for (int k = 0; k < 3; ++k) d[k] = particles_[i].position[k] - p.eye[k];
      v[0] = d[0] * p.right[0] + d[1] * p.right[1] + d[2] * p.right[2];
      v[1] = d[0] * p.up[0] + d[1] * p.up[1] + d[2] * p.up[2];
      v[2] = d[0] * p.forward[0] + d[1] * p.forward[1] + d[2] * p.forward[2];
      if (v[2] < camera_.nearZ || v[2] > camera_.farZ || std::fabs(v[0]) - radius > v[2] / p.focal[0] ||
          std::fabs(v[1]) - radius > v[2] / p.focal[1])
        continue;
      Splat s{v[0], v[1], v[2], {}};
      for (int ch = 0; ch < 3; ++ch) s.rgb[ch] = float((particles_[i].color >> (8 * ch)) & 255u) / 255.0f;
      splats.push_back(s);
    }
    std::stable_sort(splats.begin() + std::ptrdiff_t(begin), splats.end(),
                     [](const Splat& a, const Splat& b) { return a.z > b.z; });
  }
  const int gx = 32, gy = 18;
  double maxErr = 0, sumErr = 0;
  int samples = 0;
  for (int j = 0; j < gy; ++j)
    for (int i = 0; i < gx; ++i) {
      const uint32_t px = uint32_t((float(i) + 0.5f) * float(width_) / gx),
                     py = uint32_t((float(j) + 0.5f) * float(height_) / gy);
      if (float(px) >= overlayRect_[0] - 2 && float(px) <= overlayRect_[0] + overlayRect_[2] + 2 &&
          float(py) >= overlayRect_[1] - 2 && float(py) <= overlayRect_[1] + overlayRect_[3] + 2)
        continue;  // under the ImGui window
      const float nx = (float(px) + 0.5f) / float(width_) * 2 - 1, ny = (float(py) + 0.5f) / float(height_) * 2 - 1;
      float c[3] = {kBackground[0], kBackground[1], kBackground[2]};
      for (const Splat& s : splats) {
        const float u = (nx * s.z / p.focal[0] - s.x) / radius, w = (-ny * s.z / p.focal[1] - s.y) / radius;
        const float r2 = u * u + w * w;
        if (r2 >= 1.0f) continue;
        const float a = opacity * (1 - r2) * (1 - r2);
        for (int ch = 0; ch < 3; ++ch) c[ch] = c[ch] * (1 - a) + s.rgb[ch] * a;
      }
      for (int ch = 0; ch < 3; ++ch) {
        const double err = std::fabs(double(rgba[(size_t(py) * width_ + px) * 4 + size_t(ch)]) -
                                     double(std::min(std::max(c[ch], 0.0f), 1.0f)) * 255.0);
        maxErr = std::max(maxErr, err);
        sumErr += err;
      }
      ++samples;
    }
  const double tolerance = 4.0;  // in 8-bit steps: the target blends in half floats, the blit rounds
  const bool ok = samples > 0 && maxErr <= tolerance;
  std::printf(
      "check: %d pixels against a CPU reference of %zu visible particles in %u emitters, each sorted on the "
      "CPU, in the draws' order: max error %.2f, mean %.3f (of 255; tolerance %.1f): %s\n",
      samples, splats.size(), emitterCount_, maxErr, samples ? sumErr / (3.0 * samples) : 0.0, tolerance,
      ok ? "PASS" : "FAIL");
  return ok;
}

int Viewer::run() {
  createInstanceAndDevice();
  if (window_) {
    // Prefer an 8-bit UNORM swapchain format (the blit converts from the float target).
    uint32_t n = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(gpu_, surface_, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vkGetPhysicalDeviceSurfaceFormatsKHR(gpu_, surface_, &n, formats.data());
    presentFormat_ = formats.at(0).format;
    for (const VkSurfaceFormatKHR& f : formats)
      if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) presentFormat_ = f.format;
  }
  createBuffers();
  createPipelines();
  createTargets();
  initImGui();
  sort_ = opt_.sort;
  keyMode_ = opt_.keyBits == 32 ? 0 : opt_.keyBits == 24 ? 1 : opt_.keyBits == 16 ? 2 : 3;
  active_ = int(opt_.particles);
  rotate_ = !opt_.headless;
  std::printf("vksort_viewer: %s, %u particles in %u emitters (", props_.deviceName, opt_.particles, emitterCount_);
  for (uint32_t e = 0; e < emitterCount_; ++e) std::printf("%s%s %u", e ? ", " : "", kEmitters[e].name, size_[e]);
  std::printf("), one segmented sort per frame, %ux%u, %s\n", width_, height_, opt_.headless ? "headless" : "windowed");

  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool_,
                                 VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cmd;
  VK(vkAllocateCommandBuffers(device_, &ai, &cmd));
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  VK(vkCreateFence(device_, &fci, nullptr, &fence));
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore acquired, rendered;
  VK(vkCreateSemaphore(device_, &sci, nullptr, &acquired));
  VK(vkCreateSemaphore(device_, &sci, nullptr, &rendered));

  const int frames = opt_.frames > 0 ? opt_.frames : (opt_.headless ? 1 : 0);
  bool ok = true;
  double sortSum = 0;
  int framesDone = 0;
  auto last = std::chrono::steady_clock::now();
  for (int frame = 0; frames == 0 || frame < frames; ++frame) {
    const bool lastFrame = frames > 0 && frame == frames - 1;
    uint32_t imageIndex = 0;
    if (window_) {
      glfwPollEvents();
      if (glfwWindowShouldClose(window_)) break;
      VkResult r = vkAcquireNextImageKHR(device_, swapchain_, kFenceTimeoutNs, acquired, VK_NULL_HANDLE, &imageIndex);
      if (r == VK_ERROR_OUT_OF_DATE_KHR) {  // resized: rebuild the targets and try again
        vkDeviceWaitIdle(device_);
        destroyTargets();
        createTargets();
        --frame;
        continue;
      }
      if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) die("vkAcquireNextImageKHR = " + std::to_string(r));
    }
    const auto now = std::chrono::steady_clock::now();
    if (rotate_) angle_ += 0.3f * std::chrono::duration<float>(now - last).count();
    last = now;
    if (opt_.headless) angle_ = 0.6f + 0.05f * float(frame);  // deterministic frames
    camera_ = makeCamera(angle_, width_, height_);
    planFrame();
    buildOverlay();
    const bool readback = lastFrame && (!opt_.out.empty() || opt_.check) && (!window_ || canReadSwapchain_);
    recordFrame(cmd, imageIndex, readback);

    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;  // the blit is the first write
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    if (window_) {
      si.waitSemaphoreCount = 1;
      si.pWaitSemaphores = &acquired;
      si.pWaitDstStageMask = &waitStage;
      si.signalSemaphoreCount = 1;
      si.pSignalSemaphores = &rendered;
    }
    VK(vkQueueSubmit(queue_, 1, &si, fence));
    if (window_) {
      VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, nullptr, 1, &rendered, 1, &swapchain_, &imageIndex};
      const VkResult r = vkQueuePresentKHR(queue_, &pi);
      if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR)
        die("vkQueuePresentKHR = " + std::to_string(r));
    }
    if (vkWaitForFences(device_, 1, &fence, VK_TRUE, kFenceTimeoutNs) != VK_SUCCESS)
      die("the frame did not finish within 60 s");
    VK(vkResetFences(device_, 1, &fence));

    visible_ = 0;
    for (uint32_t e = 0; e < emitterCount_; ++e)
      visible_ += visibleOf_[e] = static_cast<const VkDrawIndirectCommand*>(stats_.mapped)[e].instanceCount;
    if (queries_) {
      uint64_t t[5];
      VK(vkGetQueryPoolResults(device_, queries_, 0, 5, sizeof t, t, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT));
      const double ms = double(props_.limits.timestampPeriod) * 1e-6;
      cullMs_ = double(t[1] - t[0]) * ms;
      sortMs_ = double(t[3] - t[2]) * ms;
      drawMs_ = double(t[4] - t[3]) * ms;
      sortSum += sortMs_;
      ++framesDone;
    }
    if (opt_.headless || frames > 0)
      std::printf("frame %d: %u of %d visible, cull %.2f ms, sort %.2f ms (%s%u segments, %s), draw %.2f ms\n", frame,
                  visible_, active_, cullMs_, sortMs_, sort_ ? "segmented, " : "sort off: ", emitterCount_,
                  kKeyModes[keyMode_], drawMs_);
    if (readback) {
      const std::vector<uint8_t> rgba = readbackPixels();
      if (!opt_.out.empty()) {
        if (!stbi_write_png(opt_.out.c_str(), int(width_), int(height_), 4, rgba.data(), int(width_) * 4))
          die("cannot write " + opt_.out);
        std::printf("wrote %s\n", opt_.out.c_str());
      }
      if (opt_.check) ok = checkAgainstCpu(rgba) && ok;
    } else if (lastFrame && (!opt_.out.empty() || opt_.check)) {
      std::printf("the swapchain images cannot be copied: no --out or --check in windowed mode\n");
    }
  }

  if (framesDone > 0 && sort_)
    std::printf("mean segmented sort time over %d frames (%u segments): %.3f ms\n", framesDone, emitterCount_,
                sortSum / framesDone);
  vkDeviceWaitIdle(device_);
  ImGui_ImplVulkan_Shutdown();
  if (window_) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  vkDestroySemaphore(device_, acquired, nullptr);
  vkDestroySemaphore(device_, rendered, nullptr);
  vkDestroyFence(device_, fence, nullptr);
  destroyTargets();
  vkDestroyDescriptorPool(device_, imguiPool_, nullptr);
  vkDestroyPipeline(device_, cull_, nullptr);
  vkDestroyPipeline(device_, draw_, nullptr);
  vkDestroyPipelineLayout(device_, layout_, nullptr);
  vkDestroyRenderPass(device_, particlePass_, nullptr);
  vkDestroyRenderPass(device_, overlayPass_, nullptr);
  if (queries_) vkDestroyQueryPool(device_, queries_, nullptr);
  for (Buffer* b : {&particleBuf_, &keys_, &alt_, &values_, &altValues_, &temp_, &emitters_, &stats_})
    destroyBuffer(*b);
  vksortDestroySorter(sorterF32_);
  vksortDestroySorter(sorterU32_);
  vkDestroyCommandPool(device_, pool_, nullptr);
  vkDestroyDevice(device_, nullptr);
  if (surface_) vkDestroySurfaceKHR(instance_, surface_, nullptr);
  vkDestroyInstance(instance_, nullptr);
  if (window_) {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--particles")
      o.particles = uint32_t(std::strtoul(next(), nullptr, 0));
    else if (a == "--emitters")
      o.emitters = uint32_t(std::strtoul(next(), nullptr, 0));
    else if (a == "--frames")
      o.frames = std::atoi(next());
    else if (a == "--width")
      o.width = uint32_t(std::strtoul(next(), nullptr, 0));
    else if (a == "--height")
      o.height = uint32_t(std::strtoul(next(), nullptr, 0));
    else if (a == "--key-bits")
      o.keyBits = std::atoi(next());
    else if (a == "--no-sort")
      o.sort = false;
    else if (a == "--headless")
      o.headless = true;
    else if (a == "--out")
      o.out = next();
    else if (a == "--check")
      o.check = true;
    else {
      std::printf(
          "usage: vksort_viewer [--particles N] [--emitters E] [--frames F] [--width W] [--height H]\n"
          "                     [--key-bits 32|24|16|8] [--no-sort] [--headless] [--out FILE.png] [--check]\n"
          "Particles from E emitters (1 ... %u, default 6), depth-sorted by one vksort segmented sort per frame,\n"
          "one segment per emitter.\n",
          kMaxEmitters);
      return a == "--help" ? 0 : 2;
    }
  }
  if (o.particles < 1 || o.particles > VKSORT_MAX_COUNT) die("--particles must be 1 ... 2^30");
  if (o.emitters < 1 || o.emitters > kMaxEmitters) die("--emitters must be 1 ... " + std::to_string(kMaxEmitters));
  if (o.keyBits != 32 && o.keyBits != 24 && o.keyBits != 16 && o.keyBits != 8) die("--key-bits: 32, 24, 16 or 8");
  if (o.width < 64 || o.height < 64 || o.width > 8192 || o.height > 8192) die("--width/--height: 64 ... 8192");
  Viewer viewer(o);
  return viewer.run();
}

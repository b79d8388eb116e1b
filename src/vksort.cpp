// vksort dispatcher: checks the device and the caller's arguments, plans a
// sort (tile count, passes, workgroup counts) and records it. Data flows one
// way: API call -> plan -> recorded dispatches and barriers -> shaders.
#include "vksort/vksort.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "portable.h"
#include "push.h"
#include "vksort_bitonic_spv.h"
#include "vksort_histogram_spv.h"
#include "vksort_onesweep_spv.h"
#include "vksort_portable_count_spv.h"
#include "vksort_portable_scan_spv.h"
#include "vksort_portable_scatter_spv.h"

namespace {

// ---------------------------------------------------------------------------
// Errors: a per-thread message, like errno, so that concurrent recording on
// one sorter needs no lock.
// ---------------------------------------------------------------------------
thread_local char tLastError[512];

VksortResult fail(VksortResult code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(tLastError, sizeof tLastError, fmt, args);
  va_end(args);
  return code;
}

void clearError() { tLastError[0] = '\0'; }

static_assert(sizeof(VksortPush) == 112, "push constants must match the GLSL std430 layout");

constexpr VkDeviceSize kTempAlignment = 16;
constexpr uint32_t kBitonicDefaultNvidia = 2048;      // VksortTuning::bitonicMaxCount
constexpr uint32_t kBitonicKeysDefaultNvidia = 4096;  // VksortTuning::bitonicKeysMaxCount
constexpr uint32_t kHistogramWorkgroupSize = 256;     // at most: see Shape::histogramWorkgroupSize
constexpr uint32_t kHistogramKeysPerInvocation = 16;  // before adding another persistent workgroup
constexpr uint32_t kHistogramMaxLoop = 2048;          // grid-stride steps per invocation, at most

// ---------------------------------------------------------------------------
// Function loading (the library is built with VK_NO_PROTOTYPES).
// ---------------------------------------------------------------------------
struct InstanceFunctions {
  PFN_vkGetPhysicalDeviceProperties2 getPhysicalDeviceProperties2 = nullptr;
  PFN_vkGetPhysicalDeviceFeatures2 getPhysicalDeviceFeatures2 = nullptr;
  PFN_vkGetDeviceProcAddr getDeviceProcAddr = nullptr;
};

struct DeviceFunctions {
  PFN_vkCreateShaderModule createShaderModule;
  PFN_vkDestroyShaderModule destroyShaderModule;
  PFN_vkCreatePipelineLayout createPipelineLayout;
  PFN_vkDestroyPipelineLayout destroyPipelineLayout;
  PFN_vkCreateComputePipelines createComputePipelines;
  PFN_vkDestroyPipeline destroyPipeline;
  PFN_vkGetBufferDeviceAddress getBufferDeviceAddress;
  PFN_vkCmdBindPipeline cmdBindPipeline;
  PFN_vkCmdPushConstants cmdPushConstants;
  PFN_vkCmdDispatch cmdDispatch;
  PFN_vkCmdPipelineBarrier cmdPipelineBarrier;
  PFN_vkCmdFillBuffer cmdFillBuffer;
  PFN_vkCmdWriteTimestamp cmdWriteTimestamp;
  // VK_EXT_debug_utils, loaded only when VksortCreateInfo::debugLabels is set.
  PFN_vkCmdBeginDebugUtilsLabelEXT cmdBeginDebugUtilsLabel;
  PFN_vkCmdEndDebugUtilsLabelEXT cmdEndDebugUtilsLabel;
};

VksortResult loadInstanceFunctions(VkInstance instance, PFN_vkGetInstanceProcAddr gipa, InstanceFunctions* f) {
  if (!gipa) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pfnGetInstanceProcAddr is null");
  f->getPhysicalDeviceProperties2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(gipa(instance, "vkGetPhysicalDeviceProperties2"));
  f->getPhysicalDeviceFeatures2 =
      reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(gipa(instance, "vkGetPhysicalDeviceFeatures2"));
  f->getDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(gipa(instance, "vkGetDeviceProcAddr"));
  if (!f->getPhysicalDeviceProperties2 || !f->getPhysicalDeviceFeatures2 || !f->getDeviceProcAddr)
    return fail(
        VKSORT_ERROR_DEVICE_NOT_SUPPORTED,
        "vkGetPhysicalDeviceProperties2/Features2 not found: the instance must be created with apiVersion >= 1.3");
  return VKSORT_SUCCESS;
}

VksortResult loadDeviceFunctions(VkDevice device, PFN_vkGetDeviceProcAddr gdpa, DeviceFunctions* f) {
  struct Entry {
    const char* name;
    PFN_vkVoidFunction* slot;
  };
  const Entry entries[] = {
      {"vkCreateShaderModule", reinterpret_cast<PFN_vkVoidFunction*>(&f->createShaderModule)},
      {"vkDestroyShaderModule", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyShaderModule)},
      {"vkCreatePipelineLayout", reinterpret_cast<PFN_vkVoidFunction*>(&f->createPipelineLayout)},
      {"vkDestroyPipelineLayout", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyPipelineLayout)},
      {"vkCreateComputePipelines", reinterpret_cast<PFN_vkVoidFunction*>(&f->createComputePipelines)},
      {"vkDestroyPipeline", reinterpret_cast<PFN_vkVoidFunction*>(&f->destroyPipeline)},
      {"vkGetBufferDeviceAddress", reinterpret_cast<PFN_vkVoidFunction*>(&f->getBufferDeviceAddress)},
      {"vkCmdBindPipeline", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdBindPipeline)},
      {"vkCmdPushConstants", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdPushConstants)},
      {"vkCmdDispatch", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdDispatch)},
      {"vkCmdPipelineBarrier", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdPipelineBarrier)},
      {"vkCmdFillBuffer", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdFillBuffer)},
      {"vkCmdWriteTimestamp", reinterpret_cast<PFN_vkVoidFunction*>(&f->cmdWriteTimestamp)},
  };
  for (const Entry& e : entries) {
    *e.slot = gdpa(device, e.name);
    if (!*e.slot) return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device function %s not found", e.name);
  }
  return VKSORT_SUCCESS;
}

// ---------------------------------------------------------------------------
// Device capabilities.
// ---------------------------------------------------------------------------
struct DeviceInfo {
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceVulkan11Properties props11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties props12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan13Properties props13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
};

// The required feature bits, in one place: the support check, the enabled
// check and vksortEnableRequiredFeatures all walk this list.
struct FeatureSet {
  bool shaderInt64 = false;
  bool bufferDeviceAddress = false;
  bool shaderBufferInt64Atomics = false;
  bool vulkanMemoryModel = false;
  bool vulkanMemoryModelDeviceScope = false;
  bool subgroupSizeControl = false;
  bool computeFullSubgroups = false;
};

template <typename Fn>
void forEachRequiredFeature(FeatureSet& s, Fn fn) {
  fn("VkPhysicalDeviceFeatures::shaderInt64", s.shaderInt64);
  fn("VkPhysicalDeviceVulkan12Features::bufferDeviceAddress", s.bufferDeviceAddress);
  fn("VkPhysicalDeviceVulkan12Features::shaderBufferInt64Atomics", s.shaderBufferInt64Atomics);
  fn("VkPhysicalDeviceVulkan12Features::vulkanMemoryModel", s.vulkanMemoryModel);
  fn("VkPhysicalDeviceVulkan12Features::vulkanMemoryModelDeviceScope", s.vulkanMemoryModelDeviceScope);
  fn("VkPhysicalDeviceVulkan13Features::subgroupSizeControl", s.subgroupSizeControl);
  fn("VkPhysicalDeviceVulkan13Features::computeFullSubgroups", s.computeFullSubgroups);
}

FeatureSet featuresOf(const VkPhysicalDeviceFeatures& f, const VkPhysicalDeviceVulkan12Features& f12,
                      const VkPhysicalDeviceVulkan13Features& f13) {
  FeatureSet s;
  s.shaderInt64 = f.shaderInt64;
  s.bufferDeviceAddress = f12.bufferDeviceAddress;
  s.shaderBufferInt64Atomics = f12.shaderBufferInt64Atomics;
  s.vulkanMemoryModel = f12.vulkanMemoryModel;
  s.vulkanMemoryModelDeviceScope = f12.vulkanMemoryModelDeviceScope;
  s.subgroupSizeControl = f13.subgroupSizeControl;
  s.computeFullSubgroups = f13.computeFullSubgroups;
  return s;
}

// Reads what the caller enabled from its VkDeviceCreateInfo: the core
// structs or the per-extension structs that carry the same bits.
FeatureSet enabledFeatures(const VkDeviceCreateInfo& ci) {
  FeatureSet s;
  if (ci.pEnabledFeatures) s.shaderInt64 = ci.pEnabledFeatures->shaderInt64;
  for (auto* p = static_cast<const VkBaseInStructure*>(ci.pNext); p; p = p->pNext) {
    switch (p->sType) {
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
        s.shaderInt64 |= reinterpret_cast<const VkPhysicalDeviceFeatures2*>(p)->features.shaderInt64 != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(p);
        s.bufferDeviceAddress |= f->bufferDeviceAddress != 0;
        s.shaderBufferInt64Atomics |= f->shaderBufferInt64Atomics != 0;
        s.vulkanMemoryModel |= f->vulkanMemoryModel != 0;
        s.vulkanMemoryModelDeviceScope |= f->vulkanMemoryModelDeviceScope != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan13Features*>(p);
        s.subgroupSizeControl |= f->subgroupSizeControl != 0;
        s.computeFullSubgroups |= f->computeFullSubgroups != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
        s.bufferDeviceAddress |=
            reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(p)->bufferDeviceAddress != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES:
        s.shaderBufferInt64Atomics |=
            reinterpret_cast<const VkPhysicalDeviceShaderAtomicInt64Features*>(p)->shaderBufferInt64Atomics != 0;
        break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceVulkanMemoryModelFeatures*>(p);
        s.vulkanMemoryModel |= f->vulkanMemoryModel != 0;
        s.vulkanMemoryModelDeviceScope |= f->vulkanMemoryModelDeviceScope != 0;
        break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES: {
        auto* f = reinterpret_cast<const VkPhysicalDeviceSubgroupSizeControlFeatures*>(p);
        s.subgroupSizeControl |= f->subgroupSizeControl != 0;
        s.computeFullSubgroups |= f->computeFullSubgroups != 0;
        break;
      }
      default: break;
    }
  }
  return s;
}

constexpr VkSubgroupFeatureFlags kRequiredSubgroupOps = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                                        VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                                        VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
constexpr uint32_t kMinSharedMemory = 16 * 1024;

void queryDevice(const InstanceFunctions& fn, VkPhysicalDevice pd, DeviceInfo* info) {
  info->props.pNext = &info->props11;
  info->props11.pNext = &info->props12;
  info->props12.pNext = &info->props13;
  fn.getPhysicalDeviceProperties2(pd, &info->props);
  info->features.pNext = &info->features12;
  info->features12.pNext = &info->features13;
  fn.getPhysicalDeviceFeatures2(pd, &info->features);
}

// Appends "a, b, c" style lists into a fixed buffer.
struct List {
  char text[400] = {};
  int items = 0;
  void add(const char* item) {
    size_t len = std::strlen(text);
    std::snprintf(text + len, sizeof text - len, "%s%s", items++ ? ", " : "", item);
  }
};

VksortResult checkSupport(const DeviceInfo& info) {
  List missing;
  if (info.props.properties.apiVersion < VK_API_VERSION_1_3) missing.add("Vulkan 1.3");
  FeatureSet supported = featuresOf(info.features.features, info.features12, info.features13);
  forEachRequiredFeature(supported, [&](const char* name, bool& have) {
    if (!have) missing.add(name);
  });
  const uint32_t sg = info.props11.subgroupSize;
  if (sg < 4 || sg > 128 || (sg & (sg - 1)) != 0) missing.add("a subgroup size between 4 and 128");
  if (!(info.props11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) missing.add("subgroups in compute");
  if ((info.props11.subgroupSupportedOperations & kRequiredSubgroupOps) != kRequiredSubgroupOps)
    missing.add("subgroup operations BASIC, BALLOT, SHUFFLE and ARITHMETIC");
  if (info.props.properties.limits.maxComputeSharedMemorySize < kMinSharedMemory)
    missing.add("16 KiB of compute shared memory");
  if (missing.items)
    return fail(VKSORT_ERROR_DEVICE_NOT_SUPPORTED, "device '%s' cannot run vksort; it lacks: %s",
                info.props.properties.deviceName, missing.text);
  return VKSORT_SUCCESS;
}

// ---------------------------------------------------------------------------
// Tuning: the kernels' shape for a device, as specialization constants.
// ---------------------------------------------------------------------------
// A set of bitonic.comp kernels by capacity: kernel c sorts up to
// workgroupSize[c] x items[c] keys, half as many as kernel c - 1; workgroup
// size 0 = no kernel.
struct BitonicKernels {
  uint32_t workgroupSize[3];
  uint32_t items[3];
};

struct Shape {
  uint32_t keyWords;    // 1: 32-bit keys, 2: 64-bit keys
  uint32_t keyKind;     // KEY_KIND_* of common.glsl: 0 unsigned, 1 signed, 2 float
  uint32_t valueWords;  // 0: keys only, 1: 32-bit values (and argsort), 2: 64-bit values
  bool valueIndex;      // argsort
  uint32_t subgroupSize;
  bool statusRmw;        // status ring through read-modify-write atomics only (see status_ring.glsl)
  bool pinSubgroupSize;  // pass VkPipelineShaderStageRequiredSubgroupSizeCreateInfo
  VksortTuning t;
  uint32_t histogramWorkgroupSize;  // 256, or less where subgroups x maxComputeWorkgroupSubgroups is smaller
  uint32_t scanWorkgroupSize;       // the portable scan's (vksort::scanShape)
  uint32_t scanItems;
  bool smallInShared;  // the single-tile kernel keeps keys and values in shared memory (TILE_IN_SHARED)
  uint32_t maxShared;  // maxComputeSharedMemorySize
  // bitonic.comp: with the index (bitonicMaxCount: [0] that many keys, [1]
  // half as many) and without it (bitonicKeysMaxCount: [0], [1] half, [2] a
  // quarter).
  BitonicKernels bitonic;
  BitonicKernels bitonicKeys;
  uint32_t tileKeys() const { return t.workgroupSize * t.keysPerThread; }
  uint32_t smallKeys() const { return t.smallWorkgroupSize * t.smallKeysPerThread; }
  // Whether counts above smallKeys() and up to t.smallMaxCount (twice as
  // many) have a single-tile kernel of twice the small workgroup.
  bool hasLargeSingle() const { return t.smallMaxCount > smallKeys(); }
  bool hasMedium() const { return t.mediumMaxCount > t.smallMaxCount; }
  uint32_t keyBits() const { return 32 * keyWords; }
};

// Fills the key and value fields of a Shape from the create info.
// Reads a C enum field as the integer a C caller may have put there: an
// out-of-range value must be reported, and loading it as the C++ enum type
// would be undefined behaviour.
uint32_t enumValue(const void* field) {
  int32_t v;
  std::memcpy(&v, field, sizeof v);
  return uint32_t(v);
}

VksortResult chooseTypes(const VksortCreateInfo& ci, Shape* s) {
  static_assert(sizeof(VksortKeyType) == 4 && sizeof(VksortValueType) == 4, "C enums are 32-bit");
  const uint32_t key = enumValue(&ci.keyType), value = enumValue(&ci.valueType);
  if (key > VKSORT_KEY_F64) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "keyType %u is not a VksortKeyType", key);
  if (value > VKSORT_VALUE_INDEX)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "valueType %u is not a VksortValueType", value);
  s->keyWords = key >= VKSORT_KEY_U64 ? 2 : 1;
  s->keyKind = key % 3;  // U32/U64 -> 0, I32/I64 -> 1, F32/F64 -> 2
  s->valueWords = value == VKSORT_VALUE_64 ? 2 : value == VKSORT_VALUE_NONE ? 0 : 1;
  s->valueIndex = value == VKSORT_VALUE_INDEX;
  return VKSORT_SUCCESS;
}

// Shared memory of onesweep.comp, in bytes, for a shape (mirrors its shared
// declarations: sWork, sDigitBase, sTile, sScan, sScanTotals, and the
// look-back's sLookPrefix, sLookCount, sLookMissing). The portable scatter
// kernel needs less (no look-back, at most as many digits). itemWords: the
// 32-bit words sWork holds per key: the larger of the key and value sizes,
// 1 where 64-bit items are staged a word at a time (stageOneWord), or their
// sum where the single-tile kernel keeps keys and values there together
// between passes (TILE_IN_SHARED).
uint32_t onesweepSharedBytes(uint32_t wg, uint32_t kpt, uint32_t sg, uint32_t itemWords) {
  const uint32_t subgroups = wg / sg;
  const uint32_t tile = wg * kpt * itemWords, hist = subgroups * VKSORT_RADIX;
  const uint32_t words =
      (tile > hist ? tile : hist) + VKSORT_RADIX + 1 + VKSORT_RADIX + subgroups + 1 + 2 * VKSORT_RADIX + 2;
  return words * 4;
}

// Whether a kernel of this tile shape stages 64-bit keys and values through
// shared memory one word at a time (tile_sort.glsl, ONE_WORD_STAGING): only
// where both words would not fit, as the second round costs barriers.
bool stageOneWord(const Shape& sh, uint32_t wg, uint32_t kpt) {
  return (sh.keyWords == 2 || sh.valueWords == 2) && onesweepSharedBytes(wg, kpt, sh.subgroupSize, 2) > sh.maxShared;
}

// Shared memory of bitonic.comp, in bytes, for `capacity` keys of keyWords
// words, with or without their indices (mirrors its shared declarations and
// common.glsl's scan arrays).
uint32_t bitonicSharedBytes(uint32_t capacity, uint32_t wg, uint32_t sg, uint32_t keyWords, bool index) {
  const uint32_t indexWords = index ? capacity : 1;
  return (capacity * keyWords + indexWords + (keyWords == 2 ? 0 : 1) + VKSORT_RADIX + wg / sg + 1) * 4;
}

// The bitonic kernel's workgroup for a capacity class: two keys per
// invocation up to 512 invocations, more keys per invocation above (H100,
// 2,048 u32 keys: 512 x 4 12.5 us, 1024 x 2 13.2; 1,024 keys: 512 x 2 8.0-8.4,
// 256 x 4 8.0-8.1, but pairs 8.3-8.4 against 8.7-8.9 and u64 keys 10.5
// against 11.1). A power of two, at most maxWg.
uint32_t bitonicWorkgroup(uint32_t capacity, uint32_t maxWg) {
  uint32_t wg = capacity / 2 < 512 ? capacity / 2 : 512;
  while (wg > maxWg) wg /= 2;
  return wg;
}

// The kernels of one bitonic set for `cap` keys (1 = off): the capacity and
// up to classes - 1 halvings of it, each from twice the subgroup size up.
// Fails, naming the tuning field, unless cap is a power of two from twice
// the subgroup size with at most 16 keys per invocation that fit in shared
// memory (with their indices where `index`), in workgroups of at most maxWg.
VksortResult chooseBitonic(const Shape& s, uint32_t maxWg, uint32_t maxShared, const char* field, uint32_t cap,
                           uint32_t classes, bool index, BitonicKernels* k) {
  *k = {};
  if (cap == 1) return VKSORT_SUCCESS;
  const uint32_t sg = s.subgroupSize;
  for (uint32_t c = 0; c < classes; ++c) {
    const uint32_t capacity = cap >> c;
    if (c > 0 && capacity < 2 * sg) break;
    k->workgroupSize[c] = bitonicWorkgroup(capacity, maxWg);
    k->items[c] = capacity / k->workgroupSize[c];
  }
  if ((cap & (cap - 1)) != 0 || cap < 2 * sg || k->items[0] > 16 ||
      bitonicSharedBytes(cap, k->workgroupSize[0], sg, s.keyWords, index) > maxShared)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: %s %u must be 1 (off) or a power of two from twice the subgroup size (%u), at most 16 per "
                "invocation of its workgroup (%u invocations for this capacity), whose keys fit in shared memory",
                field, cap, 2 * sg, bitonicWorkgroup(cap, maxWg));
  return VKSORT_SUCCESS;
}

VksortResult chooseShape(const DeviceInfo& info, const VksortTuning* user, Shape* s) {
  const VkPhysicalDeviceLimits& lim = info.props.properties.limits;
  s->subgroupSize = info.props11.subgroupSize;
  s->pinSubgroupSize = (info.props13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                       s->subgroupSize >= info.props13.minSubgroupSize &&
                       s->subgroupSize <= info.props13.maxSubgroupSize;
  // A precaution on lavapipe: ring accesses as read-modify-write atomics only
  // (see status_ring.glsl and the README's driver notes).
  s->statusRmw = info.props12.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  const uint32_t sg = s->subgroupSize;
  const uint32_t itemWords = s->keyWords > s->valueWords ? s->keyWords : s->valueWords;
  s->maxShared = lim.maxComputeSharedMemorySize;
  // Defaults. Up to 16 subgroups keeps the per-subgroup histograms at 16 KiB,
  // with 20 keys per invocation (session 1, H100: 512 x 20 beat 512 x 15,
  // 256 x 15, 256 x 30 and 1024 x 8). On NVIDIA, 1024 x 10 (32 subgroups)
  // beat 512 x 20 by 7% at 2^24 and 2^28 u32 keys on an H200 (2026-11-21,
  // samples/bench/results). Ring: 768 tiles x 256 digits x 8 bytes = 1.5 MiB,
  // enough for every tile in flight on a large GPU plus the look-back window.
  const bool nvidia = info.props12.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY && sg == 32;
  VksortTuning d{};
  d.workgroupSize = nvidia ? 1024 : sg * 16 < 512 ? sg * 16 : 512;
  uint32_t maxWg = lim.maxComputeWorkGroupInvocations;
  if (s->pinSubgroupSize && info.props13.maxComputeWorkgroupSubgroups * sg < maxWg)
    maxWg = info.props13.maxComputeWorkgroupSubgroups * sg;
  while (d.workgroupSize > maxWg) d.workgroupSize /= 2;
  s->histogramWorkgroupSize = kHistogramWorkgroupSize;
  while (s->histogramWorkgroupSize > maxWg) s->histogramWorkgroupSize /= 2;
  vksort::scanShape(maxWg, &s->scanWorkgroupSize, &s->scanItems);
  // 64-bit keys or values on NVIDIA: 1024 x 8, staged a word at a time. H100,
  // 2^24 keys, against 1024 x 5 with both words at once: u64 keys 2210 ->
  // 1936 us, u64 + u32 2522 -> 2324, u32 + u64 1171 -> 1043, u64 + u64 2737
  // -> 2703; 1024 x 10 was 1.4% faster for u64 keys at 2^24 but slower at
  // 2^20-2^22 and with values (samples/bench/results/h100-2026-11-22-j).
  // Elsewhere (not measured) the tile shrinks until both words fit.
  d.keysPerThread = d.workgroupSize == 1024 ? (itemWords == 2 ? 8 : 10) : 20;
  while (d.keysPerThread > 1 && onesweepSharedBytes(d.workgroupSize, d.keysPerThread, sg, nvidia ? 1 : itemWords) >
                                    lim.maxComputeSharedMemorySize)
    --d.keysPerThread;
  d.ringSlots = 768;
  d.lookback = 32;
  d.tailGroup = 512;  // the out-of-order slack of the tail (H200: 1% faster than 32 at 2^28)
  d.histogramWorkgroups = 1024;
  d.spinBudget = 16384;
  d.faultPublishDelay = 0;
  // The small-N path is latency-bound: many invocations with few keys each.
  // H200, 1024 keys: 256 x 4 took 11.7 us, 256 x 16 26.3 us, 1024 x 10 45.1 us.
  // On NVIDIA the shape also serves the mid-size path (below): there 512 x 8
  // beat 1024 x 4 by 1-2 us from 4,096 to 2^19 keys and lost by 2 us at 1,024
  // (H200, 2026-11-21; 512 x 4, 256 x 8, 256 x 16, 512 x 6 also measured).
  d.smallWorkgroupSize = nvidia ? 512 : maxWg < 1024 ? maxWg : 1024;
  d.smallKeysPerThread = nvidia ? 8 : 4;
  while (d.smallWorkgroupSize > sg &&  // per-subgroup histograms grow with the workgroup
         onesweepSharedBytes(d.smallWorkgroupSize, d.smallKeysPerThread, sg, itemWords) >
             lim.maxComputeSharedMemorySize)
    d.smallWorkgroupSize /= 2;
  // A second one-workgroup kernel, twice as wide, for up to twice the small
  // count, where its keys and values stay in shared memory between passes
  // (on NVIDIA: 32-bit keys without values, 1024 x 8), measured on NVIDIA
  // only (H100: 4,097 u32 keys 39.8 -> 27.4 us, 6,144 40.9 -> 31.5, 8,192
  // 44.0 -> 38.3 against the mid-size path; u32 pairs, through the buffers,
  // lost at 8,192: 47.8 -> 53.4).
  d.smallMaxCount = d.smallWorkgroupSize * d.smallKeysPerThread;
  if (nvidia && 2 * d.smallWorkgroupSize <= maxWg &&
      onesweepSharedBytes(2 * d.smallWorkgroupSize, d.smallKeysPerThread, sg, s->keyWords + s->valueWords) <=
          lim.maxComputeSharedMemorySize)
    d.smallMaxCount *= 2;
  // The mid-size path (Onesweep in small-path tiles), measured on NVIDIA
  // only (H200, 2026-11-21, u32 keys: 512 x 8 tiles beat 1024 x 10 from
  // 16,384 to 2^19 keys, 66.3 -> 46.7 us at 16,384 and 84.1 -> 69.2 us at
  // 2^19, and tie at 2^20).
  d.mediumMaxCount = nvidia ? 1u << 19 : 0;
  d.lookbackLanes = 0;  // resolved below, from the workgroup size
  // The bitonic kernel for the smallest sorts, measured on NVIDIA only
  // (H100, 2026-11-22): up to 2,048 keys it beats the one-workgroup radix
  // sort (1,024 u32 keys 8.2 against 14.5 us, 2,048 u32 keys 12.5 against
  // 16.8, 2,048 u64 keys 17.0 against 37.1); a capacity of 4,096 does not
  // fit 64-bit keys in shared memory and lost for 32-bit keys (4,096 keys:
  // 24.4 against 22.7 us, H200).
  d.bitonicMaxCount = nvidia ? kBitonicDefaultNvidia : 1;
  // Keys-only sorts of every key bit need no index in the network: it
  // moves half the data, and stays ahead of the radix sort up to 4,096 keys
  // (H100, 2026-11-22: 1,024 u32 keys 6.7-7.0 us against 8.1-8.4 with the
  // index; 4,096 u32 keys 18.7-19.0 against 22.7-23.0 with the radix sort,
  // u64 28.0-28.3 against 49.8-50.0; 8,192 u32 keys 39.5-39.7 against
  // 38.2-38.5, so not 8,192).
  d.bitonicKeysMaxCount = nvidia && s->valueWords == 0 ? kBitonicKeysDefaultNvidia : 1;

  s->t = d;
  if (user) {
    if (user->workgroupSize) s->t.workgroupSize = user->workgroupSize;
    if (user->keysPerThread) s->t.keysPerThread = user->keysPerThread;
    if (user->ringSlots) s->t.ringSlots = user->ringSlots;
    if (user->lookback) s->t.lookback = user->lookback;
    if (user->tailGroup) s->t.tailGroup = user->tailGroup;
    if (user->histogramWorkgroups) s->t.histogramWorkgroups = user->histogramWorkgroups;
    if (user->spinBudget) s->t.spinBudget = user->spinBudget;
    s->t.faultPublishDelay = user->faultPublishDelay;
    if (user->smallWorkgroupSize) s->t.smallWorkgroupSize = user->smallWorkgroupSize;
    if (user->smallKeysPerThread) s->t.smallKeysPerThread = user->smallKeysPerThread;
    // A user's small shape drops the default second one-workgroup kernel.
    if (user->smallWorkgroupSize || user->smallKeysPerThread) s->t.smallMaxCount = s->smallKeys();
    if (user->smallMaxCount) s->t.smallMaxCount = user->smallMaxCount;
    if (user->mediumMaxCount) s->t.mediumMaxCount = user->mediumMaxCount;
    if (user->lookbackLanes) s->t.lookbackLanes = user->lookbackLanes;
    if (user->bitonicMaxCount) s->t.bitonicMaxCount = user->bitonicMaxCount;
    if (user->bitonicKeysMaxCount && s->valueWords == 0) s->t.bitonicKeysMaxCount = user->bitonicKeysMaxCount;
  }
  if (!s->hasMedium()) s->t.mediumMaxCount = 0;
  if (!s->t.lookbackLanes) {
    // One lane per invocation the workgroup has for each of the 256 digits.
    s->t.lookbackLanes = 1;
    while (s->t.lookbackLanes < 8 && s->t.lookbackLanes * 2 <= sg &&
           s->t.lookbackLanes * 2 * VKSORT_RADIX <= s->t.workgroupSize)
      s->t.lookbackLanes *= 2;
  }
  const VksortTuning& t = s->t;
  if ((t.lookbackLanes & (t.lookbackLanes - 1)) != 0 || t.lookbackLanes > 8 || t.lookbackLanes > sg)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: lookbackLanes %u must be a power of two up to 8 and the subgroup size %u", t.lookbackLanes,
                sg);
  if (t.workgroupSize % sg != 0 || t.workgroupSize > maxWg)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: workgroupSize %u must be a multiple of the subgroup size %u and at most %u", t.workgroupSize,
                sg, maxWg);
  if ((t.tailGroup & (t.tailGroup - 1)) != 0 || t.tailGroup > (1u << 16) || t.lookback < 1 ||
      t.ringSlots < t.lookback + t.tailGroup)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: need tailGroup a power of two, lookback >= 1 and ringSlots (%u) >= lookback (%u) + "
                "tailGroup (%u)",
                t.ringSlots, t.lookback, t.tailGroup);
  if (t.ringSlots > (1u << 16) || t.lookback > 4096)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: ringSlots %u > 65536 or lookback %u > 4096", t.ringSlots,
                t.lookback);
  // 64-bit items can always be staged a word at a time (stageOneWord).
  if (onesweepSharedBytes(t.workgroupSize, t.keysPerThread, sg, 1) > lim.maxComputeSharedMemorySize)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: a tile of %u x %u keys needs %u bytes of shared memory; the device has %u", t.workgroupSize,
                t.keysPerThread, onesweepSharedBytes(t.workgroupSize, t.keysPerThread, sg, 1),
                lim.maxComputeSharedMemorySize);
  if (t.smallWorkgroupSize % sg != 0 || t.smallWorkgroupSize > maxWg ||
      onesweepSharedBytes(t.smallWorkgroupSize, t.smallKeysPerThread, sg, 1) > lim.maxComputeSharedMemorySize)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: the small sort's %u x %u keys need a workgroup size that is a multiple of %u, at most %u, "
                "and fit in shared memory",
                t.smallWorkgroupSize, t.smallKeysPerThread, sg, maxWg);
  if (t.smallMaxCount != s->smallKeys() &&
      (t.smallMaxCount != 2 * s->smallKeys() || 2 * t.smallWorkgroupSize > maxWg ||
       onesweepSharedBytes(2 * t.smallWorkgroupSize, t.smallKeysPerThread, sg, s->keyWords + s->valueWords) >
           lim.maxComputeSharedMemorySize))
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: smallMaxCount %u must be the small sort's %u x %u keys, or twice that where a workgroup of "
                "%u invocations (at most %u) holds that many keys and their values in shared memory",
                t.smallMaxCount, t.smallWorkgroupSize, t.smallKeysPerThread, 2 * t.smallWorkgroupSize, maxWg);
  if (t.histogramWorkgroups < 64 || t.histogramWorkgroups > lim.maxComputeWorkGroupCount[0])
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "tuning: histogramWorkgroups %u out of range", t.histogramWorkgroups);
  // With the index: two kernels, one for counts up to half the capacity (the
  // network of the full capacity in a wider workgroup made 1,024 u32 keys
  // 0.4 us slower), one for the rest. Without: also one for a quarter.
  VksortResult r = chooseBitonic(*s, maxWg, s->maxShared, "bitonicMaxCount", t.bitonicMaxCount, 2, true, &s->bitonic);
  if (r == VKSORT_SUCCESS)
    r = chooseBitonic(*s, maxWg, s->maxShared, "bitonicKeysMaxCount", t.bitonicKeysMaxCount, 3, false, &s->bitonicKeys);
  if (r != VKSORT_SUCCESS) return r;
  // Where keys and values fit in shared memory together, the single-tile
  // kernel keeps them there between passes (H200, 1,024 u32 keys: 16.7 ->
  // 14.5 us); otherwise its passes go through the keys and alt buffers.
  s->smallInShared = onesweepSharedBytes(t.smallWorkgroupSize, t.smallKeysPerThread, sg, s->keyWords + s->valueWords) <=
                     lim.maxComputeSharedMemorySize;
  return VKSORT_SUCCESS;
}

// Resolves VKSORT_ALGORITHM_AUTO by the driver (vksort.h, VksortAlgorithm)
// and checks the portable digit width.
VksortResult chooseAlgorithm(const DeviceInfo& info, const Shape& shape, uint32_t radixBits,
                             VksortAlgorithm* algorithm) {
  if (uint32_t(*algorithm) > VKSORT_ALGORITHM_PORTABLE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "algorithm %d is not a VksortAlgorithm", *algorithm);
  if (radixBits != 1 && radixBits != 2 && radixBits != 4 && radixBits != 8)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "portableRadixBits %u is not 0, 1, 2, 4 or 8", radixBits);
  if (*algorithm == VKSORT_ALGORITHM_AUTO)
    *algorithm =
        vksort::driverHasForwardProgress(info.props12.driverID) ? VKSORT_ALGORITHM_ONESWEEP : VKSORT_ALGORITHM_PORTABLE;
  if (*algorithm == VKSORT_ALGORITHM_PORTABLE && !vksort::portableTableFits(shape.tileKeys(), radixBits))
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "tuning: tiles of %u keys are too small for the portable algorithm with %u-bit digits (its tile "
                "table for VKSORT_MAX_COUNT keys would exceed 2^31 entries)",
                shape.tileKeys(), radixBits);
  return VKSORT_SUCCESS;
}

VkDeviceSize keyBytes(const Shape& s) { return 4 * s.keyWords; }
VkDeviceSize valueBytes(const Shape& s) { return 4 * s.valueWords; }

VkDeviceSize tempBytes(const Shape& s) {
  return VKSORT_TEMP_RING_OFFSET + VkDeviceSize(s.t.ringSlots) * VKSORT_RADIX * sizeof(uint64_t);
}

}  // namespace

struct VksortSorter_T {
  VkDevice device = VK_NULL_HANDLE;
  const VkAllocationCallbacks* allocator = nullptr;
  VkAllocationCallbacks allocatorCopy{};
  DeviceFunctions fn{};
  Shape shape{};
  uint32_t maxDispatchX = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline histogram = VK_NULL_HANDLE;
  VkPipeline onesweep = VK_NULL_HANDLE;
  VkPipeline singleTile = VK_NULL_HANDLE;       // onesweep.comp with SINGLE_TILE: the small-N path
  VkPipeline medium = VK_NULL_HANDLE;           // onesweep.comp in the small path's shape (if mediumMaxCount is on)
  VkPipeline singleTileLarge = VK_NULL_HANDLE;  // the same, twice as wide, up to smallMaxCount (if on)
  // bitonic.comp: the tiny-N path (if bitonicMaxCount is on), both
  // algorithms; [0] up to bitonicMaxCount, [1] up to half that ([2] unused).
  VkPipeline bitonic[3] = {};
  // The same without the index (if bitonicKeysMaxCount is on: keys-only
  // sorters), for sorts of every key bit; [c] up to bitonicKeysMaxCount >> c.
  VkPipeline bitonicKeys[3] = {};
  // AUTO resolved at creation; only the chosen algorithm's pipelines exist.
  VksortAlgorithm algorithm = VKSORT_ALGORITHM_ONESWEEP;
  uint32_t radixBits = VKSORT_RADIX_BITS;
  VkPipeline portableCount = VK_NULL_HANDLE;
  VkPipeline portableScan[3] = {};  // reduce, scan of the block sums, downsweep
  VkPipeline portableScatter = VK_NULL_HANDLE;
};

namespace {

void destroyObjects(VksortSorter s) {
  if (s->histogram) s->fn.destroyPipeline(s->device, s->histogram, s->allocator);
  if (s->onesweep) s->fn.destroyPipeline(s->device, s->onesweep, s->allocator);
  if (s->singleTile) s->fn.destroyPipeline(s->device, s->singleTile, s->allocator);
  if (s->singleTileLarge) s->fn.destroyPipeline(s->device, s->singleTileLarge, s->allocator);
  for (VkPipeline p : s->bitonic)
    if (p) s->fn.destroyPipeline(s->device, p, s->allocator);
  for (VkPipeline p : s->bitonicKeys)
    if (p) s->fn.destroyPipeline(s->device, p, s->allocator);
  if (s->medium) s->fn.destroyPipeline(s->device, s->medium, s->allocator);
  const VkPipeline portable[] = {s->portableCount, s->portableScan[0], s->portableScan[1], s->portableScan[2],
                                 s->portableScatter};
  for (VkPipeline p : portable)
    if (p) s->fn.destroyPipeline(s->device, p, s->allocator);
  if (s->layout) s->fn.destroyPipelineLayout(s->device, s->layout, s->allocator);
}

// The temp bytes a sort of up to count keys needs with the sorter's algorithm.
VkDeviceSize sortTempBytes(const VksortSorter s, uint32_t count) {
  if (s->algorithm == VKSORT_ALGORITHM_PORTABLE)
    return vksort::planPortable(count, s->shape.tileKeys(), s->radixBits).tempBytes;
  return tempBytes(s->shape);
}

// Specialization constants 0 .. constantCount - 1 of a kernel, 32 bits each
// (onesweep.comp has the most).
constexpr uint32_t kMaxSpecConstants = 17;

VksortResult createPipeline(VksortSorter s, VkPipelineCache cache, const uint32_t* code, size_t codeBytes,
                            const uint32_t* constants, uint32_t constantCount, const char* name, VkPipeline* out) {
  if (constantCount > kMaxSpecConstants)
    return fail(VKSORT_ERROR_VULKAN, "%s: %u specialization constants, more than %u", name, constantCount,
                kMaxSpecConstants);
  VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mci.codeSize = codeBytes;
  mci.pCode = code;
  VkShaderModule module;
  VkResult r = s->fn.createShaderModule(s->device, &mci, s->allocator, &module);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateShaderModule(%s) failed: VkResult %d", name, r);

  VkSpecializationMapEntry entries[kMaxSpecConstants];
  for (uint32_t i = 0; i < constantCount; ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{constantCount, entries, constantCount * 4, constants};

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  required.requiredSubgroupSize = s->shape.subgroupSize;
  VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  // The kernels size shared memory and masks by SG_SIZE, so every subgroup
  // must be full and of exactly that size.
  pci.stage.pNext = s->shape.pinSubgroupSize ? &required : nullptr;
  pci.stage.flags = VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
  pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pci.stage.module = module;
  pci.stage.pName = "main";
  pci.stage.pSpecializationInfo = &spec;
  pci.layout = s->layout;
  r = s->fn.createComputePipelines(s->device, cache, 1, &pci, s->allocator, out);
  s->fn.destroyShaderModule(s->device, module, s->allocator);
  if (r != VK_SUCCESS) return fail(VKSORT_ERROR_VULKAN, "vkCreateComputePipelines(%s) failed: VkResult %d", name, r);
  return VKSORT_SUCCESS;
}

// The portable algorithm's pipelines: count and scatter in the sorter's tile
// shape, and the three steps of the table scan.
VksortResult createPortablePipelines(VksortSorter s, VkPipelineCache cache) {
  const Shape& sh = s->shape;
  const uint32_t cc[] = {sh.t.workgroupSize, sh.subgroupSize, sh.t.keysPerThread,
                         sh.keyWords,        sh.keyKind,      s->radixBits};
  VksortResult r = createPipeline(s, cache, vksort_portable_count_spv, sizeof vksort_portable_count_spv, cc, 6,
                                  "portable count", &s->portableCount);
  for (uint32_t step = 0; step < 3 && r == VKSORT_SUCCESS; ++step) {
    const uint32_t sc[] = {sh.scanWorkgroupSize, sh.subgroupSize, sh.scanItems, step, s->radixBits};
    r = createPipeline(s, cache, vksort_portable_scan_spv, sizeof vksort_portable_scan_spv, sc, 5, "portable scan",
                       &s->portableScan[step]);
  }
  if (r == VKSORT_SUCCESS) {
    const uint32_t sc[] = {
        sh.t.workgroupSize, sh.subgroupSize, sh.t.keysPerThread,
        sh.keyWords,        sh.keyKind,      sh.valueWords,
        sh.valueIndex,      s->radixBits,    stageOneWord(sh, sh.t.workgroupSize, sh.t.keysPerThread)};
    r = createPipeline(s, cache, vksort_portable_scatter_spv, sizeof vksort_portable_scatter_spv, sc, 9,
                       "portable scatter", &s->portableScatter);
  }
  return r;
}

// One set of bitonic.comp pipelines (`set`'s kernels), with the index or
// without it (NO_INDEX: only for keys-only sorters).
VksortResult createBitonicPipelines(VksortSorter s, VkPipelineCache cache, const BitonicKernels& set, bool noIndex,
                                    VkPipeline* out) {
  const Shape& sh = s->shape;
  VksortResult r = VKSORT_SUCCESS;
  for (uint32_t c = 0; c < 3 && r == VKSORT_SUCCESS && set.workgroupSize[c]; ++c) {
    const uint32_t bc[] = {set.workgroupSize[c], sh.subgroupSize, set.items[c],  sh.keyWords,
                           sh.keyKind,           sh.valueWords,   sh.valueIndex, noIndex};
    r = createPipeline(s, cache, vksort_bitonic_spv, sizeof vksort_bitonic_spv, bc, 8,
                       noIndex ? "bitonic without index" : "bitonic", &out[c]);
  }
  return r;
}

// The bitonic pipeline of a set (up to maxCount keys) for `count` keys: the
// smallest kernel that holds them, or none.
VkPipeline pickBitonic(const VkPipeline* set, uint32_t maxCount, uint32_t count) {
  VkPipeline p = VK_NULL_HANDLE;
  for (uint32_t c = 0; c < 3 && set[c] && count <= maxCount >> c; ++c) p = set[c];
  return p;
}

VksortResult checkRange(const char* name, const VksortBufferRange& r, VkDeviceSize needed, VkDeviceSize alignment) {
  if (r.buffer == VK_NULL_HANDLE) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.buffer is VK_NULL_HANDLE", name);
  if (r.size == VK_WHOLE_SIZE)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "%s.size is VK_WHOLE_SIZE; give the size of the range", name);
  if (r.offset % alignment != 0)
    return fail(VKSORT_ERROR_MISALIGNED, "%s.offset %llu is not a multiple of %llu", name, (unsigned long long)r.offset,
                (unsigned long long)alignment);
  if (r.size < needed)
    return fail(VKSORT_ERROR_BUFFER_TOO_SMALL, "%s.size is %llu bytes; this sort needs %llu", name,
                (unsigned long long)r.size, (unsigned long long)needed);
  return VKSORT_SUCCESS;
}

bool overlaps(const VksortBufferRange& a, const VksortBufferRange& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

void computeBarrier(const VksortSorter s, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = srcAccess;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  s->fn.cmdPipelineBarrier(cmd, srcStage, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

// Workgroups in one sort dispatch take their tile from an atomic counter, so a
// grid larger than maxComputeWorkGroupCount[0] can be split into several
// dispatches with no barrier between them.
void dispatchTiles(const VksortSorter s, VkCommandBuffer cmd, uint32_t workgroups) {
  while (workgroups > 0) {
    const uint32_t n = workgroups < s->maxDispatchX ? workgroups : s->maxDispatchX;
    s->fn.cmdDispatch(cmd, n, 1, 1);
    workgroups -= n;
  }
}

VkDeviceAddress addressOf(const VksortSorter s, const VksortBufferRange& r) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = r.buffer;
  return s->fn.getBufferDeviceAddress(s->device, &info) + r.offset;
}

}  // namespace

extern "C" {

const char* vksortGetLastError(void) { return tLastError; }

const char* vksortResultName(VksortResult result) {
  switch (result) {
    case VKSORT_SUCCESS: return "VKSORT_SUCCESS";
    case VKSORT_ERROR_INVALID_ARGUMENT: return "VKSORT_ERROR_INVALID_ARGUMENT";
    case VKSORT_ERROR_FEATURE_NOT_ENABLED: return "VKSORT_ERROR_FEATURE_NOT_ENABLED";
    case VKSORT_ERROR_DEVICE_NOT_SUPPORTED: return "VKSORT_ERROR_DEVICE_NOT_SUPPORTED";
    case VKSORT_ERROR_BUFFER_TOO_SMALL: return "VKSORT_ERROR_BUFFER_TOO_SMALL";
    case VKSORT_ERROR_MISALIGNED: return "VKSORT_ERROR_MISALIGNED";
    case VKSORT_ERROR_COUNT_TOO_LARGE: return "VKSORT_ERROR_COUNT_TOO_LARGE";
    case VKSORT_ERROR_OUT_OF_HOST_MEMORY: return "VKSORT_ERROR_OUT_OF_HOST_MEMORY";
    case VKSORT_ERROR_VULKAN: return "VKSORT_ERROR_VULKAN";
  }
  return "VKSORT_ERROR_UNKNOWN";
}

VksortResult vksortCheckDeviceSupport(VkInstance instance, VkPhysicalDevice physicalDevice,
                                      PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr) {
  clearError();
  if (!instance || !physicalDevice)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance and physicalDevice must not be null");
  InstanceFunctions fn;
  VksortResult r = loadInstanceFunctions(instance, pfnGetInstanceProcAddr, &fn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(fn, physicalDevice, &info);
  return checkSupport(info);
}

void vksortEnableRequiredFeatures(VkPhysicalDeviceFeatures2* features2, VkPhysicalDeviceVulkan12Features* features12,
                                  VkPhysicalDeviceVulkan13Features* features13) {
  if (features2) features2->features.shaderInt64 = VK_TRUE;
  if (features12) {
    features12->bufferDeviceAddress = VK_TRUE;
    features12->shaderBufferInt64Atomics = VK_TRUE;
    features12->vulkanMemoryModel = VK_TRUE;
    features12->vulkanMemoryModelDeviceScope = VK_TRUE;
  }
  if (features13) {
    features13->subgroupSizeControl = VK_TRUE;
    features13->computeFullSubgroups = VK_TRUE;
  }
}

VksortResult vksortCreateSorter(const VksortCreateInfo* ci, VksortSorter* pSorter) {
  clearError();
  if (!pSorter) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pSorter is null");
  *pSorter = nullptr;
  if (!ci) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "pCreateInfo is null");
  if (!ci->instance || !ci->physicalDevice || !ci->device)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "instance, physicalDevice and device must not be null");
  if (!ci->pDeviceCreateInfo)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT,
                "pDeviceCreateInfo is null; pass the VkDeviceCreateInfo the device was created with");

  InstanceFunctions ifn;
  VksortResult r = loadInstanceFunctions(ci->instance, ci->pfnGetInstanceProcAddr, &ifn);
  if (r != VKSORT_SUCCESS) return r;
  DeviceInfo info;
  queryDevice(ifn, ci->physicalDevice, &info);
  if ((r = checkSupport(info)) != VKSORT_SUCCESS) return r;

  FeatureSet enabled = enabledFeatures(*ci->pDeviceCreateInfo);
  List missing;
  forEachRequiredFeature(enabled, [&](const char* name, bool& on) {
    if (!on) missing.add(name);
  });
  if (missing.items)
    return fail(VKSORT_ERROR_FEATURE_NOT_ENABLED,
                "the device was created without features vksort needs: %s (vksortEnableRequiredFeatures sets them)",
                missing.text);

  Shape shape{};  // zeroed: chooseShape leaves the fields of paths that are off (the bitonic kernel) at zero
  if ((r = chooseTypes(*ci, &shape)) != VKSORT_SUCCESS) return r;
  if ((r = chooseShape(info, ci->pTuning, &shape)) != VKSORT_SUCCESS) return r;
  VksortAlgorithm algorithm = ci->algorithm;
  const uint32_t radixBits = ci->portableRadixBits ? ci->portableRadixBits : VKSORT_RADIX_BITS;
  if ((r = chooseAlgorithm(info, shape, radixBits, &algorithm)) != VKSORT_SUCCESS) return r;
  if (algorithm == VKSORT_ALGORITHM_PORTABLE) shape.t.mediumMaxCount = 0;  // a Onesweep path

  void* mem = ci->pAllocationCallbacks
                  ? ci->pAllocationCallbacks->pfnAllocation(ci->pAllocationCallbacks->pUserData, sizeof(VksortSorter_T),
                                                            alignof(VksortSorter_T), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT)
                  : std::malloc(sizeof(VksortSorter_T));
  if (!mem) return fail(VKSORT_ERROR_OUT_OF_HOST_MEMORY, "allocating the sorter failed");
  VksortSorter s = new (mem) VksortSorter_T();
  s->device = ci->device;
  if (ci->pAllocationCallbacks) {
    s->allocatorCopy = *ci->pAllocationCallbacks;
    s->allocator = &s->allocatorCopy;
  }
  s->shape = shape;
  s->maxDispatchX = info.props.properties.limits.maxComputeWorkGroupCount[0];
  s->algorithm = algorithm;
  s->radixBits = algorithm == VKSORT_ALGORITHM_PORTABLE ? radixBits : VKSORT_RADIX_BITS;

  PFN_vkGetDeviceProcAddr gdpa = ci->pfnGetDeviceProcAddr ? ci->pfnGetDeviceProcAddr : ifn.getDeviceProcAddr;
  r = loadDeviceFunctions(ci->device, gdpa, &s->fn);
  if (r == VKSORT_SUCCESS && ci->debugLabels) {
    PFN_vkGetInstanceProcAddr gipa = ci->pfnGetInstanceProcAddr;
    s->fn.cmdBeginDebugUtilsLabel =
        reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(gipa(ci->instance, "vkCmdBeginDebugUtilsLabelEXT"));
    s->fn.cmdEndDebugUtilsLabel =
        reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(gipa(ci->instance, "vkCmdEndDebugUtilsLabelEXT"));
    if (!s->fn.cmdBeginDebugUtilsLabel || !s->fn.cmdEndDebugUtilsLabel)
      r = fail(VKSORT_ERROR_INVALID_ARGUMENT,
               "debugLabels is set but vkCmdBeginDebugUtilsLabelEXT was not found: enable VK_EXT_debug_utils on the "
               "instance");
  }
  if (r == VKSORT_SUCCESS) {
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(VksortPush)};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    VkResult vr = s->fn.createPipelineLayout(s->device, &lci, s->allocator, &s->layout);
    if (vr != VK_SUCCESS) r = fail(VKSORT_ERROR_VULKAN, "vkCreatePipelineLayout failed: VkResult %d", vr);
  }
  if (r == VKSORT_SUCCESS && algorithm == VKSORT_ALGORITHM_PORTABLE) r = createPortablePipelines(s, ci->pipelineCache);
  if (r == VKSORT_SUCCESS) r = createBitonicPipelines(s, ci->pipelineCache, shape.bitonic, false, s->bitonic);
  if (r == VKSORT_SUCCESS) r = createBitonicPipelines(s, ci->pipelineCache, shape.bitonicKeys, true, s->bitonicKeys);
  if (r == VKSORT_SUCCESS && algorithm == VKSORT_ALGORITHM_ONESWEEP) {
    const uint32_t hc[] = {shape.histogramWorkgroupSize, shape.subgroupSize, shape.keyWords, shape.keyKind};
    r = createPipeline(s, ci->pipelineCache, vksort_histogram_spv, sizeof vksort_histogram_spv, hc, 4, "histogram",
                       &s->histogram);
  }
  if (r == VKSORT_SUCCESS && algorithm == VKSORT_ALGORITHM_ONESWEEP) {
    const VksortTuning& t = shape.t;
    uint32_t tailBits = 0;
    while ((1u << tailBits) < t.tailGroup) ++tailBits;
    uint32_t oc[] = {t.workgroupSize,
                     shape.subgroupSize,
                     t.keysPerThread,
                     t.ringSlots,
                     t.lookback,
                     tailBits,
                     shape.statusRmw,
                     t.spinBudget,
                     t.faultPublishDelay,
                     shape.keyWords,
                     shape.keyKind,
                     shape.valueWords,
                     shape.valueIndex,
                     0,
                     t.lookbackLanes,
                     0,
                     stageOneWord(shape, t.workgroupSize, t.keysPerThread)};
    r = createPipeline(s, ci->pipelineCache, vksort_onesweep_spv, sizeof vksort_onesweep_spv, oc, 17, "onesweep",
                       &s->onesweep);
    oc[0] = t.smallWorkgroupSize;  // the small and mid-size paths: the small shape
    oc[2] = t.smallKeysPerThread;
    oc[14] = 1;  // the mid-size path's look-backs walk with one lane (vksort.h, lookbackLanes)
    oc[16] = stageOneWord(shape, t.smallWorkgroupSize, t.smallKeysPerThread);
    if (r == VKSORT_SUCCESS && shape.hasMedium())
      r = createPipeline(s, ci->pipelineCache, vksort_onesweep_spv, sizeof vksort_onesweep_spv, oc, 17,
                         "onesweep (mid-size)", &s->medium);
    oc[13] = 1;  // SINGLE_TILE
    oc[15] = shape.smallInShared;
    oc[16] = !shape.smallInShared && oc[16];  // the tile in shared memory keeps both words
    if (r == VKSORT_SUCCESS)
      r = createPipeline(s, ci->pipelineCache, vksort_onesweep_spv, sizeof vksort_onesweep_spv, oc, 17,
                         "onesweep (single tile)", &s->singleTile);
    oc[0] = 2 * t.smallWorkgroupSize;
    oc[15] = 1;  // only where keys and values stay in shared memory (chooseShape)
    oc[16] = 0;
    if (r == VKSORT_SUCCESS && shape.hasLargeSingle())
      r = createPipeline(s, ci->pipelineCache, vksort_onesweep_spv, sizeof vksort_onesweep_spv, oc, 17,
                         "onesweep (single tile, wide)", &s->singleTileLarge);
  }
  if (r != VKSORT_SUCCESS) {
    vksortDestroySorter(s);
    return r;
  }
  *pSorter = s;
  return VKSORT_SUCCESS;
}

VksortResult vksortGetTuning(VksortSorter s, VksortTuning* pTuning) {
  clearError();
  if (!s || !pTuning) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pTuning must not be null");
  *pTuning = s->shape.t;
  return VKSORT_SUCCESS;
}

VksortResult vksortGetAlgorithm(VksortSorter s, VksortAlgorithm* pAlgorithm, uint32_t* pRadixBits) {
  clearError();
  if (!s || !pAlgorithm) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pAlgorithm must not be null");
  *pAlgorithm = s->algorithm;
  if (pRadixBits) *pRadixBits = s->radixBits;
  return VKSORT_SUCCESS;
}

void vksortDestroySorter(VksortSorter s) {
  if (!s) return;
  destroyObjects(s);
  VkAllocationCallbacks cb = s->allocatorCopy;
  const bool custom = s->allocator != nullptr;
  s->~VksortSorter_T();
  if (custom)
    cb.pfnFree(cb.pUserData, s);
  else
    std::free(s);
}

VksortResult vksortGetMemoryRequirements(VksortSorter s, uint32_t maxCount, VksortMemoryRequirements* req) {
  clearError();
  if (!s || !req) return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter and pRequirements must not be null");
  if (maxCount > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "maxCount %u is larger than VKSORT_MAX_COUNT (%u)", maxCount,
                VKSORT_MAX_COUNT);
  const Shape& shape = s->shape;
  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  *req = VksortMemoryRequirements{};
  req->keysSize = VkDeviceSize(maxCount) * keyBytes(shape);
  req->keysAlignment = keyBytes(shape);
  req->keysUsage = storage;
  req->altSize = req->keysSize;
  req->altAlignment = req->keysAlignment;
  req->altUsage = storage;
  if (shape.valueWords) {
    req->valuesSize = VkDeviceSize(maxCount) * valueBytes(shape);
    req->valuesAlignment = valueBytes(shape);
    req->valuesUsage = storage;
  }
  req->tempSize = sortTempBytes(s, maxCount);
  req->tempAlignment = kTempAlignment;
  req->tempUsage = storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  return VKSORT_SUCCESS;
}

namespace {

// A VK_EXT_debug_utils label around a group of commands, when enabled.
struct Label {
  const VksortSorter s;
  VkCommandBuffer cmd;
  Label(const VksortSorter sorter, VkCommandBuffer c, const char* fmt, ...) : s(sorter), cmd(c) {
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

// The XOR masks of push.h's loadXor/storeXor for a key type and order:
// words 0-1 apply when the key's top bit is set, 2-3 when it is clear.
void keyMapMasks(const Shape& shape, bool descending, uint32_t load[4], uint32_t store[4]) {
  const uint64_t all = shape.keyWords == 2 ? ~uint64_t(0) : 0xffffffffu;
  const uint64_t sign = shape.keyWords == 2 ? uint64_t(1) << 63 : uint64_t(1) << 31;
  const uint64_t desc = descending ? all : 0;
  uint64_t loadTop, loadClear, storeTop, storeClear;
  if (shape.keyKind == 2) {  // float: negative -> flip all, positive -> flip the sign
    loadTop = all ^ desc;
    loadClear = sign ^ desc;
    // Undo desc first; then a set top bit means the key was positive.
    storeTop = descending ? 0 : sign;
    storeClear = descending ? (all ^ sign) : all;
  } else {
    loadTop = loadClear = storeTop = storeClear = (shape.keyKind == 1 ? sign : 0) ^ desc;
  }
  const uint64_t l[2] = {loadTop, loadClear}, st[2] = {storeTop, storeClear};
  for (int i = 0; i < 2; ++i) {
    load[2 * i] = uint32_t(l[i]);
    load[2 * i + 1] = uint32_t(l[i] >> 32);
    store[2 * i] = uint32_t(st[i]);
    store[2 * i + 1] = uint32_t(st[i] >> 32);
  }
}

// The push constants of one digit pass: pass p reads keys[p % 2] (and
// values) and writes the other buffer; keys become sort bits as pass 0 loads
// them and keys again as the last pass stores them.
void setPassPush(VksortPush* push, uint32_t pass, const VkDeviceAddress keys[2], const VkDeviceAddress values[2],
                 const uint32_t loadXor[4], const uint32_t storeXor[4]) {
  push->pass = pass;
  push->keysIn = keys[pass % 2];
  push->keysOut = keys[(pass + 1) % 2];
  push->valuesIn = values[pass % 2];
  push->valuesOut = values[(pass + 1) % 2];
  for (int i = 0; i < 4; ++i) {
    push->loadXor[i] = pass == 0 ? loadXor[i] : 0;
    push->storeXor[i] = pass + 1 == push->passes ? storeXor[i] : 0;
  }
}

// The Onesweep path: clear the temp header, the histogram kernel, then one
// reorder dispatch per pass.
void recordMultiTile(const VksortSorter s, VkCommandBuffer cmd, VkPipeline onesweep, VksortPush push,
                     const VkDeviceAddress keys[2], const VkDeviceAddress values[2], const uint32_t loadXor[4],
                     const uint32_t storeXor[4], uint32_t numTiles, uint32_t histWorkgroups,
                     const VksortBufferRange& temp) {
  {
    Label label(s, cmd, "vksort histogram");
    // The header (histograms and counters) starts at zero for every sort.
    s->fn.cmdFillBuffer(cmd, temp.buffer, temp.offset, VKSORT_TEMP_HEADER_BYTES, 0);
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
    push.keysIn = keys[0];
    s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->histogram);
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    s->fn.cmdDispatch(cmd, histWorkgroups, 1, 1);
  }
  s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, onesweep);
  const uint32_t passes = push.passes;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    Label label(s, cmd, "vksort onesweep pass %u/%u", pass + 1, passes);
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    setPassPush(&push, pass, keys, values, loadXor, storeXor);
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    dispatchTiles(s, cmd, numTiles);
  }
}

// Checks a sort's arguments against the sorter; on success fills the bit
// range and the number of passes.
VksortResult checkSortInfo(const VksortSorter s, const VksortSortInfo& info, uint32_t* beginBit, uint32_t* endBit,
                           uint32_t* passes) {
  const Shape& shape = s->shape;
  if (info.count > VKSORT_MAX_COUNT)
    return fail(VKSORT_ERROR_COUNT_TOO_LARGE, "count %u is larger than VKSORT_MAX_COUNT (%u)", info.count,
                VKSORT_MAX_COUNT);
  *beginBit = info.beginBit;
  *endBit = info.endBit;
  if (*beginBit == 0 && *endBit == 0) *endBit = shape.keyBits();
  if (*endBit > shape.keyBits() || *beginBit >= *endBit)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "bit range [%u, %u) is empty or exceeds the %u-bit key", info.beginBit,
                info.endBit, shape.keyBits());
  *passes = (*endBit - *beginBit + s->radixBits - 1) / s->radixBits;

  const VkDeviceSize keysSize = VkDeviceSize(info.count) * keyBytes(shape);
  VksortResult r;
  if ((r = checkRange("keys", info.keys, keysSize, keyBytes(shape))) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("alt", info.alt, keysSize, keyBytes(shape))) != VKSORT_SUCCESS) return r;
  if ((r = checkRange("temp", info.temp, sortTempBytes(s, info.count), kTempAlignment)) != VKSORT_SUCCESS) return r;
  const VksortBufferRange* ranges[5] = {&info.keys, &info.alt, &info.temp, nullptr, nullptr};
  uint32_t rangeCount = 3;
  if (shape.valueWords) {
    const VkDeviceSize valuesSize = VkDeviceSize(info.count) * valueBytes(shape);
    if ((r = checkRange("values", info.values, valuesSize, valueBytes(shape))) != VKSORT_SUCCESS) return r;
    if ((r = checkRange("altValues", info.altValues, valuesSize, valueBytes(shape))) != VKSORT_SUCCESS) return r;
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

// Records the portable algorithm (shaders/portable_*.comp): per pass the
// count kernel, the table scan (reduce, scan of the block sums, downsweep; the
// downsweep alone when the table is one block) and the scatter kernel, with a
// barrier between dispatches, so no workgroup ever waits on another.
void recordPortable(const VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo& info, VksortPush push,
                    const VkDeviceAddress keys[2], const VkDeviceAddress values[2], const uint32_t loadXor[4],
                    const uint32_t storeXor[4]) {
  const vksort::PortablePlan plan = vksort::planPortable(info.count, s->shape.tileKeys(), s->radixBits);
  uint32_t tileX, tileY, blockX, blockY;
  vksort::portableGrid(plan.numTiles, s->maxDispatchX, &tileX, &tileY);
  vksort::portableGrid(plan.scanBlocks, s->maxDispatchX, &blockX, &blockY);
  push.numTiles = plan.numTiles;
  push.ringClear = 0;
  const uint32_t passes = push.passes;
  auto dispatch = [&](VkPipeline pipeline, uint32_t x, uint32_t y) {
    computeBarrier(s, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    s->fn.cmdDispatch(cmd, x, y, 1);
  };
  if (info.timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info.timestampQueryPool, info.firstTimestampQuery);
  for (uint32_t pass = 0; pass < passes; ++pass) {
    setPassPush(&push, pass, keys, values, loadXor, storeXor);  // count and scatter read the same sort bits
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    {
      Label label(s, cmd, "vksort portable count pass %u/%u", pass + 1, passes);
      dispatch(s->portableCount, tileX, tileY);
    }
    {
      Label label(s, cmd, "vksort portable scan pass %u/%u", pass + 1, passes);
      if (plan.scanBlocks > 1) {
        dispatch(s->portableScan[0], blockX, blockY);
        dispatch(s->portableScan[1], 1, 1);
      }
      dispatch(s->portableScan[2], blockX, blockY);
    }
    {
      Label label(s, cmd, "vksort portable scatter pass %u/%u", pass + 1, passes);
      dispatch(s->portableScatter, tileX, tileY);
    }
  }
  if (info.timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info.timestampQueryPool,
                            info.firstTimestampQuery + 1);
}

}  // namespace

VksortResult vksortRecordSort(VksortSorter s, VkCommandBuffer cmd, const VksortSortInfo* info,
                              VksortResultBuffer* pResultBuffer) {
  clearError();
  if (!s || !cmd || !info || !pResultBuffer)
    return fail(VKSORT_ERROR_INVALID_ARGUMENT, "sorter, commandBuffer, pSortInfo and pResultBuffer must not be null");
  uint32_t beginBit, endBit, passes;
  VksortResult r = checkSortInfo(s, *info, &beginBit, &endBit, &passes);
  if (r != VKSORT_SUCCESS) return r;

  // Each pass moves the data keys -> alt -> keys ...: an odd number of passes
  // leaves it in alt.
  *pResultBuffer = passes % 2 ? VKSORT_RESULT_IN_ALT : VKSORT_RESULT_IN_KEYS;
  if (info->count == 0) return VKSORT_SUCCESS;  // nothing to sort, nothing to record

  const Shape& shape = s->shape;
  // Onesweep in the small shape's tiles up to mediumMaxCount (the portable
  // algorithm has no mid-size path).
  const bool medium = s->medium && info->count <= shape.t.mediumMaxCount;
  const uint32_t tile = medium ? shape.smallKeys() : shape.tileKeys();
  const uint32_t numTiles = (info->count + tile - 1) / tile;
  const uint32_t histWg = shape.histogramWorkgroupSize;
  const uint32_t perWorkgroup = histWg * kHistogramKeysPerInvocation;
  uint32_t histWorkgroups = (info->count + perWorkgroup - 1) / perWorkgroup;
  if (histWorkgroups > shape.t.histogramWorkgroups) histWorkgroups = shape.t.histogramWorkgroups;
  // Never more than kHistogramMaxLoop grid-stride steps per invocation: llvmpipe
  // ends a shader's loops after 65535 iterations in all (status_ring.glsl).
  const uint32_t minWorkgroups = uint32_t((uint64_t(info->count) + uint64_t(histWg) * kHistogramMaxLoop - 1) /
                                          (uint64_t(histWg) * kHistogramMaxLoop));
  if (histWorkgroups < minWorkgroups) histWorkgroups = minWorkgroups;
  const VkDeviceAddress keys[2] = {addressOf(s, info->keys), addressOf(s, info->alt)};
  VkDeviceAddress values[2] = {0, 0};
  if (shape.valueWords) {
    values[0] = addressOf(s, info->values);
    values[1] = addressOf(s, info->altValues);
  }

  VksortPush push{};
  push.temp = addressOf(s, info->temp);
  push.countAddress = info->countBuffer.buffer ? addressOf(s, info->countBuffer) : 0;
  push.count = info->count;
  push.numTiles = numTiles;
  push.passes = passes;
  push.beginBit = beginBit;
  push.endBit = endBit;
  push.flags = info->descending ? VKSORT_FLAG_DESCENDING : 0u;
  push.ringClear = numTiles < shape.t.ringSlots ? numTiles : shape.t.ringSlots;
  uint32_t loadXor[4], storeXor[4];
  keyMapMasks(shape, info->descending != VK_FALSE, loadXor, storeXor);
  std::memcpy(push.loadXor, loadXor, sizeof loadXor);  // the histogram maps like pass 0
  // The tiny-N path: a bitonic network, without the index where a
  // keys-only sort covers every key bit (then equal sort bits are equal
  // keys), else with it; the smallest kernel that holds the count.
  VkPipeline bitonic = VK_NULL_HANDLE;
  if (beginBit == 0 && endBit == shape.keyBits())
    bitonic = pickBitonic(s->bitonicKeys, shape.t.bitonicKeysMaxCount, info->count);
  if (!bitonic) bitonic = pickBitonic(s->bitonic, shape.t.bitonicMaxCount, info->count);
  if (bitonic) {
    // One workgroup, one dispatch, straight into the buffer the pass count
    // names; temp is unused.
    Label label(s, cmd, "vksort bitonic sort");
    if (info->timestampQueryPool)
      s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestampQueryPool,
                              info->firstTimestampQuery);
    const uint32_t out = passes % 2;
    push.keysIn = keys[0];
    push.keysOut = keys[out];
    push.valuesIn = values[0];
    push.valuesOut = values[out];
    std::memcpy(push.storeXor, storeXor, sizeof storeXor);
    s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, bitonic);
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    s->fn.cmdDispatch(cmd, 1, 1, 1);
    if (info->timestampQueryPool)
      s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestampQueryPool,
                              info->firstTimestampQuery + 1);
    return VKSORT_SUCCESS;
  }
  if (s->algorithm == VKSORT_ALGORITHM_PORTABLE) {
    recordPortable(s, cmd, *info, push, keys, values, loadXor, storeXor);
    return VKSORT_SUCCESS;
  }

  if (info->timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestampQueryPool,
                            info->firstTimestampQuery);
  if (info->count <= shape.t.smallMaxCount) {
    // The small-N path: one workgroup, every pass, one dispatch; temp is
    // unused. Above the small shape's count, the kernel twice as wide.
    const bool wide = info->count > shape.smallKeys();
    Label label(s, cmd, "vksort single-tile sort, %u passes", passes);
    push.keysIn = keys[0];
    push.keysOut = keys[1];
    push.valuesIn = values[0];
    push.valuesOut = values[1];
    std::memcpy(push.storeXor, storeXor, sizeof storeXor);
    s->fn.cmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, wide ? s->singleTileLarge : s->singleTile);
    s->fn.cmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    s->fn.cmdDispatch(cmd, 1, 1, 1);
  } else {
    recordMultiTile(s, cmd, medium ? s->medium : s->onesweep, push, keys, values, loadXor, storeXor, numTiles,
                    histWorkgroups, info->temp);
  }
  if (info->timestampQueryPool)
    s->fn.cmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestampQueryPool,
                            info->firstTimestampQuery + 1);
  return VKSORT_SUCCESS;
}

}  // extern "C"

// The test harness: device setup, fixtures and main() (see harness.h).
#define DOCTEST_CONFIG_IMPLEMENT
#include "harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

VkContext* gCtx = nullptr;
uint64_t gSeed = 0;
bool gFloorDevice = false;
bool gWideBallot = false;

void fatal(const std::string& what) {
  std::fprintf(stderr, "FATAL: %s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(2);  // a hung device cannot be torn down safely
}

void requireNoValidationMessages() {
  for (const std::string& m : gCtx->takeValidationMessages()) FAIL_CHECK("validation: " << m);
}

std::mt19937_64 caseRng(uint64_t salt) { return std::mt19937_64(gSeed ^ (salt * 0x9e3779b97f4a7c15ull)); }

void submitOrDie(VkCommandBuffer cmd, const std::string& label) {
  std::string error;
  if (!gCtx->submitAndWait(cmd, kTimeoutNs, &error)) fatal(error + " (" + label + ")");
}

void barrierToHost(VkCommandBuffer cmd) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                       nullptr);
}

VksortCreateInfo baseCreateInfo() {
  VksortCreateInfo ci{};
  ci.instance = gCtx->instance;
  ci.physicalDevice = gCtx->physicalDevice;
  ci.device = gCtx->device;
  ci.pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
  ci.pDeviceCreateInfo = &gCtx->deviceCreateInfo;
  ci.apiVersion = gCtx->apiVersion;
  return ci;
}

SorterHolder::SorterHolder(const VksortTuning* tuning, VksortKeyType key, VksortValueType value,
                           VksortAlgorithm algorithm, uint32_t portableRadixBits, bool debugLabels,
                           const VksortTestingHooks* hooks, bool segmented) {
  VksortCreateInfo ci = baseCreateInfo();
  ci.segmented = segmented ? VK_TRUE : VK_FALSE;
  ci.pTuning = tuning;
  ci.keyType = key;
  ci.valueType = value;
  ci.algorithm = algorithm;
  ci.portableRadixBits = portableRadixBits;
  ci.debugLabels = debugLabels ? VK_TRUE : VK_FALSE;
  VksortTestingHooks withBallot = hooks ? *hooks : VksortTestingHooks{};
  withBallot.wideBallot = gWideBallot ? 1 : 0;
  VksortResult r = vksortTestingCreateSorter(&ci, &withBallot, &sorter);
  if (r != VKSORT_SUCCESS) fatal(std::string("vksortCreateSorter: ") + vksortGetLastError());
}

uint32_t deviceSubgroupSize() {
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sub};
  vkGetPhysicalDeviceProperties2(gCtx->physicalDevice, &props);
  return sub.subgroupSize;
}

FaultShape faultTuning(const uint32_t* f) {
  FaultShape shape{};
  shape.tuning.ringSlots = f[0];
  shape.tuning.lookback = f[1];
  shape.tuning.tailGroup = f[2];
  shape.hooks.spinBudget = f[3];
  shape.hooks.faultPublishDelay = f[4];
  return shape;
}

std::string faultLabel(const std::string& what, const uint32_t* f) {
  char label[96];
  std::snprintf(label, sizeof label, "ring %u lookback %u tailGroup %u spinBudget %u delay %u", f[0], f[1], f[2], f[3],
                f[4]);
  return what + label;
}

uint32_t SorterHolder::tile() const {
  VksortTuning t;
  vksortGetTuning(sorter, &t);
  return t.workgroupSize * t.keysPerThread;
}

uint32_t SorterHolder::oneWorkgroupKeys() const {
  VksortTuning t;
  vksortGetTuning(sorter, &t);
  return t.oneWorkgroupSize * t.oneWorkgroupKeysPerThread;
}

GuardedRange::GuardedRange(VkDeviceSize rangeSize, VkBufferUsageFlags usage) : size(rangeSize) {
  buf = gCtx->createBuffer(rangeSize + 2 * kGuard,
                           usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  std::memset(buf.mapped, kCanary, size_t(rangeSize + 2 * kGuard));
}

bool GuardedRange::guardsIntact() const {
  const uint8_t* p = static_cast<const uint8_t*>(buf.mapped);
  for (VkDeviceSize i = 0; i < kGuard; ++i)
    if (p[i] != kCanary || p[kGuard + size + i] != kCanary) return false;
  return true;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)  // listing cases (ctest discovery) needs no device
    if (std::strncmp(argv[i], "--list", 6) == 0) {
      doctest::Context dt(argc, argv);
      return dt.run();
    }
  const char* seedEnv = std::getenv("VKSORT_TEST_SEED");
  gSeed = seedEnv ? std::strtoull(seedEnv, nullptr, 0) : std::random_device{}() * 0x100000001ull;
  std::printf("vksort tests: seed %llu (replay with VKSORT_TEST_SEED=%llu)\n", (unsigned long long)gSeed,
              (unsigned long long)gSeed);

  VkContextOptions options;
  options.validation = true;
  options.syncValidation = true;
  if (const char* dev = std::getenv("VKSORT_DEVICE")) options.deviceIndex = std::atoi(dev);
  if (const char* kind = std::getenv("VKSORT_TEST_DEVICE")) {
    if (std::strcmp(kind, "floor") != 0) fatal(std::string("VKSORT_TEST_DEVICE=") + kind + ": only 'floor' is known");
    gFloorDevice = true;
    options.apiVersion = VK_API_VERSION_1_2;
    options.algorithm = VKSORT_ALGORITHM_PORTABLE;
  }
  if (const char* wide = std::getenv("VKSORT_TEST_WIDE_BALLOT")) gWideBallot = std::strcmp(wide, "0") != 0;
  if (gWideBallot) std::printf("every sorter ranks with the uvec4 ballot (VKSORT_TEST_WIDE_BALLOT)\n");
  auto ctx = std::make_unique<VkContext>();
  std::string error;
  if (!ctx->init(options, &error)) fatal(error);
  std::printf("device: %s (%s)\n", ctx->deviceName().c_str(), ctx->driverDescription().c_str());
  gCtx = ctx.get();

  doctest::Context dt;
  dt.applyCommandLine(argc, argv);
  const int rc = dt.run();
  for (const std::string& m : ctx->takeValidationMessages())
    std::fprintf(stderr, "validation at teardown: %s\n", m.c_str());
  gCtx = nullptr;
  return rc;
}

// Shared by the vksort test files: the device (with validation), fixtures
// that create sorters and guarded buffers, and submission with a timeout.
#pragma once

#include <doctest/doctest.h>
#include <vksort/vksort_advanced.h>

#include <cstdint>
#include <random>
#include <string>

#include "testing.h"  // vksort's testing interface (src/)
#include "vk_context.h"

constexpr uint64_t kTimeoutNs = 120ull * 1000 * 1000 * 1000;
constexpr VkDeviceSize kGuard = 256;  // canary bytes before and after every range
constexpr uint8_t kCanary = 0xA5;

// The doctest test suites that tests/CMakeLists.txt runs again (a case has at
// most one): kSuiteFaults with LP_NUM_THREADS=1, 3 and 8 and at subgroup sizes
// 4 and 16, kSuiteSubgroupSizes at subgroup sizes 4 and 16
// (LP_NATIVE_VECTOR_WIDTH=128 and 512); both suites again at 4, 8 and 16
// with the uvec4 ballot (VKSORT_TEST_WIDE_BALLOT=1).
constexpr const char* kSuiteFaults = "faults";
constexpr const char* kSuiteSubgroupSizes = "subgroup sizes";

extern VkContext* gCtx;
extern uint64_t gSeed;
// VKSORT_TEST_DEVICE=floor: the device is created as a Vulkan 1.2 device with
// only the portable algorithm's features (no shaderInt64, no 64-bit atomics,
// no memory model, no Vulkan 1.3 structs).
extern bool gFloorDevice;
// VKSORT_TEST_WIDE_BALLOT=1: every sorter ranks tiles with the uvec4 ballot
// that subgroups of 64 and 128 lanes run (VksortTestingHooks::wideBallot).
extern bool gWideBallot;

[[noreturn]] void fatal(const std::string& what);
void requireNoValidationMessages();
// A generator for one test case, derived from the logged seed.
std::mt19937_64 caseRng(uint64_t salt);
// Ends, submits and waits on cmd; a timeout or error ends the test run.
void submitOrDie(VkCommandBuffer cmd, const std::string& label);
// A create info for the test device, everything else default.
VksortCreateInfo baseCreateInfo();
// A barrier from the sort's writes to host reads.
void barrierToHost(VkCommandBuffer cmd);

// The device's (default) subgroup size.
uint32_t deviceSubgroupSize();

// A tuning and testing hooks with the fault-injection fields of a test table
// row, in this order: ringSlots, lookback, tailGroup, spinBudget,
// faultPublishDelay (0 = default), and a label naming them after `what`.
struct FaultShape {
  VksortTuning tuning;
  VksortTestingHooks hooks;
};
FaultShape faultTuning(const uint32_t* f);
std::string faultLabel(const std::string& what, const uint32_t* f);

struct SorterHolder {
  VksortSorter sorter = nullptr;
  explicit SorterHolder(const VksortTuning* tuning = nullptr, VksortKeyType key = VKSORT_KEY_U32,
                        VksortValueType value = VKSORT_VALUE_NONE, VksortAlgorithm algorithm = VKSORT_ALGORITHM_AUTO,
                        uint32_t portableRadixBits = 0, bool debugLabels = false,
                        const VksortTestingHooks* hooks = nullptr, bool segmented = false);
  ~SorterHolder() { vksortDestroySorter(sorter); }
  SorterHolder(const SorterHolder&) = delete;
  SorterHolder& operator=(const SorterHolder&) = delete;
  uint32_t tile() const;
  uint32_t oneWorkgroupKeys() const;  // the one-workgroup shape's keys: the first one-workgroup kernel's most
};

// One host-visible buffer holding [guard | range | guard], so canaries can be
// checked, plus TRANSFER usage for uploads.
struct GuardedRange {
  GpuBuffer buf;
  VkDeviceSize size = 0;
  GuardedRange(VkDeviceSize rangeSize, VkBufferUsageFlags usage);
  ~GuardedRange() { gCtx->destroyBuffer(buf); }
  GuardedRange(const GuardedRange&) = delete;
  GuardedRange& operator=(const GuardedRange&) = delete;
  VksortBufferRange range() const { return {buf.buffer, kGuard, size}; }
  void* bytes() const { return static_cast<uint8_t*>(buf.mapped) + kGuard; }
  uint32_t* data() const { return static_cast<uint32_t*>(bytes()); }
  bool guardsIntact() const;
};

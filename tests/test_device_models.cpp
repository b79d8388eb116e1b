// The GPUs that differ most from the ones vksort is measured on, as models
// of their published limits, without a GPU: AMD's wave64 (RADV, AMDVLK),
// Adreno's 128 lanes (Turnip), Intel's 8 to 32 lanes, and MoltenVK, where
// compute pipelines cannot require a subgroup size. For every model, key
// type, value type and algorithm, every kernel the sorter would create
// (listKernels) is checked against the model's limits and against its own
// SPIR-V: each module is specialized with the kernel's constants here, and
// the shared memory it declares must be what tuning.cpp's formulas say.
//
// Also the device checks and names that need no GPU: the messages of
// vksortCheckDeviceSupport, the version vksort reads where the caller gives
// none, and the names of out-of-range enums (enum_names.c passes them as a
// C caller would).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "internal.h"

extern "C" const char* resultNameOf(int value);
extern "C" const char* pathNameOf(int value);

namespace {

// ---------------------------------------------------------------------------
// A SPIR-V module's workgroup (shared) memory once specialized: the
// specialization constants take the kernel's values, the constant
// expressions over them (OpSpecConstantOp) are folded, and the sizes of the
// Workgroup variables' types are summed. Arrays of 32-bit words at 4 bytes
// each, the way the formulas count them.
// ---------------------------------------------------------------------------
struct SharedMemory {
  uint64_t bytes = 0;
  std::vector<uint32_t> specIds;  // every SpecId the module declares
  std::string error;              // an instruction the folding does not know
};

SharedMemory specializedSharedMemory(const uint32_t* code, size_t codeBytes, const vksort::SpecConstants& sc) {
  enum : uint32_t {
    kOpDecorate = 71,
    kOpTypeBool = 20,
    kOpTypeInt = 21,
    kOpTypeFloat = 22,
    kOpTypeVector = 23,
    kOpTypeArray = 28,
    kOpTypeStruct = 30,
    kOpTypePointer = 32,
    kOpConstantTrue = 41,
    kOpConstantFalse = 42,
    kOpConstant = 43,
    kOpSpecConstantTrue = 48,
    kOpSpecConstantFalse = 49,
    kOpSpecConstant = 50,
    kOpSpecConstantOp = 52,
    kOpVariable = 59,
    kDecorationSpecId = 1,
    kStorageWorkgroup = 4,
  };
  SharedMemory out;
  const size_t words = codeBytes / 4;
  std::map<uint32_t, uint32_t> specId;   // result id -> SpecId
  std::map<uint32_t, uint64_t> value;    // constant id -> value
  std::map<uint32_t, uint64_t> size;     // type id -> bytes
  std::map<uint32_t, uint64_t> mask;     // integer type id -> value mask
  std::map<uint32_t, uint32_t> pointee;  // Workgroup pointer type id -> type
  const uint32_t* constants = reinterpret_cast<const uint32_t*>(&sc);
  auto specValue = [&](uint32_t id, uint64_t fallback) {
    auto it = specId.find(id);
    return it != specId.end() && it->second < VKSORT_SC_COUNT ? uint64_t(constants[it->second]) : fallback;
  };
  for (size_t i = 5; i < words;) {
    const uint32_t* in = code + i;
    const uint32_t op = in[0] & 0xFFFFu, count = in[0] >> 16;
    if (count == 0 || i + count > words) {
      out.error = "malformed SPIR-V";
      return out;
    }
    i += count;
    switch (op) {
      case kOpDecorate:
        if (in[2] == kDecorationSpecId) {
          specId[in[1]] = in[3];
          out.specIds.push_back(in[3]);
        }
        break;
      case kOpTypeBool: size[in[1]] = 4; break;
      case kOpTypeInt:
      case kOpTypeFloat:
        size[in[1]] = in[2] / 8;
        mask[in[1]] = in[2] == 64 ? ~uint64_t(0) : (uint64_t(1) << in[2]) - 1;
        break;
      case kOpTypeVector: size[in[1]] = size[in[2]] * in[3]; break;
      case kOpTypeArray: size[in[1]] = size[in[2]] * value.at(in[3]); break;
      case kOpTypeStruct: {
        uint64_t sum = 0;
        for (uint32_t m = 2; m < count; ++m) sum += size[in[m]];
        size[in[1]] = sum;
        break;
      }
      case kOpTypePointer:
        if (in[2] == kStorageWorkgroup) pointee[in[1]] = in[3];
        break;
      case kOpConstantTrue: value[in[2]] = 1; break;
      case kOpConstantFalse: value[in[2]] = 0; break;
      case kOpConstant: value[in[2]] = count > 4 ? (uint64_t(in[4]) << 32 | in[3]) : in[3]; break;
      case kOpSpecConstantTrue: value[in[2]] = specValue(in[2], 1) != 0; break;
      case kOpSpecConstantFalse: value[in[2]] = specValue(in[2], 0) != 0; break;
      case kOpSpecConstant: value[in[2]] = specValue(in[2], count > 4 ? (uint64_t(in[4]) << 32 | in[3]) : in[3]); break;
      case kOpSpecConstantOp: {
        const uint32_t type = in[1], result = in[2], fold = in[3];
        auto arg = [&](uint32_t k) { return value.at(in[4 + k]); };
        const uint64_t m = mask.count(type) ? mask[type] : 1;
        uint64_t v;
        switch (fold) {
          case 128: v = arg(0) + arg(1); break;               // OpIAdd
          case 130: v = arg(0) - arg(1); break;               // OpISub
          case 132: v = arg(0) * arg(1); break;               // OpIMul
          case 134: v = arg(1) ? arg(0) / arg(1) : 0; break;  // OpUDiv
          case 137: v = arg(1) ? arg(0) % arg(1) : 0; break;  // OpUMod
          case 164: v = arg(0) == arg(1); break;              // OpLogicalEqual
          case 165: v = arg(0) != arg(1); break;              // OpLogicalNotEqual
          case 166: v = arg(0) || arg(1); break;              // OpLogicalOr
          case 167: v = arg(0) && arg(1); break;              // OpLogicalAnd
          case 168: v = !arg(0); break;                       // OpLogicalNot
          case 169: v = arg(0) ? arg(1) : arg(2); break;      // OpSelect
          case 170: v = arg(0) == arg(1); break;              // OpIEqual
          case 171: v = arg(0) != arg(1); break;              // OpINotEqual
          case 172: v = arg(0) > arg(1); break;               // OpUGreaterThan
          case 174: v = arg(0) >= arg(1); break;              // OpUGreaterThanEqual
          case 176: v = arg(0) < arg(1); break;               // OpULessThan
          case 178: v = arg(0) <= arg(1); break;              // OpULessThanEqual
          case 194: v = arg(0) >> arg(1); break;              // OpShiftRightLogical
          case 196: v = arg(0) << arg(1); break;              // OpShiftLeftLogical
          case 197: v = arg(0) | arg(1); break;               // OpBitwiseOr
          case 198: v = arg(0) ^ arg(1); break;               // OpBitwiseXor
          case 199: v = arg(0) & arg(1); break;               // OpBitwiseAnd
          case 200: v = ~arg(0); break;                       // OpNot
          default: out.error = "OpSpecConstantOp " + std::to_string(fold) + " is not folded here"; return out;
        }
        value[result] = v & m;
        break;
      }
      case kOpVariable:
        if (in[3] == kStorageWorkgroup) out.bytes += size.at(pointee.at(in[1]));
        break;
      default: break;
    }
  }
  return out;
}

// Vulkan 1.3 structs that a fake device's queries were given.
int gChained13 = 0;

// ---------------------------------------------------------------------------
// The models: what each driver reports, from the vendors' and Mesa's
// published limits.
// ---------------------------------------------------------------------------
struct Model {
  const char* name;
  VkDriverId driver;
  uint32_t subgroupSize, minSubgroupSize, maxSubgroupSize;
  bool pinnable;  // requiredSubgroupSizeStages includes compute
  uint32_t maxShared, maxInvocations, maxSizeX, maxSubgroups;
  uint32_t expectSubgroup;  // the size vksort builds for; 0: the device is refused
};

const Model kModels[] = {
    // RADV and AMDVLK: wave64 by default, wave32 on request; 64 KiB of LDS
    // per workgroup; RADV reports UINT32_MAX subgroups per workgroup.
    {"AMD wave64 (RADV)", VK_DRIVER_ID_MESA_RADV, 64, 32, 64, true, 64 * 1024, 1024, 1024, UINT32_MAX, 64},
    {"AMD wave64 (AMDVLK)", VK_DRIVER_ID_AMD_OPEN_SOURCE, 64, 32, 64, true, 64 * 1024, 1024, 1024, UINT32_MAX, 64},
    // Turnip: 128 lanes by default, 64 on request; 2048 invocations, but
    // at most 1024 in x. vksort pins 64 (docs/tuning.md).
    {"Adreno (Turnip)", VK_DRIVER_ID_MESA_TURNIP, 128, 64, 128, true, 32 * 1024, 2048, 1024, 32, 64},
    // The 128-lane code at its own size: an Adreno that runs only 128.
    {"Adreno, 128 lanes only", VK_DRIVER_ID_QUALCOMM_PROPRIETARY, 128, 128, 128, true, 32 * 1024, 2048, 1024, 16, 128},
    // Intel (ANV, Windows): SIMD8, 16 or 32; reports 32. vksort pins 16.
    {"Intel (ANV)", VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA, 32, 8, 32, true, 64 * 1024, 1024, 1024, 64, 16},
    {"Intel (Windows)", VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS, 32, 8, 32, true, 64 * 1024, 1024, 1024, 64, 16},
    // MoltenVK: compute pipelines cannot require a size. One size: usable.
    // A range whose default is its top (AMD and Intel Macs): refused.
    {"MoltenVK, one size", VK_DRIVER_ID_MOLTENVK, 32, 32, 32, false, 32 * 1024, 1024, 1024, 32, 32},
    {"MoltenVK, 8 to 32", VK_DRIVER_ID_MOLTENVK, 32, 8, 32, false, 32 * 1024, 1024, 1024, 128, 0},
    {"MoltenVK, 32 to 64", VK_DRIVER_ID_MOLTENVK, 64, 32, 64, false, 64 * 1024, 1024, 1024, 32, 0},
};

vksort::DeviceInfo modelInfo(const Model& m) {
  vksort::DeviceInfo info;
  std::snprintf(info.props.properties.deviceName, sizeof info.props.properties.deviceName, "%s", m.name);
  VkPhysicalDeviceLimits& lim = info.props.properties.limits;
  lim.maxComputeWorkGroupInvocations = m.maxInvocations;
  lim.maxComputeWorkGroupSize[0] = m.maxSizeX;
  lim.maxComputeWorkGroupSize[1] = lim.maxComputeWorkGroupSize[2] = 64;
  lim.maxComputeWorkGroupCount[0] = 65535;
  lim.maxComputeSharedMemorySize = m.maxShared;
  info.props11.subgroupSize = m.subgroupSize;
  info.props11.subgroupSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
  info.props11.subgroupSupportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                             VK_SUBGROUP_FEATURE_SHUFFLE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  info.props12.driverID = m.driver;
  info.props13.minSubgroupSize = m.minSubgroupSize;
  info.props13.maxSubgroupSize = m.maxSubgroupSize;
  info.props13.maxComputeWorkgroupSubgroups = m.maxSubgroups;
  info.props13.requiredSubgroupSizeStages = m.pinnable ? VK_SHADER_STAGE_COMPUTE_BIT : 0;
  info.apiVersion = VK_API_VERSION_1_3;
  for (bool& has : info.supported.has) has = true;
  return info;
}

// Every kernel of one sorter against the model and its own SPIR-V.
void checkKernels(const Model& m, const vksort::Config& c) {
  vksort::Pipelines pipelines{};
  vksort::KernelBuild kernels[vksort::kMaxKernels];
  const uint32_t count = vksort::listKernels(c, &pipelines, kernels);
  REQUIRE(count > 0);
  CHECK(c.subgroupSize == m.expectSubgroup);
  const uint64_t subgroupLimit = uint64_t(m.maxSubgroups) * c.subgroupSize;
  for (uint32_t i = 0; i < count; ++i) {
    const vksort::KernelBuild& k = kernels[i];
    const uint32_t wg = k.constants.wgSize;
    INFO(std::string(k.name) << ": " << wg << " x " << k.constants.keysPerThread);
    CHECK(k.constants.sgSize == c.subgroupSize);
    // Full subgroups: a multiple of the size the kernel runs at (and of the
    // largest size the device may pick, where it cannot be pinned).
    CHECK(wg % c.subgroupSize == 0);
    if (!c.pinSubgroupSize) CHECK(wg % m.maxSubgroupSize == 0);
    CHECK(wg <= m.maxInvocations);
    CHECK(wg <= m.maxSizeX);
    if (c.pinSubgroupSize) CHECK(wg <= subgroupLimit);
    const SharedMemory shared = specializedSharedMemory(k.code, k.codeBytes, k.constants);
    REQUIRE_MESSAGE(shared.error.empty(), shared.error);
    CHECK(shared.bytes > 0);
    CHECK(shared.bytes <= m.maxShared);
    if (k.sharedBytes) CHECK(k.sharedBytes == shared.bytes);
  }
}

vksort::Config makeConfig(const vksort::DeviceInfo& info, uint32_t key, uint32_t value, VksortAlgorithm algorithm,
                          uint32_t radixBits, const VksortTestingHooks* hooks, VksortResult* result) {
  VksortCreateInfo ci{};
  ci.keyType = VksortKeyType(key);
  ci.valueType = VksortValueType(value);
  ci.portableRadixBits = radixBits;
  vksort::Config c{};
  *result = vksort::checkSupport(info, algorithm);
  if (*result == VKSORT_SUCCESS) *result = vksort::chooseConfig(info, ci, algorithm, hooks, &c);
  return c;
}

}  // namespace

TEST_SUITE("device models") {
  TEST_CASE("device models: every kernel of every sorter fits the device and declares the shared memory counted") {
    for (const Model& m : kModels) {
      const vksort::DeviceInfo info = modelInfo(m);
      for (uint32_t key = VKSORT_KEY_U32; key <= VKSORT_KEY_F64; ++key)
        for (uint32_t value = VKSORT_VALUE_NONE; value <= VKSORT_VALUE_INDEX; ++value)
          for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
            for (uint32_t bits : {8u, 4u}) {
              if (algorithm == VKSORT_ALGORITHM_ONESWEEP && bits != 8) continue;
              INFO(std::string(m.name) << ", key " << key << ", value " << value << ", algorithm " << int(algorithm)
                                       << ", " << bits << "-bit digits");
              VksortResult r;
              const vksort::Config c = makeConfig(info, key, value, algorithm, bits, nullptr, &r);
              if (!m.expectSubgroup) {
                CHECK(r == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
                continue;
              }
              REQUIRE_MESSAGE(r == VKSORT_SUCCESS, std::string(vksort::lastError()));
              checkKernels(m, c);
              // The paths measured only on NVIDIA stay off.
              CHECK(c.t.bitonicMaxCount == VKSORT_TUNING_OFF);
              CHECK(!c.hasMidsize());
            }
    }
  }

  TEST_CASE("device models: the tile kernels' shared memory formulas hold at every shape the tuning allows") {
    // Beyond the defaults: staging rounds, 64-bit items a word at a time,
    // small and large tiles, the one-workgroup kernels in and out of shared
    // memory, the bitonic kernels.
    const vksort::DeviceInfo info = modelInfo(kModels[0]);  // AMD wave64, 64 KiB
    const uint32_t shapes[][3] = {{64, 2, 1}, {128, 7, 1}, {256, 16, 2}, {512, 20, 4}, {1024, 9, 3}, {192, 5, 5}};
    for (const auto& shape : shapes)
      for (uint32_t key : {uint32_t(VKSORT_KEY_U32), uint32_t(VKSORT_KEY_F64)})
        for (uint32_t value = VKSORT_VALUE_NONE; value <= VKSORT_VALUE_INDEX; ++value)
          for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE}) {
            VksortTuning t{};
            t.workgroupSize = shape[0];
            t.keysPerThread = shape[1];
            t.stagingRounds = shape[2];
            t.oneWorkgroupSize = shape[0];
            t.oneWorkgroupKeysPerThread = shape[1];
            t.bitonicMaxCount = 1024;
            t.bitonicKeysMaxCount = 2048;
            VksortCreateInfo ci{};
            ci.keyType = VksortKeyType(key);
            ci.valueType = VksortValueType(value);
            ci.pTuning = &t;
            vksort::Config c{};
            INFO("tile " << shape[0] << " x " << shape[1] << " in " << shape[2] << " rounds, key " << key << ", value "
                         << value << ", algorithm " << int(algorithm));
            const VksortResult r = vksort::chooseConfig(info, ci, algorithm, nullptr, &c);
            REQUIRE_MESSAGE(r == VKSORT_SUCCESS, std::string(vksort::lastError()));
            checkKernels(kModels[0], c);
          }
  }

  TEST_CASE("device models: segmented sorters' kernels fit, and segments of lanes stage where shared memory holds it") {
    for (const Model& m : kModels) {
      if (!m.expectSubgroup) continue;
      const vksort::DeviceInfo info = modelInfo(m);
      for (uint32_t key : {uint32_t(VKSORT_KEY_U32), uint32_t(VKSORT_KEY_U64)})
        for (uint32_t value : {uint32_t(VKSORT_VALUE_NONE), uint32_t(VKSORT_VALUE_64)})
          for (uint32_t noStage : {0u, 1u}) {
            INFO(std::string(m.name) << ", key " << key << ", value " << value << ", staging hook " << noStage);
            VksortCreateInfo ci{};
            ci.keyType = VksortKeyType(key);
            ci.valueType = VksortValueType(value);
            ci.segmented = 1;
            VksortTestingHooks hooks{};
            hooks.segmentNoStage = noStage;
            vksort::Config c{};
            REQUIRE(vksort::chooseConfig(info, ci, VKSORT_ALGORITHM_ONESWEEP, &hooks, &c) == VKSORT_SUCCESS);
            checkKernels(m, c);
            vksort::Pipelines pipelines{};
            vksort::KernelBuild kernels[vksort::kMaxKernels];
            const uint32_t count = vksort::listKernels(c, &pipelines, kernels);
            int lanes = 0;
            for (uint32_t i = 0; i < count; ++i) {
              const vksort::KernelBuild& k = kernels[i];
              if (k.constants.segmented != VKSORT_SEGMENTED_LANES) continue;
              ++lanes;
              INFO(k.name);
              const uint64_t staged =
                  vksort::bitonicSharedBytes(1, k.constants.wgSize, k.constants.sgSize, k.constants.keyWords, true) +
                  vksort::segmentStageBytes(k.constants.wgSize, k.constants.sgSize, k.constants.keysPerThread);
              CHECK(k.constants.segmentStage == (!noStage && staged <= m.maxShared ? 1u : 0u));
            }
            CHECK(lanes == (c.hasSegmentHalf() ? 4 : 3));  // no half-subgroup class at up to 8 lanes
          }
    }
  }

  TEST_CASE("device models: the wide-ballot testing hook reaches the tile kernels' SPIR-V") {
    const vksort::DeviceInfo info = modelInfo(kModels[4]);  // Intel
    VksortTestingHooks hooks{};
    hooks.wideBallot = 1;
    for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_ONESWEEP, VKSORT_ALGORITHM_PORTABLE})
      for (const VksortTestingHooks* h :
           {static_cast<const VksortTestingHooks*>(nullptr), const_cast<const VksortTestingHooks*>(&hooks)}) {
        VksortResult r;
        const vksort::Config c = makeConfig(info, VKSORT_KEY_U32, VKSORT_VALUE_NONE, algorithm, 8, h, &r);
        REQUIRE(r == VKSORT_SUCCESS);
        vksort::Pipelines pipelines{};
        vksort::KernelBuild kernels[vksort::kMaxKernels];
        const uint32_t count = vksort::listKernels(c, &pipelines, kernels);
        int tileKernels = 0;
        for (uint32_t i = 0; i < count; ++i) {
          const std::string name = kernels[i].name;
          if (name != "onesweep" && name != "one workgroup" && name != "portable scatter") continue;
          ++tileKernels;
          INFO(name);
          CHECK(kernels[i].constants.wideBallot == (h ? 1u : 0u));
          const SharedMemory spirv =
              specializedSharedMemory(kernels[i].code, kernels[i].codeBytes, kernels[i].constants);
          CHECK(std::count(spirv.specIds.begin(), spirv.specIds.end(), uint32_t(VKSORT_SC_WIDE_BALLOT)) == 1);
        }
        CHECK(tileKernels == (algorithm == VKSORT_ALGORITHM_ONESWEEP ? 2 : 1));
      }
  }

  TEST_CASE("device models: a subgroup size the driver may not run is refused, with the reason") {
    // MoltenVK on AMD and Intel Macs: no required size for compute, and a
    // range of sizes. A kernel built for 32 could run at 8 there.
    for (const Model& m : kModels) {
      const vksort::DeviceInfo info = modelInfo(m);
      INFO(std::string(m.name));
      for (VksortAlgorithm algorithm : {VKSORT_ALGORITHM_PORTABLE, VKSORT_ALGORITHM_ONESWEEP}) {
        const VksortResult r = vksort::checkSupport(info, algorithm);
        if (m.expectSubgroup) {
          CHECK(r == VKSORT_SUCCESS);
          continue;
        }
        CHECK(r == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
        const std::string message = vksort::lastError();
        CHECK(message.find(m.name) != std::string::npos);
        CHECK(message.find("requiredSubgroupSizeStages") != std::string::npos);
        CHECK(message.find("minSubgroupSize < maxSubgroupSize") != std::string::npos);
      }
      // AUTO picks the portable algorithm for MoltenVK, and refuses it there too.
      if (!m.expectSubgroup)
        CHECK(vksort::chooseAlgorithm(info, VKSORT_ALGORITHM_AUTO, info.supported) == VKSORT_ALGORITHM_PORTABLE);
    }
    // A subgroup size outside the reported range is not pinned either.
    vksort::DeviceInfo odd = modelInfo(kModels[0]);
    odd.props11.subgroupSize = 16;
    CHECK(!vksort::subgroupSizeIsPinnable(odd));
    CHECK(vksort::checkSupport(odd, VKSORT_ALGORITHM_PORTABLE) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
  }

  TEST_CASE("device models: maxComputeWorkGroupSize[0] and the subgroup limit bound every workgroup") {
    // Turnip: 2048 invocations, 1024 in x. A 2048-invocation tuning is refused.
    const Model& turnip = kModels[2];
    const vksort::DeviceInfo info = modelInfo(turnip);
    VksortResult r;
    vksort::Config c = makeConfig(info, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE, 8, nullptr, &r);
    REQUIRE(r == VKSORT_SUCCESS);
    CHECK(c.maxWorkgroupSize == 1024);
    for (int field = 0; field < 2; ++field) {
      VksortTuning t{};
      (field == 0 ? t.workgroupSize : t.oneWorkgroupSize) = 2048;
      t.keysPerThread = t.oneWorkgroupKeysPerThread = 1;
      VksortCreateInfo ci{};
      ci.pTuning = &t;
      CHECK(vksort::chooseConfig(info, ci, VKSORT_ALGORITHM_ONESWEEP, nullptr, &c) == VKSORT_ERROR_INVALID_ARGUMENT);
      const std::string message = vksort::lastError();
      INFO(message);
      CHECK(message.find("2048") != std::string::npos);
      CHECK(message.find(field == 0 ? "maxComputeWorkGroupSize[0]" : "largest workgroup") != std::string::npos);
    }
    // The subgroup limit is a product of two u32 limits: RADV's UINT32_MAX
    // subgroups, or any count whose product with the size passes 2^32, must
    // not wrap around to a small workgroup limit (0x80000001 x 64 would be 64
    // in 32 bits).
    for (uint32_t subgroups : {UINT32_MAX, 0x80000001u, 0x04000001u}) {
      vksort::DeviceInfo radv = modelInfo(kModels[0]);
      radv.props13.maxComputeWorkgroupSubgroups = subgroups;
      c = makeConfig(radv, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 8, nullptr, &r);
      INFO("maxComputeWorkgroupSubgroups " << subgroups);
      REQUIRE(r == VKSORT_SUCCESS);
      CHECK(c.maxWorkgroupSize == 1024);
    }
    // A real subgroup limit still counts: 4 subgroups of 64.
    vksort::DeviceInfo few = modelInfo(kModels[0]);
    few.props13.maxComputeWorkgroupSubgroups = 4;
    c = makeConfig(few, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_ONESWEEP, 8, nullptr, &r);
    REQUIRE(r == VKSORT_SUCCESS);
    CHECK(c.maxWorkgroupSize == 256);
    checkKernels({"AMD, 4 subgroups", VK_DRIVER_ID_MESA_RADV, 64, 32, 64, true, 64 * 1024, 1024, 1024, 4, 64}, c);
  }

  TEST_CASE("device models: the subgroup size vksort pins, by vendor") {
    // Intel 16 and Adreno 64 where the device allows them; else the
    // device's default (docs/tuning.md).
    for (const Model& m : kModels) {
      if (!m.expectSubgroup) continue;
      VksortResult r;
      const vksort::Config c =
          makeConfig(modelInfo(m), VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE, 8, nullptr, &r);
      INFO(std::string(m.name));
      REQUIRE(r == VKSORT_SUCCESS);
      CHECK(c.subgroupSize == m.expectSubgroup);
      CHECK(c.pinSubgroupSize == m.pinnable);
    }
    // Intel with only SIMD32 to pin keeps 32.
    vksort::DeviceInfo simd32 = modelInfo(kModels[4]);
    simd32.props13.minSubgroupSize = 32;
    VksortResult r;
    const vksort::Config c =
        makeConfig(simd32, VKSORT_KEY_U32, VKSORT_VALUE_NONE, VKSORT_ALGORITHM_PORTABLE, 8, nullptr, &r);
    REQUIRE(r == VKSORT_SUCCESS);
    CHECK(c.subgroupSize == 32);
  }
}

TEST_SUITE("device checks") {
  TEST_CASE("device checks: below Vulkan 1.2 the message names only the version") {
    vksort::DeviceInfo info = modelInfo(kModels[0]);
    for (uint32_t version : {VK_API_VERSION_1_0, VK_API_VERSION_1_1}) {
      info.apiVersion = version;
      CHECK(vksort::checkSupport(info, VKSORT_ALGORITHM_ONESWEEP) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
      const std::string message = vksort::lastError();
      INFO(message);
      CHECK(message.find("Vulkan 1.2") != std::string::npos);
      for (const char* unread : {"subgroup", "shaderInt64", "bufferDeviceAddress", "shared memory", ", "})
        CHECK_MESSAGE(message.find(unread) == std::string::npos, unread);
    }
  }

  TEST_CASE("device checks: the longest message is whole, after a 255-byte device name") {
    // A device that lacks everything vksort reads, named as long as Vulkan
    // allows.
    for (bool v13 : {true, false}) {
      vksort::DeviceInfo info;
      std::memset(info.props.properties.deviceName, 'x', VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1);
      info.props.properties.deviceName[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1] = '\0';
      info.apiVersion = v13 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_2;
      info.props11.subgroupSize = 3;
      info.props13.minSubgroupSize = 1;
      info.props13.maxSubgroupSize = 64;
      CHECK(vksort::checkSupport(info, VKSORT_ALGORITHM_ONESWEEP) == VKSORT_ERROR_DEVICE_NOT_SUPPORTED);
      const std::string message = vksort::lastError();
      INFO(message);
      const std::string last = "16 KiB of compute shared memory";
      REQUIRE(message.size() > last.size());
      CHECK(message.compare(message.size() - last.size(), last.size(), last) == 0);
      CHECK(message.find(std::string(VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1, 'x')) != std::string::npos);
      for (const char* item : {"bufferDeviceAddress", "vulkanMemoryModelDeviceScope", "between 4 and 128",
                               "subgroups in compute", "BASIC, BALLOT, SHUFFLE and ARITHMETIC"})
        CHECK_MESSAGE(message.find(item) != std::string::npos, item);
      CHECK((message.find("requiredSubgroupSizeStages") != std::string::npos) == v13);
      CHECK((message.find("VK_EXT_subgroup_size_control (or Vulkan 1.3)") != std::string::npos) == !v13);
    }
  }

  TEST_CASE("device checks: apiVersion 0 reads the device as Vulkan 1.2, with no Vulkan 1.3 struct") {
    // A Vulkan 1.3 device behind an instance whose version the caller did
    // not give: the queries must chain only what Vulkan 1.2 allows.
    struct Fake {
      static void properties(VkPhysicalDevice, VkPhysicalDeviceProperties2* p) {
        p->properties.apiVersion = VK_API_VERSION_1_3;
        p->properties.limits.maxComputeSharedMemorySize = 48 * 1024;
        for (auto* s = static_cast<VkBaseOutStructure*>(p->pNext); s; s = s->pNext) {
          if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES) ++gChained13;
          if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES) {
            auto* sc = reinterpret_cast<VkPhysicalDeviceSubgroupSizeControlProperties*>(s);
            sc->minSubgroupSize = sc->maxSubgroupSize = 32;
            sc->requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
          }
        }
      }
      static void features(VkPhysicalDevice, VkPhysicalDeviceFeatures2* f) {
        for (auto* s = static_cast<VkBaseOutStructure*>(f->pNext); s; s = s->pNext)
          if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES) ++gChained13;
      }
      static VkResult extensions(VkPhysicalDevice, const char*, uint32_t* count, VkExtensionProperties* out) {
        if (out && *count >= 1)
          std::snprintf(out[0].extensionName, VK_MAX_EXTENSION_NAME_SIZE, "%s", "VK_EXT_subgroup_size_control");
        *count = 1;
        return VK_SUCCESS;
      }
    };
    vksort::InstanceFunctions fn;
    fn.getPhysicalDeviceProperties2 = Fake::properties;
    fn.getPhysicalDeviceFeatures2 = Fake::features;
    fn.enumerateDeviceExtensionProperties = Fake::extensions;
    for (uint32_t given : {0u, uint32_t(VK_API_VERSION_1_2), uint32_t(VK_API_VERSION_1_3)}) {
      gChained13 = 0;
      vksort::DeviceInfo info;
      vksort::queryDevice(fn, reinterpret_cast<VkPhysicalDevice>(uintptr_t(1)), given, &info);
      INFO("apiVersion " << given);
      const bool v13 = given == VK_API_VERSION_1_3;
      CHECK(info.apiVersion == (v13 ? uint32_t(VK_API_VERSION_1_3) : uint32_t(VK_API_VERSION_1_2)));
      CHECK(gChained13 == (v13 ? 2 : 0));
      CHECK(info.subgroupSizeControlExtension == !v13);
      if (!v13) CHECK(info.props13.requiredSubgroupSizeStages == VK_SHADER_STAGE_COMPUTE_BIT);  // from the extension
    }
  }

  TEST_CASE("device checks: out-of-range enums have names, as a C caller passes them") {
    CHECK(std::string(resultNameOf(42)) == "VKSORT_ERROR_UNKNOWN");
    CHECK(std::string(resultNameOf(-42)) == "VKSORT_ERROR_UNKNOWN");
    CHECK(std::string(resultNameOf(-4)) == "VKSORT_ERROR_BUFFER_TOO_SMALL");
    CHECK(std::string(resultNameOf(0)) == "VKSORT_SUCCESS");
    CHECK(std::string(pathNameOf(42)) == "unknown");
    CHECK(std::string(pathNameOf(-1)) == "unknown");
    CHECK(std::string(pathNameOf(5)) == "mid-size onesweep");
  }
}

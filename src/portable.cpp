// The portable algorithm's plan and the choice between the algorithms (see
// portable.h).
#include "portable.h"

#include "push.h"

namespace vksort {

bool driverHasForwardProgress(VkDriverId driver) {
  switch (driver) {
    case VK_DRIVER_ID_NVIDIA_PROPRIETARY:
    case VK_DRIVER_ID_AMD_PROPRIETARY:
    case VK_DRIVER_ID_AMD_OPEN_SOURCE:
    case VK_DRIVER_ID_MESA_RADV:
    case VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS:
    case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA:
    case VK_DRIVER_ID_MESA_LLVMPIPE: return true;
    default: return false;
  }
}

bool portableTableFits(uint32_t tileKeys, uint32_t radixBits) {
  const uint64_t tiles = (uint64_t(VKSORT_MAX_COUNT) + tileKeys - 1) / tileKeys;
  return (tiles << radixBits) <= (uint64_t(1) << 31);
}

PortablePlan planPortable(uint32_t count, uint32_t tileKeys, uint32_t radixBits) {
  PortablePlan p;
  p.numTiles = uint32_t((uint64_t(count) + tileKeys - 1) / tileKeys);
  p.tableEntries = p.numTiles << radixBits;
  p.scanBlocks = (p.tableEntries + kScanBlock - 1) / kScanBlock;
  p.tempBytes = VKSORT_PORTABLE_SUMS_OFFSET(uint64_t(p.tableEntries)) + uint64_t(p.scanBlocks) * 4;
  if (p.tempBytes < 16) p.tempBytes = 16;  // a buffer of size 0 is not valid Vulkan
  return p;
}

void scanShape(uint32_t maxWorkgroup, uint32_t* workgroupSize, uint32_t* items) {
  uint32_t wg = kScanWorkgroupSize;
  while (wg > maxWorkgroup) wg /= 2;
  *workgroupSize = wg;
  *items = kScanBlock / wg;
}

void portableGrid(uint32_t groups, uint32_t maxX, uint32_t* x, uint32_t* y) {
  *x = groups < maxX ? groups : maxX;
  *y = *x ? (groups + *x - 1) / *x : 0;
}

}  // namespace vksort

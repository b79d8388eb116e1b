// The portable algorithm's plan and the choice between the algorithms: pure
// functions of the device's driver and the sort's sizes, no Vulkan calls.
// src/vksort.cpp records what they plan; shaders/portable_*.comp run it.
#ifndef VKSORT_PORTABLE_H
#define VKSORT_PORTABLE_H

#include <stdint.h>

#include "vksort/vksort.h"

namespace vksort {

// Whether the driver is known to give running workgroups forward progress,
// which Onesweep's look-back needs (the table is in vksort.h, at
// VksortAlgorithm). Unknown drivers get no.
bool driverHasForwardProgress(VkDriverId driver);

// The portable scan's block (shaders/portable_scan.comp): kScanBlock table
// entries, scanned by a workgroup of kScanWorkgroupSize invocations, or of
// fewer where the device allows fewer (scanShape), each taking more entries.
// The block, and with it the temp memory, is the same on every device.
constexpr uint32_t kScanWorkgroupSize = 256;
constexpr uint32_t kScanBlock = 2048;

// The scan's workgroup size (a power of two) and entries per invocation on
// a device whose compute workgroups hold at most maxWorkgroup invocations
// (Vulkan guarantees at least 128).
void scanShape(uint32_t maxWorkgroup, uint32_t* workgroupSize, uint32_t* items);

// The tile table must stay below 2^31 entries, so that the shaders' u32
// indices cannot overflow: true when a sort of VKSORT_MAX_COUNT keys in
// tiles of tileKeys keys fits with 2^radixBits digits.
bool portableTableFits(uint32_t tileKeys, uint32_t radixBits);

struct PortablePlan {
  uint32_t numTiles;      // tiles of count keys
  uint32_t tableEntries;  // 2^R x numTiles
  uint32_t scanBlocks;    // blocks of the table scan
  uint64_t tempBytes;     // the temporary buffer the sort needs (push.h's layout), at least 16
};

// The plan for count keys (the maximum, with an indirect count).
PortablePlan planPortable(uint32_t count, uint32_t tileKeys, uint32_t radixBits);

// A 2D grid of at least `groups` workgroups with x <= maxX (see
// shaders/portable.glsl); groups past `groups` return at once.
void portableGrid(uint32_t groups, uint32_t maxX, uint32_t* x, uint32_t* y);

}  // namespace vksort

#endif

// vksort's testing interface: hooks that the tests use to make Onesweep's
// waits fail on purpose. Not installed and not part of the API: a sort never
// needs them, and their results are the same with or without them.
#ifndef VKSORT_TESTING_H
#define VKSORT_TESTING_H

#include <stdint.h>

#include "vksort/vksort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VksortTestingHooks {
  // Polling rounds (8 polls each) one invocation may spend waiting on other
  // workgroups in one pass before it stops waiting and computes what it
  // needs itself (status_ring.glsl). 0 = the default, 16384.
  uint32_t spinBudget;
  // Fault injection: each tile holds back its status for up to this many
  // polling rounds (varying by tile) before publishing. 0 = off.
  uint32_t faultPublishDelay;
  // Hold the kernels' shapes to these limits, where they are below the
  // device's (0 = the device's): the smallest Vulkan allows are 16 KiB of
  // shared memory and 128 invocations per workgroup.
  uint32_t maxComputeSharedMemorySize;
  uint32_t maxComputeWorkGroupInvocations;
  // Rank a tile's keys with the uvec4 ballot, the code that subgroups of 64
  // and 128 lanes run, at every subgroup size (tile_sort.glsl, WIDE_BALLOT),
  // so that lavapipe's 4, 8 and 16 lanes run it too. 0 = off.
  uint32_t wideBallot;
  // Segmented sorts: the kernels of lanes (micro, tiny, half-subgroup and
  // subgroup segments) read and write their keys and values straight from memory, as
  // where their staging does not fit in shared memory (bitonic.comp, STAGE).
  // 0 = off.
  uint32_t segmentNoStage;
} VksortTestingHooks;

// vksortCreateSorter with hooks (null: none).
VksortResult vksortTestingCreateSorter(const VksortCreateInfo* pCreateInfo, const VksortTestingHooks* pHooks,
                                       VksortSorter* pSorter);

// Segmented sorts: where in temp the sort pSortInfo counts the segments
// that try to split on their top two digits (a u32 once the sort has run;
// only as many as the area holds split, and a count past that means some
// were refused), or VK_WHOLE_SIZE where none can split so.
VksortResult vksortTestingTwoDigitSplits(VksortSorter sorter, const VksortSegmentedSortInfo* pSortInfo,
                                         VkDeviceSize* pOffset);

#ifdef __cplusplus
}
#endif

#endif

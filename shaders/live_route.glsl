// The route of a live count: which kernel of a Onesweep sort with an
// indirect count sorts it (VKSORT_FLAG_LIVE_ROUTE, push.h). The dispatcher
// records every kernel that some live count up to maxCount may take, side
// by side, with no barrier between them; each reads the live count and runs
// only where a direct sort of that count would take it, so exactly one
// kernel touches the keys (with the histogram kernel, where that route's
// passes have a dispatch each). The includer declares KEY_WORDS.
layout(constant_id = VKSORT_SC_BITONIC_KEYS_MAX_COUNT) const uint BITONIC_KEYS_MAX_COUNT = 0;
layout(constant_id = VKSORT_SC_BITONIC_MAX_COUNT) const uint BITONIC_MAX_COUNT = 0;
layout(constant_id = VKSORT_SC_ONE_WORKGROUP_MAX_COUNT) const uint ONE_WORKGROUP_MAX_COUNT = 0;
layout(constant_id = VKSORT_SC_MIDSIZE_HALF_MAX_COUNT) const uint MIDSIZE_HALF_MAX_COUNT = 0;
layout(constant_id = VKSORT_SC_MIDSIZE_MAX_COUNT) const uint MIDSIZE_MAX_COUNT = 0;
// This kernel's route (VKSORT_ROUTE_*; the histogram kernel has none:
// routePerPass says where it counts).
layout(constant_id = VKSORT_SC_ROUTE) const uint ROUTE = VKSORT_ROUTE_NONE;
// The histogram kernel: which tile shapes have a dispatch per pass, and
// their tiles.
layout(constant_id = VKSORT_SC_CHAINED_MAX_COUNT) const uint CHAINED_MAX_COUNT = 0;
layout(constant_id = VKSORT_SC_MIDSIZE_HALF_TILE_KEYS) const uint MIDSIZE_HALF_TILE_KEYS = 1;
layout(constant_id = VKSORT_SC_MIDSIZE_TILE_KEYS) const uint MIDSIZE_TILE_KEYS = 1;
layout(constant_id = VKSORT_SC_TILE_KEYS) const uint TILE_KEYS = 1;

// The route that a direct sort of `count` keys takes (planSort): a bitonic
// network (keys-only where the sort covers every key bit and that set
// exists), the one-workgroup kernel, or the passes of the first tile shape
// that holds the count.
uint liveRoute(uint count) {
  const bool wholeKey = pc.beginBit == 0u && pc.endBit == 32u * KEY_WORDS;
  const uint bitonicMax = wholeKey && BITONIC_KEYS_MAX_COUNT != 0u ? BITONIC_KEYS_MAX_COUNT : BITONIC_MAX_COUNT;
  if (count == 0u) return VKSORT_ROUTE_NONE;
  if (count <= bitonicMax) return VKSORT_ROUTE_BITONIC;
  if (count <= ONE_WORKGROUP_MAX_COUNT) return VKSORT_ROUTE_ONE_WORKGROUP;
  if (count <= MIDSIZE_HALF_MAX_COUNT) return VKSORT_ROUTE_MIDSIZE_HALF;
  if (count <= MIDSIZE_MAX_COUNT) return VKSORT_ROUTE_MIDSIZE;
  return VKSORT_ROUTE_TILES;
}

// Whether this kernel sorts `count` keys: always, but in a sort with
// VKSORT_FLAG_LIVE_ROUTE only where the count's route is its own.
bool onRoute(uint count) { return (pc.flags & VKSORT_FLAG_LIVE_ROUTE) == 0u || liveRoute(count) == ROUTE; }

// The keys per tile of a tile shape's route.
uint routeTileKeys(uint route) {
  return route == VKSORT_ROUTE_MIDSIZE_HALF ? MIDSIZE_HALF_TILE_KEYS
         : route == VKSORT_ROUTE_MIDSIZE    ? MIDSIZE_TILE_KEYS
                                            : TILE_KEYS;
}

// Whether a tile shape's route has a dispatch per pass (after the
// histogram kernel) rather than one for every pass: where the most keys it
// may sort, up to maxCount, are above CHAINED_MAX_COUNT (planSort).
bool routePerPass(uint route) {
  const uint most = route == VKSORT_ROUTE_MIDSIZE_HALF ? min(pc.count, MIDSIZE_HALF_MAX_COUNT)
                    : route == VKSORT_ROUTE_MIDSIZE    ? min(pc.count, MIDSIZE_MAX_COUNT)
                                                       : pc.count;
  return most > CHAINED_MAX_COUNT;
}

// The decoupled look-back over a constant-size circular status buffer
// (seed 000, Listings 1-3).
//
// Every tile publishes, per digit, one 64-bit entry in ring slot
// (tile % RING_SLOTS): first its own digit count (aggregate), then, once it
// knows everything before it, its inclusive prefix. The entry carries a tag
// (pass * numTiles + tile + 1), so an entry of another tile or pass sharing
// the slot reads as "not yet published"; nothing needs clearing between
// passes.
//
// Reuse of a slot is guarded by the tail iterator: a counter of tiles that
// have finished reading the ring. A tile looks back at most LOOKBACK tiles
// (at the farthest one it waits for the inclusive prefix instead of going
// further), so once tiles [0, tail) are done, the entries of tiles below
// tail - LOOKBACK are dead and tile t may take its slot when
//     t < tail - LOOKBACK + RING_SLOTS.
// To let tiles retire out of order, the low TAIL_BITS of the tail are
// incremented in any order within an aligned group of 2^TAIL_BITS tiles; a
// group starts incrementing only when every earlier group has finished, so
// (tail & TAIL_MASK) is a conservative count of finished tiles. That wait
// can never depend on the waiting tile itself as long as
//     RING_SLOTS >= LOOKBACK + 2^TAIL_BITS.
// The dispatcher asks for one slot more than that: on lavapipe, rings of
// exactly that size gave wrong results under concurrency and we have not
// found why (see the notes in README.md). Every wait is on a tile with a lower
// number, which was taken (from the atomic tile counter) by a workgroup that
// is already running.
//
// Entries are read and written with 64-bit atomics. Some drivers split a
// 64-bit atomic load or store into two 32-bit accesses (seen on lavapipe,
// Mesa 22.3: a reader saw a new tag with an old value, and the sort wrote
// past its output). With STATUS_RMW the ring is accessed only through
// read-modify-write atomics, which no driver splits; the dispatcher turns it
// on for such drivers.
//
// The includer defines RING_SLOTS, LOOKBACK, TAIL_BITS and STATUS_RMW.

const uint TAIL_MASK = ~((1u << TAIL_BITS) - 1u);

uint64_t statusEntry(uint tag, uint value, bool inclusive) {
  return (uint64_t(tag) << 32) | uint64_t(value | (inclusive ? VKSORT_STATUS_INCLUSIVE : 0u));
}

uint statusTag(uint pass, uint tile) { return pass * pc.numTiles + tile + 1u; }

void publishStatus(uint pass, uint tile, uint digit, uint value, bool inclusive) {
  const uint i = (tile % RING_SLOTS) * VKSORT_RADIX + digit;
  const uint64_t e = statusEntry(statusTag(pass, tile), value, inclusive);
  if (STATUS_RMW)
    atomicExchange(ringBuf().v[i], e, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  else
    atomicStore(ringBuf().v[i], e, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

uint loadTail(uint pass) {
  U32Buf ctr = counters();
  return STATUS_RMW ? atomicOr(ctr.v[VKSORT_CTR_TAIL(pass)], 0u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                               gl_SemanticsAcquire)
                    : atomicLoad(ctr.v[VKSORT_CTR_TAIL(pass)], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                                 gl_SemanticsAcquire);
}

// Listing 3: before publishing anything, wait until our slot is free.
void waitForRingSlot(uint pass, uint tile) {
  if (tile + LOOKBACK < RING_SLOTS) return;
  while ((loadTail(pass) & TAIL_MASK) + RING_SLOTS - LOOKBACK <= tile) {
  }
}

// Listing 2: retire this tile once it no longer reads the ring.
void retireTile(uint pass, uint tile) {
  const uint group = tile & TAIL_MASK;
  while ((loadTail(pass) & TAIL_MASK) != group) {
  }
  atomicAdd(counters().v[VKSORT_CTR_TAIL(pass)], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
            gl_SemanticsRelease);
}

// Sum of the digit counts of all tiles before `tile` in this pass, plus the
// digit's global start (carried by tile 0's inclusive entry).
uint lookBack(uint pass, uint tile, uint digit) {
  U64Buf ring = ringBuf();
  uint prefix = 0;
  uint j = tile;
  bool done = false;
  while (!done) {
    --j;
    const bool farthest = tile - j >= LOOKBACK;
    const uint slot = (j % RING_SLOTS) * VKSORT_RADIX + digit;
    const uint tag = statusTag(pass, j);
    uint value = 0;
    bool ready = false;
    while (!ready) {
      const uint64_t e =
          STATUS_RMW ? atomicOr(ring.v[slot], 0ul, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                     : atomicLoad(ring.v[slot], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      value = uint(e);
      ready = uint(e >> 32) == tag && (!farthest || (value & VKSORT_STATUS_INCLUSIVE) != 0u);
    }
    prefix += value & VKSORT_STATUS_VALUE_MASK;
    done = (value & VKSORT_STATUS_INCLUSIVE) != 0u;
  }
  return prefix;
}

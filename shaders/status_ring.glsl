// The decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back") over a constant-size circular status
// buffer guarded by a tail iterator, with a fallback that computes a missing
// tile's counts itself, so that no wait is unbounded (docs/design.md).
//
// Every tile publishes, per digit, one 64-bit entry in ring slot
// (tile % RING_SLOTS): first its own digit count (aggregate), then, once it
// knows everything before it, its inclusive prefix. The entry carries a tag
// (pass * numTiles + tile + 1) that grows with every tile of the sort, so a
// reader looking for tile j's entry tells three cases apart:
//     tag == tag(j)   the entry of tile j: its count or its prefix;
//     tag <  tag(j)   an older tile's entry or a cleared slot: not yet;
//     tag >  tag(j)   a newer tile took the slot: tile j's entry is lost.
// Nothing needs clearing between passes.
//
// Reuse of a slot is paced by the tail iterator: a counter of tiles that
// have finished reading the ring. A tile's look-back normally ends within
// LOOKBACK tiles, so once tiles [0, tail) are done the entries of tiles
// below tail - LOOKBACK are no longer needed and tile t takes its slot when
//     t < tail - LOOKBACK + RING_SLOTS.
// To let tiles retire out of order, the low TAIL_BITS of the tail are
// incremented in any order within an aligned group of 2^TAIL_BITS tiles; a
// group starts incrementing only when every earlier group has finished, so
// (tail & TAIL_MASK) is a conservative count of finished tiles. These waits
// never depend on the waiting tile itself as long as
//     RING_SLOTS >= LOOKBACK + 2^TAIL_BITS.
//
// Why nothing can hang or go wrong:
//  * Correctness never depends on a wait. A reader accepts only an entry
//    whose tag is exactly tag(j), and such an entry always holds tile j's
//    true count or prefix. When an entry is not there, the whole workgroup
//    computes tile j's digit counts from the keys (the fallback) and goes on
//    to tile j - 1; at tile 0 the prefix is the global digit start. So the
//    look-back always ends, after at most `tile` steps.
//  * Every wait (slot free, retire turn, entry published) is a spin with a
//    budget of SPIN_BUDGET polling rounds per invocation for the whole
//    dispatch. When it runs out, a tile stops waiting: it takes its slot or
//    retires anyway. That can only make a reader find an entry lost, which
//    the fallback handles. The tail iterator and the budget therefore decide
//    speed, never the result.
//  * The budget also keeps llvmpipe (lavapipe) correct: gallivm ends every
//    loop of a shader once 65535 iterations have run in total (its "loop
//    limiter", LP_MAX_TGSI_LOOP_ITERATIONS, shared by all loops of an
//    invocation). An unbounded spin used it up and then every later loop of
//    the tile ran once, which wrote keys to wrong places. Each polling round
//    polls up to 8 times in straight-line code, so the budget buys long
//    waits for few loop iterations.
//
// Entries are read and written with 64-bit atomics. With STATUS_RMW they are
// accessed only through read-modify-write atomics, for drivers that may split
// a 64-bit atomic load or store into two 32-bit accesses; the dispatcher
// turns it on for lavapipe.
//
// The includer defines RING_SLOTS, LOOKBACK, TAIL_BITS, STATUS_RMW,
// SPIN_BUDGET, PUBLISH_DELAY, LOOKBACK_LANES and CHAINED, and loadKeyDigit(pass,
// index) (the digit of input key `index` in this pass, as the tile's own
// ranking sees it).

const uint TAIL_MASK = ~((1u << TAIL_BITS) - 1u);
// One polling round: up to 8 polls in straight-line code (no loop, so no
// iterations of llvmpipe's loop limiter).
#define VKSORT_POLL_ROUND(stmt) stmt stmt stmt stmt stmt stmt stmt stmt

// Polling rounds this invocation may still spend waiting in this dispatch.
uint gSpinLeft = SPIN_BUDGET;

uint64_t statusEntry(uint tag, uint value, bool inclusive) {
  return (uint64_t(tag) << 32) | uint64_t(value | (inclusive ? VKSORT_STATUS_INCLUSIVE : 0u));
}

// Segmented sorts (onesweep.comp built with VKSORT_SEGMENT_TILES): the tiles
// of a large segment are numbered from 0 within it, here and in the
// includer; the segment's first tile is tile gTileBase of the pass (which
// tags, ring slots and the tail count), and its keys are [gKeysBegin,
// gKeysEnd). A plain sort has one segment: base 0, keys [0, count).
uint gTileBase = 0u;
uint gKeysBegin = 0u, gKeysEnd = 0u;
// Segmented sorts: the pass whose digits the tile sorts by. A split
// segment's pass 0 sorts by the last pass's digit (onesweep.comp).
uint gDigitPass = 0u;

uint statusTag(uint pass, uint tile) { return pass * pc.numTiles + gTileBase + tile + 1u; }
uint statusSlot(uint tile, uint digit) { return ((gTileBase + tile) % RING_SLOTS) * VKSORT_RADIX + digit; }

uint64_t loadStatus(uint i) {
  return STATUS_RMW ? atomicOr(ringBuf().v[i], 0ul, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                    : atomicLoad(ringBuf().v[i], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// Fault injection (tests only): hold a tile back for up to PUBLISH_DELAY
// polling rounds before it publishes, by an amount that varies with the tile.
void injectDelay(uint tile) {
  if (PUBLISH_DELAY == 0u) return;
  uint n = ((tile * 2654435761u) >> 7) % (PUBLISH_DELAY + 1u);
  while (n > 0u) {
    atomicAdd(counters().v[VKSORT_CTR_HIST_DONE], 0u);  // an atomic, so the loop is not optimised away
    --n;
  }
}

void publishStatus(uint pass, uint tile, uint digit, uint value, bool inclusive) {
  const uint i = statusSlot(tile, digit);
  const uint64_t e = statusEntry(statusTag(pass, tile), value, inclusive);
  if (STATUS_RMW)
    atomicExchange(ringBuf().v[i], e, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
  else
    atomicStore(ringBuf().v[i], e, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// A u32 that other workgroups of this dispatch write (a counter, or a digit
// start that the chained passes' histogram items scan), read with a relaxed
// atomic; with STATUS_RMW through a read-modify-write, like the ring.
uint loadCounter(U32Buf b, uint i) {
  return STATUS_RMW ? atomicOr(b.v[i], 0u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                    : atomicLoad(b.v[i], gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}

// The tail is read and advanced with relaxed atomics: it paces slot reuse
// for speed, and the tags, not ordering, keep a reused slot from being
// misread. (A release on the increment would also make the workgroup wait
// for its key stores to complete before it can end.)
uint loadTail(uint pass) { return loadCounter(counters(), VKSORT_CTR_TAIL(pass)); }

// The largest (tail & TAIL_MASK) this invocation has seen in this dispatch.
uint gTailSeen = 0u;

// Spins until (tail & TAIL_MASK) >= target or the budget runs out; returns
// whether the target was reached. Called by one invocation. A target already
// seen costs no load.
bool waitForTail(uint pass, uint target) {
  if (gTailSeen >= target) return true;
  uint t = loadTail(pass) & TAIL_MASK;
  while (t < target && gSpinLeft > 0u) {
    --gSpinLeft;
    VKSORT_POLL_ROUND(if (t < target) t = loadTail(pass) & TAIL_MASK;)
  }
  gTailSeen = max(gTailSeen, t);
  return t >= target;
}

// Before publishing anything, wait until our slot is free (the spin wait of
// the AMD GPUOpen article "Boosting GPU Radix Sort performance: A
// memory-efficient extension to Onesweep with circular buffers").
void waitForRingSlot(uint pass, uint tile) {
  const uint t = gTileBase + tile;
  if (t + LOOKBACK >= RING_SLOTS) waitForTail(pass, t + LOOKBACK + 1u - RING_SLOTS);
}

// Retire this tile once it no longer reads the ring (the same article's tail
// iterator with out-of-order increments in its low bits): once every
// earlier group of 2^TAIL_BITS tiles has retired. The tail that the slot wait
// read usually shows that already (it lags this tile only by the tiles in
// flight), so most tiles retire with one atomic add and no load.
//
// With CHAINED passes the increment releases the tile's writes (the
// includer's barrier put them before it): the next pass waits for the tail
// to count every tile.
void retireTile(uint pass, uint tile) {
  waitForTail(pass, (gTileBase + tile) & TAIL_MASK);
  if (CHAINED)
    atomicAdd(counters().v[VKSORT_CTR_TAIL(pass)], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
              gl_SemanticsRelease | gl_SemanticsMakeAvailable);
  else
    atomicAdd(counters().v[VKSORT_CTR_TAIL(pass)], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
              gl_SemanticsRelaxed);
}

// Whether entry e is still worth waiting for: an older tag (not published
// yet), or, when the reader wants an inclusive prefix, this tile's aggregate.
bool statusPending(uint64_t e, uint tag, bool wantInclusive) {
  const uint t = uint(e >> 32);
  return t < tag || (wantInclusive && t == tag && (uint(e) & VKSORT_STATUS_INCLUSIVE) == 0u);
}

// Polls entry i while it is pending and the budget lasts; returns the last
// value read.
uint64_t pollStatus(uint i, uint tag, bool wantInclusive) {
  uint64_t e = loadStatus(i);
  while (statusPending(e, tag, wantInclusive) && gSpinLeft > 0u) {
    --gSpinLeft;
    VKSORT_POLL_ROUND(if (statusPending(e, tag, wantInclusive)) e = loadStatus(i);)
  }
  return e;
}

// A digit's look-back is walked by LB_LANES adjacent invocations of one
// subgroup (a "cluster"): each step reads LB_LANES earlier tiles at once,
// lane q tile next - 1 - q, so a walk over k tiles waits for k / LB_LANES
// round trips instead of k. (A walk is short only if the tiles just before
// have published their prefixes; with many tiles in flight the nearest
// prefix is often tens of tiles back.) When the workgroup has fewer than 256 clusters,
// each invocation walks LB_DIGITS digits one after the other.
const uint LB_LANES = LOOKBACK_LANES;
const uint LB_CLUSTERS = WG_SIZE / LB_LANES;                             // digits walked at once
const uint LB_DIGITS = (VKSORT_RADIX + LB_CLUSTERS - 1u) / LB_CLUSTERS;  // digits per invocation
const uint LB_AGGREGATE = 0u, LB_INCLUSIVE = 1u, LB_MISSING = 2u;         // what a lane read

// This invocation's lane in its cluster, and its cluster's k-th digit
// (>= VKSORT_RADIX: none). Clusters never straddle subgroups.
uint lookLane() { return gl_SubgroupInvocationID % LB_LANES; }
uint lookDigit(uint k) {
  const uint cluster = gl_SubgroupID * (SG_SIZE / LB_LANES) + gl_SubgroupInvocationID / LB_LANES;
  return cluster + k * LB_CLUSTERS;
}

// The minimum and the sum over this invocation's cluster (butterfly
// shuffles; every invocation of the subgroup must take part).
uint clusterMin(uint v) {
  for (uint m = 1u; m < LB_LANES; m <<= 1) v = min(v, subgroupShuffleXor(v, m));
  return v;
}
uint clusterAdd(uint v) {
  for (uint m = 1u; m < LB_LANES; m <<= 1) v += subgroupShuffleXor(v, m);
  return v;
}

// Publishes this tile's inclusive prefix of `digit` (lane 0 of the cluster):
// `prefix` keys go before the tile's first key of the digit, and
// sDigitBase[digit] holds the tile's count (the includer's).
void publishInclusive(uint pass, uint tile, uint digit, uint prefix) {
  if (lookLane() == 0u) publishStatus(pass, tile, digit, prefix + sDigitBase[digit], true);
}

// Walks one digit's look-back, when `start`, from tile `next` - 1 down,
// adding the counts it finds to `prefix`, until it finds an inclusive prefix
// (then next = 0, and the tile publishes its own as soon as the subgroup's
// walks are over, not waiting for the workgroup's) or an entry that is not
// there (then tile next - 1 is missing). LOOKBACK tiles back it waits for
// the inclusive prefix rather than walking on (a bounded look-back): longer walks over aggregates would reach slots the ring may
// have reused, whose loss costs a fallback. After the budget it takes the
// aggregate and walks on. Called by whole subgroups (uniform control flow);
// `start` and the inout values are the same in all lanes of a cluster, and
// clusters that do not walk only take part in the shuffles.
void walkBack(uint pass, uint tile, uint digit, bool start, inout uint prefix, inout uint next) {
  const uint q = lookLane();
  bool walking = start && next > 0u;
  while (subgroupBallot(walking) != uvec4(0u)) {
    // Tiles below 0 read as an inclusive 0; no walk reaches them, as tile 0
    // publishes its inclusive prefix and nothing else.
    uint state = LB_INCLUSIVE, value = 0u;
    if (walking && next > q) {
      const uint j = next - 1u - q;
      const uint tag = statusTag(pass, j);
      const uint64_t e = pollStatus(statusSlot(j, digit), tag, tile - j >= LOOKBACK);
      value = uint(e) & VKSORT_STATUS_VALUE_MASK;
      state = uint(e >> 32) != tag                           ? LB_MISSING
              : (uint(e) & VKSORT_STATUS_INCLUSIVE) != 0u ? LB_INCLUSIVE
                                                             : LB_AGGREGATE;
    }
    // The nearest lane that ends the walk, and what it read: stop / 4 is
    // its lane, stop % 4 its state; 4 LB_LANES when every lane read an
    // aggregate.
    const uint stop = clusterMin(state == LB_AGGREGATE ? 4u * LB_LANES : 4u * q + state);
    const uint stopLane = stop / 4u;
    const uint add = clusterAdd(q < stopLane || (q == stopLane && state == LB_INCLUSIVE) ? value : 0u);
    if (walking) {
      prefix += add;
      if (stopLane == LB_LANES) {
        next -= LB_LANES;
      } else if (stop % 4u == LB_INCLUSIVE) {
        next = 0u;
        walking = false;
      } else {
        next -= stopLane;  // tile next - 1 is missing
        walking = false;
      }
    }
  }
  // Here, not in the loop where the walks end: publishing from inside the
  // loop, where lanes diverge, made lavapipe (Mesa 22.3.6) publish wrong
  // prefixes in the faults test (1 run in 2); from here it never did.
  if (start && next == 0u) publishInclusive(pass, tile, digit, prefix);
}

// The look-back, called by the whole workgroup (uniform control flow). On
// return, sLookPrefix[d] is the number of keys that go before this tile's
// first key of digit d: the digit's global start plus its counts in tiles
// [0, tile), and the tile has published its inclusive prefix of every digit.
// Each cluster walks back for its own digits; only when some digit met a
// missing entry does the workgroup take fallback rounds: it counts the
// digits of the highest missing tile from the keys, hands those counts to
// the digits stuck there, and lets them walk on.
// The includer zeroes sLookMissing[0] before a barrier that precedes this,
// and keeps the tile's count of each digit d in sDigitBase[d].
shared uint sLookPrefix[VKSORT_RADIX];
shared uint sLookCount[VKSORT_RADIX];  // fallback: one tile's digit counts
shared uint sLookMissing[2];           // per round: highest missing tile + 1, 0 = none

// Entry i of the digit starts (the scanned histograms). CHAINED reads them
// coherently: the dispatch itself wrote them.
uint loadDigitStart(U32Buf globalStart, uint i) { return CHAINED ? loadCounter(globalStart, i) : globalStart.v[i]; }

void lookBack(uint pass, uint tile, U32Buf globalStart) {
  const uint tid = gl_LocalInvocationIndex;
  uint prefix[LB_DIGITS];
  uint next[LB_DIGITS];
  injectDelay(tile);
  for (uint k = 0; k < LB_DIGITS; ++k) {
    const uint d = lookDigit(k);
    prefix[k] = 0u;
    next[k] = d < VKSORT_RADIX ? tile : 0u;
    walkBack(pass, tile, d, d < VKSORT_RADIX, prefix[k], next[k]);
  }
  for (uint round = 0;; ++round) {
    // Keep the spin budget uniform across the subgroup, so that a SIMD
    // implementation runs at most SPIN_BUDGET polling rounds in all.
    gSpinLeft = subgroupMin(gSpinLeft);
    uint missing = 0u;
    for (uint k = 0; k < LB_DIGITS; ++k) missing = max(missing, next[k]);
    missing = subgroupMax(missing);
    if (subgroupElect() && missing != 0u) atomicMax(sLookMissing[round & 1u], missing);
    barrier();
    missing = sLookMissing[round & 1u];
    if (missing == 0u) break;
    // Every read of the other word happened before the barriers below.
    if (tid == 0) sLookMissing[(round + 1u) & 1u] = 0u;

    // Fallback: count the digits of tile j ourselves.
    const uint j = missing - 1u;
    for (uint base = 0; base < VKSORT_RADIX; base += WG_SIZE)  // same turns everywhere: tile_sort.glsl
      if (base + tid < VKSORT_RADIX) sLookCount[base + tid] = 0u;
    barrier();
    const uint start = gKeysBegin + j * TILE;
    const uint n = min(TILE, gKeysEnd - start);
    for (uint base = 0; base < TILE; base += WG_SIZE)
      if (base + tid < n) {
        const uint i = start + base + tid;
        atomicAdd(sLookCount[SEGMENT_TILES ? digitOf(loadKey(pass, i), gDigitPass) : loadKeyDigit(pass, i)], 1u);
      }
    barrier();
    for (uint k = 0; k < LB_DIGITS; ++k) {
      const uint d = lookDigit(k);
      const bool stuck = next[k] == missing;  // false for d >= VKSORT_RADIX (next is 0)
      if (stuck) {
        prefix[k] += sLookCount[d];
        if (j == 0u) prefix[k] += loadDigitStart(globalStart, pass * VKSORT_RADIX + d);
        next[k] = j;
      }
      walkBack(pass, tile, d, stuck, prefix[k], next[k]);
    }
  }
  for (uint k = 0; k < LB_DIGITS; ++k) {
    const uint d = lookDigit(k);
    if (d < VKSORT_RADIX && lookLane() == 0u) sLookPrefix[d] = prefix[k];
  }
}

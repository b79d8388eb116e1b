// bench_cpu.h: the CPU baselines of vksort_bench --cpu: std::sort and a plain
// LSD radix sort (8-bit digits), both single-threaded, on the same keys (and
// values) as the GPU sort, with the same order semantics (bench_common.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "bench_common.h"

namespace bench {

// Order-preserving pattern for a key kind known at compile time.
template <class KW, KeyKind K>
inline KW toOrdered(KW raw) {
  constexpr KW sign = KW(KW(1) << (sizeof(KW) * 8 - 1));
  if constexpr (K == kSigned) {
    return KW(raw ^ sign);
  } else if constexpr (K == kFloat) {
    return (raw & sign) ? KW(~raw) : KW(raw ^ sign);
  } else {
    return raw;
  }
}

template <class KW, KeyKind K>
inline KW fromOrdered(KW u) {
  constexpr KW sign = KW(KW(1) << (sizeof(KW) * 8 - 1));
  if constexpr (K == kSigned) {
    return KW(u ^ sign);
  } else if constexpr (K == kFloat) {
    return (u & sign) ? KW(u ^ sign) : KW(~u);
  } else {
    return u;
  }
}

// Stable LSD radix sort by bits [beginBit, endBit) of the order-preserving
// pattern (all of it flipped for descending), 8 bits a pass: map the keys to
// that pattern, one counting-sort pass per digit ping-ponging with tmpKeys
// (and tmpValues), map back. values may be null; with argsort they are set to
// 0 ... n-1 first. The scratch vectors are the caller's (preallocated, as the
// GPU sorts' are).
template <class KW, KeyKind K, class VW>
void cpuRadixSort(KW* keys, VW* values, size_t n, const Order& o, bool argsort, std::vector<KW>& tmpKeys,
                  std::vector<VW>& tmpValues) {
  const KW flip = o.descending ? KW(~KW(0)) : KW(0);
  if (values && argsort)
    for (size_t i = 0; i < n; ++i) values[i] = VW(i);
  for (size_t i = 0; i < n; ++i) keys[i] = KW(toOrdered<KW, K>(keys[i]) ^ flip);
  KW* src = keys;
  KW* dst = tmpKeys.data();
  VW* vsrc = values;
  VW* vdst = values ? tmpValues.data() : nullptr;
  for (uint32_t shift = o.beginBit; shift < o.endBit; shift += 8) {
    const uint32_t width = std::min<uint32_t>(8, o.endBit - shift);
    const KW mask = KW((1u << width) - 1);
    size_t offset[257] = {};
    for (size_t i = 0; i < n; ++i) ++offset[((src[i] >> shift) & mask) + 1];
    for (int d = 0; d < 256; ++d) offset[d + 1] += offset[d];
    if (values) {
      for (size_t i = 0; i < n; ++i) {
        const size_t pos = offset[(src[i] >> shift) & mask]++;
        dst[pos] = src[i];
        vdst[pos] = vsrc[i];
      }
      std::swap(vsrc, vdst);
    } else {
      for (size_t i = 0; i < n; ++i) dst[offset[(src[i] >> shift) & mask]++] = src[i];
    }
    std::swap(src, dst);
  }
  for (size_t i = 0; i < n; ++i) keys[i] = fromOrdered<KW, K>(KW(src[i] ^ flip));
  if (values && vsrc != values) std::memcpy(values, vsrc, n * sizeof(VW));
}

// std::sort by the same order (not stable). Keys only: sorts the keys. With
// values: zips (key, value) pairs, sorts them by key and unzips. Argsort:
// sorts the indices 0 ... n-1 by their keys (the keys stay where they are).
template <class KW, KeyKind K, class VW>
void cpuStdSort(KW* keys, VW* values, size_t n, const Order& o, bool argsort) {
  const bool plain = !o.descending && o.fullRange();
  const KW flip = o.descending ? KW(~KW(0)) : KW(0);
  const uint32_t width = o.endBit - o.beginBit;
  const KW mask = width >= sizeof(KW) * 8 ? KW(~KW(0)) : KW((KW(1) << width) - 1);
  const uint32_t shift = o.beginBit;
  auto fast = [](KW a, KW b) { return toOrdered<KW, K>(a) < toOrdered<KW, K>(b); };
  auto general = [=](KW a, KW b) {
    return ((KW(toOrdered<KW, K>(a) ^ flip) >> shift) & mask) < ((KW(toOrdered<KW, K>(b) ^ flip) >> shift) & mask);
  };
  if (!values) {
    if (plain)
      std::sort(keys, keys + n, fast);
    else
      std::sort(keys, keys + n, general);
  } else if (argsort) {
    for (size_t i = 0; i < n; ++i) values[i] = VW(i);
    if (plain)
      std::sort(values, values + n, [&](VW a, VW b) { return fast(keys[a], keys[b]); });
    else
      std::sort(values, values + n, [&](VW a, VW b) { return general(keys[a], keys[b]); });
  } else {
    struct Pair {
      KW k;
      VW v;
    };
    std::vector<Pair> pairs(n);
    for (size_t i = 0; i < n; ++i) pairs[i] = {keys[i], values[i]};
    if (plain)
      std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) { return fast(a.k, b.k); });
    else
      std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) { return general(a.k, b.k); });
    for (size_t i = 0; i < n; ++i) {
      keys[i] = pairs[i].k;
      values[i] = pairs[i].v;
    }
  }
}

struct CpuResult {
  double medianMs = 0, minMs = 0;
  int runs = 0;
  Check check;
};

// Times one CPU sort of `inKeys` / `inValues` (runs from a fresh copy each
// time; the copy is not timed) and checks the last result.
template <class KW, KeyKind K, class VW>
CpuResult timeCpuSort(bool radix, const HostArray& inKeys, const HostArray& inValues, ValueMode vm, uint32_t valueMask,
                      const Order& o, int runs) {
  const size_t n = inKeys.n;
  const bool hasValues = vm != kNoValue;
  const bool argsort = vm == kIndex;
  std::vector<KW> keys(n), tmpKeys(radix ? n : 0);
  std::vector<VW> values(hasValues ? n : 0), tmpValues(radix && hasValues ? n : 0);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    std::memcpy(keys.data(), inKeys.data(), n * sizeof(KW));
    if (hasValues && !argsort) std::memcpy(values.data(), inValues.data(), n * sizeof(VW));
    const auto t0 = std::chrono::steady_clock::now();
    if (radix)
      cpuRadixSort<KW, K, VW>(keys.data(), hasValues ? values.data() : nullptr, n, o, argsort, tmpKeys, tmpValues);
    else
      cpuStdSort<KW, K, VW>(keys.data(), hasValues ? values.data() : nullptr, n, o, argsort);
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  if (argsort && !radix)  // std::sort's argsort leaves the keys; gather them for the check
    for (size_t i = 0; i < n; ++i) keys[i] = static_cast<const KW*>(inKeys.data())[values[i]];
  CpuResult res;
  res.medianMs = median(ms);
  res.minMs = *std::min_element(ms.begin(), ms.end());
  res.runs = runs;
  res.check = verifySort(o, vm, valueMask, n, inKeys.words(), inValues.words(), Words{keys.data(), sizeof(KW)},
                         Words{values.data(), hasValues ? uint32_t(sizeof(VW)) : 0u}, radix, false);
  return res;
}

// Dispatches on the key type and value width.
inline CpuResult timeCpuSort(bool radix, const HostArray& inKeys, const HostArray& inValues, ValueMode vm,
                             uint32_t valueMask, const Order& o, int runs) {
  const bool wide = o.bits == 64;
  const bool wideValues = vm == kValue64;
#define BENCH_CPU_CASE(KW, K)                                                                       \
  return wideValues ? timeCpuSort<KW, K, uint64_t>(radix, inKeys, inValues, vm, valueMask, o, runs) \
                    : timeCpuSort<KW, K, uint32_t>(radix, inKeys, inValues, vm, valueMask, o, runs)
  switch (o.kind) {
    case kUnsigned:
      if (wide) BENCH_CPU_CASE(uint64_t, kUnsigned);
      BENCH_CPU_CASE(uint32_t, kUnsigned);
    case kSigned:
      if (wide) BENCH_CPU_CASE(uint64_t, kSigned);
      BENCH_CPU_CASE(uint32_t, kSigned);
    case kFloat:
      if (wide) BENCH_CPU_CASE(uint64_t, kFloat);
      BENCH_CPU_CASE(uint32_t, kFloat);
  }
#undef BENCH_CPU_CASE
  return {};
}

}  // namespace bench

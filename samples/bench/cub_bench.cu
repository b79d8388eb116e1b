// cub_bench.cu - CUDA/CUB baseline for the vksort benchmarks.
//
// Times cub::DeviceRadixSort (DoubleBuffer overloads: SortKeys, SortPairs and
// their Descending forms) on the same inputs as vksort_bench (bench_common.h:
// same generator, same seeds, same order semantics), and writes one JSON line
// per size in the same schema, so compare.py can join the two.
//   --value none  -> SortKeys
//   --value u32   -> SortPairs with 32-bit values, u64 -> 64-bit values
//   --value index -> SortPairs with an iota index array as the values
//   --dist morton -> begin_bit 0, end_bit 30 (unless --bits says otherwise)
// Each run generates fresh keys on the device (not timed); CUDA events time
// only the DeviceRadixSort call, with temp storage allocated beforehand; the
// median of the timed runs is reported. The first timed run of every size is
// verified on the host (bench::verifySort). CUB sorts -0.0 and +0.0 as equal
// keys (in input order); the check allows for that.
//
// --segmented WORKLOAD[,WORKLOAD...] times segmented sorts instead: for each
// workload of segment_workloads.h (65536x16, ..., powerlaw4096, or any SxK),
// u32 keys with u32 values (--value none: keys only), ascending, every bit,
// the segments given by CSR offsets (begin = d_offsets, end = d_offsets + 1):
//   cub::DeviceSegmentedSort::StableSortPairs (keys only: StableSortKeys)
//   cub::DeviceSegmentedRadixSort::SortPairs  (keys only: SortKeys)
// with the same generator, seeds (of the total key count), timing and median
// as above; the first timed run is checked segment by segment against
// std::stable_sort on the host. Each (workload, CUB call) gives one row, with
// N = the total key count, "segments" and "workload" (the workload's name).
// This mode is always compiled in, whatever the masks below say.
//
// Depends only on the CUDA toolkit (CUB ships with it), bench_common.h and
// segment_workloads.h.
//
// Build:  nvcc -O3 -arch=sm_90 -std=c++17 -o cub_bench samples/bench/cub_bench.cu
// Every key and value type is compiled in by default (a few minutes of nvcc).
// To build only some: -DCUB_BENCH_KEY_MASK=0x9 (bit k = key k of u32, i32,
// f32, u64, i64, f64), -DCUB_BENCH_VALUE_MASK=0x3 (bit 0 keys only, bit 1
// 32-bit values and index, bit 2 64-bit values), -DCUB_BENCH_DESCENDING=0.
// Run:    ./cub_bench [--sizes 1024,65536,...] [--runs 30] [--key u64] [--value u32] [--json FILE] ...
//         ./cub_bench --segmented 65536x16,1024x1024,powerlaw4096 [--value none] [--json FILE] ...

#include <cuda.h>  // driver API types only; the functions come from cudaGetDriverEntryPointByVersion
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_common.h"
#include "segment_workloads.h"

#ifndef CUB_BENCH_KEY_MASK
#define CUB_BENCH_KEY_MASK 0x3F
#endif
#ifndef CUB_BENCH_VALUE_MASK
#define CUB_BENCH_VALUE_MASK 0x7
#endif
#ifndef CUB_BENCH_DESCENDING
#define CUB_BENCH_DESCENDING 1
#endif

// ---------------------------------------------------------------------------
// Error handling: every CUDA call goes through CK(); any failure is fatal.
// ---------------------------------------------------------------------------
#define CK(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t err_ = (call);                                                                                         \
    if (err_ != cudaSuccess) {                                                                                         \
      std::fprintf(stderr, "CUDA error %s (%d) at %s:%d: %s\n", cudaGetErrorName(err_), (int)err_, __FILE__, __LINE__, \
                   #call);                                                                                             \
      std::fprintf(stderr, "  %s\n", cudaGetErrorString(err_));                                                        \
      std::exit(2);                                                                                                    \
    }                                                                                                                  \
  } while (0)

static const char* const kProg = "cub_bench";

// ---------------------------------------------------------------------------
// Input generation (device side): bench::genKey / genValue* for every index,
// exactly as keygen.comp does for vksort_bench. Grid-stride loop.
// ---------------------------------------------------------------------------
template <class KW>
__global__ void gen_kernel(KW* keys, uint32_t* values32, uint64_t* values64, bench::GenParams p, bool iota) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < p.count;
       i += (uint64_t)gridDim.x * blockDim.x) {
    const uint32_t ii = (uint32_t)i;
    keys[i] = (KW)bench::genKey(p, ii);
    if (values32) values32[i] = iota ? ii : bench::genValue32(p, ii);
    if (values64) values64[i] = bench::genValue64(p, ii);
  }
}

// Grid size for the generator: enough blocks to fill the GPU, no more.
static unsigned helper_blocks(uint32_t n, int sm_count) {
  const uint64_t needed = ((uint64_t)n + 255) / 256;
  return (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(needed, (uint64_t)sm_count * 8));
}

// ---------------------------------------------------------------------------
// The CUB call. V = void: keys only.
// ---------------------------------------------------------------------------
template <class K, class V, bool DESCENDING>
static cudaError_t cub_sort(void* d_temp, size_t& temp_bytes, cub::DoubleBuffer<K>& keys,
                            cub::DoubleBuffer<std::conditional_t<std::is_void<V>::value, uint32_t, V>>& values,
                            uint32_t n, int begin_bit, int end_bit, cudaStream_t stream) {
  if constexpr (std::is_void<V>::value) {
    if constexpr (DESCENDING)
      return cub::DeviceRadixSort::SortKeysDescending(d_temp, temp_bytes, keys, n, begin_bit, end_bit, stream);
    else
      return cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys, n, begin_bit, end_bit, stream);
  } else {
    if constexpr (DESCENDING)
      return cub::DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, keys, values, n, begin_bit, end_bit, stream);
    else
      return cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys, values, n, begin_bit, end_bit, stream);
  }
}

struct Env {
  cudaDeviceProp prop;
  std::string device, driver, commit;
  cudaStream_t stream;
  cudaEvent_t ev_start, ev_stop;
  int carveout = -1;  // --carveout, or -1
};

// Benchmarks one key type / value type / order over all sizes. Returns false
// if a result was wrong.
template <class K, class V, bool DESCENDING>
static bool run_config(const bench::CommonOptions& opt, const Env& env, FILE* json) {
  using KW = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;   // the key's raw bits
  using VS = std::conditional_t<std::is_void<V>::value, uint32_t, V>;  // stand-in when there are no values
  constexpr bool kHasValues = !std::is_void<V>::value;
  static_assert(sizeof(K) == sizeof(KW), "key size");
  const uint32_t key_bytes = sizeof(K);
  const uint32_t value_bytes = bench::valueBytes(opt.value);
  const bool gen_values = opt.value == bench::kValue32 || opt.value == bench::kValue64;
  // CUB sorts -0.0 and +0.0 as equal keys: check with that order.
  const bench::Order order = opt.order(true);
  bool all_ok = true;

  std::printf("%12s %12s %12s %10s %14s  %s\n", "N", "median_us", "min_us", "Gkeys/s", "temp_bytes", "check");
  for (const uint32_t n : opt.sizes) {
    // Buffers are allocated once per size and reused by every run.
    K *d_k0 = nullptr, *d_k1 = nullptr;
    VS *d_v0 = nullptr, *d_v1 = nullptr;
    CK(cudaMalloc(&d_k0, (size_t)n * sizeof(K)));
    CK(cudaMalloc(&d_k1, (size_t)n * sizeof(K)));
    if (kHasValues) {
      CK(cudaMalloc(&d_v0, (size_t)n * sizeof(VS)));
      CK(cudaMalloc(&d_v1, (size_t)n * sizeof(VS)));
    }
    // Temp storage query. The DoubleBuffer overloads ping-pong between the two
    // buffers of each pair instead of copying back; the second buffers are
    // the "double buffer" counted in temp_bytes below.
    size_t temp_storage_bytes = 0;
    {
      cub::DoubleBuffer<K> dk(d_k0, d_k1);
      cub::DoubleBuffer<VS> dv(d_v0, d_v1);
      CK((cub_sort<K, V, DESCENDING>(nullptr, temp_storage_bytes, dk, dv, n, (int)opt.beginBit, (int)opt.endBit,
                                     env.stream)));
    }
    void* d_temp = nullptr;
    CK(cudaMalloc(&d_temp, std::max<size_t>(temp_storage_bytes, 1)));

    const unsigned blocks = helper_blocks(n, env.prop.multiProcessorCount);
    std::vector<double> times_ms;
    bench::Check check;
    check.fail("not run");
    bench::HostArray in_keys, in_values, out_keys, out_values;

    for (int r = 0; r < opt.warmup + opt.runs; ++r) {
      const bool timed = r >= opt.warmup;
      const bool verify = r == opt.warmup;  // first timed run of each size

      // Fresh input every run, generated on the GPU (not timed).
      const bench::GenParams params =
          bench::makeGenParams(bench::runSeed((uint32_t)r, n), n, opt.key, opt.value, opt.dist);
      gen_kernel<KW><<<blocks, 256, 0, env.stream>>>(
          reinterpret_cast<KW*>(d_k0), kHasValues && value_bytes == 4 ? reinterpret_cast<uint32_t*>(d_v0) : nullptr,
          kHasValues && value_bytes == 8 ? reinterpret_cast<uint64_t*>(d_v0) : nullptr, params,
          opt.value == bench::kIndex);
      CK(cudaGetLastError());
      if (verify) {
        in_keys.resize(n, key_bytes);
        in_values.resize(n, gen_values ? value_bytes : 0);
        CK(cudaMemcpyAsync(in_keys.data(), d_k0, in_keys.sizeBytes(), cudaMemcpyDeviceToHost, env.stream));
        if (gen_values)
          CK(cudaMemcpyAsync(in_values.data(), d_v0, in_values.sizeBytes(), cudaMemcpyDeviceToHost, env.stream));
      }
      // Drain the stream so that nothing queued above overlaps the timed region.
      CK(cudaStreamSynchronize(env.stream));

      // The selectors must start at buffer 0 every run: CUB flips them to
      // whichever buffer ends up holding the sorted data.
      cub::DoubleBuffer<K> dk(d_k0, d_k1);
      cub::DoubleBuffer<VS> dv(d_v0, d_v1);
      CK(cudaEventRecord(env.ev_start, env.stream));
      CK((cub_sort<K, V, DESCENDING>(d_temp, temp_storage_bytes, dk, dv, n, (int)opt.beginBit, (int)opt.endBit,
                                     env.stream)));
      CK(cudaEventRecord(env.ev_stop, env.stream));
      CK(cudaEventSynchronize(env.ev_stop));
      CK(cudaGetLastError());
      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, env.ev_start, env.ev_stop));
      if (timed) times_ms.push_back(ms);

      if (verify) {
        out_keys.resize(n, key_bytes);
        out_values.resize(n, value_bytes);
        CK(cudaMemcpy(out_keys.data(), dk.Current(), out_keys.sizeBytes(), cudaMemcpyDeviceToHost));
        if (kHasValues) CK(cudaMemcpy(out_values.data(), dv.Current(), out_values.sizeBytes(), cudaMemcpyDeviceToHost));
        const bool reference = n <= opt.referenceMax;
        check = bench::verifySort(order, opt.value, params.valueMask, n, in_keys.words(), in_values.words(),
                                  out_keys.words(), out_values.words(), true, reference);
        if (reference) {
          const bench::Check gen = bench::checkGenerated(params, opt.value, in_keys.words(), in_values.words());
          if (!gen.ok) check.fail("the generator disagrees with bench_common.h: " + gen.what);
        }
        if (!check.ok) std::fprintf(stderr, "cub_bench: WRONG RESULT at N = %u: %s\n", n, check.what.c_str());
      }
    }

    bench::Row row;
    row.algorithm = env.carveout < 0 ? std::string("cub DeviceRadixSort")
                                     : "cub DeviceRadixSort, carveout " + std::to_string(env.carveout) + "%";
    row.device = env.device;
    row.driver = env.driver;
    row.commit = env.commit;
    row.key = opt.keyInfo().name;
    row.value = bench::kValueNames[opt.value];
    row.dist = bench::kDistNames[opt.dist];
    row.workload = opt.workload;
    row.n = n;
    row.descending = opt.descending;
    row.beginBit = opt.beginBit;
    row.endBit = opt.endBit;
    row.runs = opt.runs;
    row.warmup = opt.warmup;
    row.medianMs = bench::median(times_ms);
    row.minMs = *std::min_element(times_ms.begin(), times_ms.end());
    // CUB's temp storage plus the alternate key (and value) buffer of the
    // DoubleBuffers, as vksort's temp_bytes counts its alt buffers.
    row.tempOnlyBytes = temp_storage_bytes;
    row.tempBytes = temp_storage_bytes + (size_t)n * key_bytes + (size_t)n * value_bytes;
    row.verified = check.ok;
    row.check = n <= opt.referenceMax ? "std::stable_sort reference + O(N) check"
                                      : "O(N) check (order, permutation, stability)";
    row.extra = "\"timing\":\"cuda events\"";
    if (opt.times) row.timesMs = times_ms;

    std::printf("%12u %12.2f %12.2f %10.3f %14llu  %s\n", n, row.medianMs * 1e3, row.minMs * 1e3, row.keysPerS() * 1e-9,
                (unsigned long long)row.tempBytes, check.ok ? "ok" : "WRONG");
    std::fflush(stdout);
    if (json) {
      // Written per size and flushed, so a later failure (e.g. OOM at 2^28)
      // still leaves the earlier rows.
      std::fprintf(json, "%s\n", row.json().c_str());
      std::fflush(json);
    }

    CK(cudaFree(d_temp));
    if (kHasValues) {
      CK(cudaFree(d_v1));
      CK(cudaFree(d_v0));
    }
    CK(cudaFree(d_k1));
    CK(cudaFree(d_k0));
    all_ok = all_ok && check.ok;
  }
  return all_ok;
}

// ---------------------------------------------------------------------------
// Dispatch on the key type, value type and order (each combination is its own
// set of CUB kernels; the masks above leave some out).
// ---------------------------------------------------------------------------
template <class K, class V>
static bool run_order(const bench::CommonOptions& opt, const Env& env, FILE* json) {
  if (!opt.descending) return run_config<K, V, false>(opt, env, json);
#if CUB_BENCH_DESCENDING
  return run_config<K, V, true>(opt, env, json);
#else
  bench::fatal(kProg, "descending sorts were not compiled in (built with -DCUB_BENCH_DESCENDING=0)");
#endif
}

template <class K>
static bool run_value(const bench::CommonOptions& opt, const Env& env, FILE* json) {
  switch (opt.value) {
#if CUB_BENCH_VALUE_MASK & 1
    case bench::kNoValue: return run_order<K, void>(opt, env, json);
#endif
#if CUB_BENCH_VALUE_MASK & 2
    case bench::kValue32:
    case bench::kIndex: return run_order<K, uint32_t>(opt, env, json);
#endif
#if CUB_BENCH_VALUE_MASK & 4
    case bench::kValue64: return run_order<K, uint64_t>(opt, env, json);
#endif
    default: break;
  }
  bench::fatal(kProg, std::string("--value ") + bench::kValueNames[opt.value] +
                          " was not compiled in (see CUB_BENCH_VALUE_MASK)");
}

static bool run_key(const bench::CommonOptions& opt, const Env& env, FILE* json) {
  switch (opt.key) {
#if CUB_BENCH_KEY_MASK & 1
    case 0: return run_value<uint32_t>(opt, env, json);
#endif
#if CUB_BENCH_KEY_MASK & 2
    case 1: return run_value<int32_t>(opt, env, json);
#endif
#if CUB_BENCH_KEY_MASK & 4
    case 2: return run_value<float>(opt, env, json);
#endif
#if CUB_BENCH_KEY_MASK & 8
    case 3: return run_value<uint64_t>(opt, env, json);
#endif
#if CUB_BENCH_KEY_MASK & 16
    case 4: return run_value<int64_t>(opt, env, json);
#endif
#if CUB_BENCH_KEY_MASK & 32
    case 5: return run_value<double>(opt, env, json);
#endif
    default: break;
  }
  bench::fatal(kProg, std::string("--key ") + opt.keyInfo().name + " was not compiled in (see CUB_BENCH_KEY_MASK)");
}

// ---------------------------------------------------------------------------
// Segmented mode (--segmented): u32 keys (and u32 values), ascending, every
// bit, sorted within the segments of a workload from segment_workloads.h.
// Always compiled in: it needs only these two types.
// ---------------------------------------------------------------------------

// The CUB calls the segmented mode times, in the order it runs them.
enum SegmentedAlgo { kSegmentedSort = 0, kSegmentedRadixSort = 1 };

// The CUB call's name, as the rows give it.
static std::string segmented_name(SegmentedAlgo algo, bool pairs) {
  if (algo == kSegmentedSort)
    return pairs ? "cub DeviceSegmentedSort::StableSortPairs" : "cub DeviceSegmentedSort::StableSortKeys";
  return pairs ? "cub DeviceSegmentedRadixSort::SortPairs" : "cub DeviceSegmentedRadixSort::SortKeys";
}

// The CUB call (DoubleBuffer overloads, as in the plain mode). Segment s is
// [d_offsets[s], d_offsets[s + 1]); `values` is unused without pairs.
static cudaError_t cub_segmented_sort(SegmentedAlgo algo, bool pairs, void* d_temp, size_t& temp_bytes,
                                      cub::DoubleBuffer<uint32_t>& keys, cub::DoubleBuffer<uint32_t>& values,
                                      uint32_t n, uint32_t segments, const uint32_t* d_offsets, cudaStream_t stream) {
  const int num_items = (int)n, num_segments = (int)segments;  // main() keeps both <= INT_MAX
  const uint32_t* d_begin = d_offsets;
  const uint32_t* d_end = d_offsets + 1;
  if (algo == kSegmentedSort) {
    if (pairs)
      return cub::DeviceSegmentedSort::StableSortPairs(d_temp, temp_bytes, keys, values, num_items, num_segments,
                                                       d_begin, d_end, stream);
    return cub::DeviceSegmentedSort::StableSortKeys(d_temp, temp_bytes, keys, num_items, num_segments, d_begin, d_end,
                                                    stream);
  }
  if (pairs)
    return cub::DeviceSegmentedRadixSort::SortPairs(d_temp, temp_bytes, keys, values, num_items, num_segments, d_begin,
                                                    d_end, 0, 32, stream);
  return cub::DeviceSegmentedRadixSort::SortKeys(d_temp, temp_bytes, keys, num_items, num_segments, d_begin, d_end, 0,
                                                 32, stream);
}

// Checks a segmented sort on the host: every segment of the output must be
// std::stable_sort (by key) of that segment of the input, key for key and,
// with values, value for value. The generated values are distinct (i ^ mask),
// so this also checks that the pairs sort is a stable permutation of each
// segment. `in_values` is empty for a keys-only sort.
static bench::Check check_segmented(const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& in_keys,
                                    const std::vector<uint32_t>& in_values, const std::vector<uint32_t>& out_keys,
                                    const std::vector<uint32_t>& out_values) {
  bench::Check c;
  const bool pairs = !in_values.empty();
  std::vector<uint32_t> ref;  // input indices of one segment, stably sorted by key
  for (size_t s = 0; s + 1 < offsets.size() && c.ok; ++s) {
    const uint32_t begin = offsets[s], end = offsets[s + 1];
    ref.resize(end - begin);
    std::iota(ref.begin(), ref.end(), begin);
    std::stable_sort(ref.begin(), ref.end(), [&](uint32_t a, uint32_t b) { return in_keys[a] < in_keys[b]; });
    for (uint32_t j = begin; j < end; ++j) {
      const uint32_t src = ref[j - begin];
      const std::string at = "segment " + std::to_string(s) + " [" + std::to_string(begin) + ", " +
                             std::to_string(end) + "), output " + std::to_string(j);
      if (out_keys[j] != in_keys[src]) {
        c.fail(at + ": key " + bench::hex(out_keys[j]) + ", std::stable_sort says " + bench::hex(in_keys[src]) +
               " (input " + std::to_string(src) + ")");
        break;
      }
      if (pairs && out_values[j] != in_values[src]) {
        c.fail(at + ": value " + bench::hex(out_values[j]) + ", std::stable_sort says " + bench::hex(in_values[src]) +
               " (input " + std::to_string(src) + ")");
        break;
      }
    }
  }
  return c;
}

// Benchmarks both CUB segmented sorts on one workload: one row each. Returns
// false if a result was wrong.
static bool run_segmented(const bench::CommonOptions& opt, const Env& env, FILE* json, const std::string& workload) {
  std::vector<uint32_t> offsets;
  std::string error;
  if (!bench::segmentWorkloadOffsets(workload, offsets, &error)) bench::fatal(kProg, error);
  const uint32_t segments = (uint32_t)(offsets.size() - 1);
  const uint32_t n = offsets.back();
  const bool pairs = opt.value == bench::kValue32;
  const uint32_t value_bytes = pairs ? 4 : 0;
  bool all_ok = true;

  std::printf("\nworkload %s: %u segments, %u keys\n", workload.c_str(), segments, n);
  std::printf("%-44s %12s %12s %10s %14s  %s\n", "algorithm", "median_us", "min_us", "Gkeys/s", "temp_bytes", "check");

  // Buffers and offsets, allocated once per workload and reused by every run
  // of both sorts.
  uint32_t *d_k0 = nullptr, *d_k1 = nullptr, *d_v0 = nullptr, *d_v1 = nullptr, *d_offsets = nullptr;
  CK(cudaMalloc(&d_k0, (size_t)n * sizeof(uint32_t)));
  CK(cudaMalloc(&d_k1, (size_t)n * sizeof(uint32_t)));
  if (pairs) {
    CK(cudaMalloc(&d_v0, (size_t)n * sizeof(uint32_t)));
    CK(cudaMalloc(&d_v1, (size_t)n * sizeof(uint32_t)));
  }
  CK(cudaMalloc(&d_offsets, offsets.size() * sizeof(uint32_t)));
  CK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));

  const unsigned blocks = helper_blocks(n, env.prop.multiProcessorCount);
  std::vector<uint32_t> in_keys, in_values, out_keys, out_values;

  for (const SegmentedAlgo algo : {kSegmentedSort, kSegmentedRadixSort}) {
    // Temp storage query and allocation, before any timed run.
    size_t temp_storage_bytes = 0;
    {
      cub::DoubleBuffer<uint32_t> dk(d_k0, d_k1);
      cub::DoubleBuffer<uint32_t> dv(d_v0, d_v1);
      CK(cub_segmented_sort(algo, pairs, nullptr, temp_storage_bytes, dk, dv, n, segments, d_offsets, env.stream));
    }
    void* d_temp = nullptr;
    CK(cudaMalloc(&d_temp, std::max<size_t>(temp_storage_bytes, 1)));

    std::vector<double> times_ms;
    bench::Check check;
    check.fail("not run");

    for (int r = 0; r < opt.warmup + opt.runs; ++r) {
      const bool timed = r >= opt.warmup;
      const bool verify = r == opt.warmup;  // first timed run

      // Fresh input every run, generated on the GPU (not timed): the plain
      // mode's generator and seeds, for N = the total key count.
      const bench::GenParams params = bench::makeGenParams(bench::runSeed((uint32_t)r, n), n, 0, opt.value, opt.dist);
      gen_kernel<uint32_t><<<blocks, 256, 0, env.stream>>>(d_k0, pairs ? d_v0 : nullptr, nullptr, params, false);
      CK(cudaGetLastError());
      if (verify) {
        in_keys.resize(n);
        in_values.resize(pairs ? n : 0);
        CK(cudaMemcpyAsync(in_keys.data(), d_k0, (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost, env.stream));
        if (pairs)
          CK(cudaMemcpyAsync(in_values.data(), d_v0, (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost, env.stream));
      }
      // Drain the stream so that nothing queued above overlaps the timed region.
      CK(cudaStreamSynchronize(env.stream));

      // The selectors must start at buffer 0 every run (see run_config).
      cub::DoubleBuffer<uint32_t> dk(d_k0, d_k1);
      cub::DoubleBuffer<uint32_t> dv(d_v0, d_v1);
      CK(cudaEventRecord(env.ev_start, env.stream));
      CK(cub_segmented_sort(algo, pairs, d_temp, temp_storage_bytes, dk, dv, n, segments, d_offsets, env.stream));
      CK(cudaEventRecord(env.ev_stop, env.stream));
      CK(cudaEventSynchronize(env.ev_stop));
      CK(cudaGetLastError());
      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, env.ev_start, env.ev_stop));
      if (timed) times_ms.push_back(ms);

      if (verify) {
        out_keys.resize(n);
        out_values.resize(pairs ? n : 0);
        CK(cudaMemcpy(out_keys.data(), dk.Current(), (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (pairs)
          CK(cudaMemcpy(out_values.data(), dv.Current(), (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        check = check_segmented(offsets, in_keys, in_values, out_keys, out_values);
        const bench::Check gen = bench::checkGenerated(params, opt.value, bench::Words{in_keys.data(), 4},
                                                       bench::Words{in_values.data(), pairs ? 4u : 0u});
        if (!gen.ok) check.fail("the generator disagrees with bench_common.h: " + gen.what);
        if (!check.ok)
          std::fprintf(stderr, "cub_bench: WRONG RESULT for %s on %s: %s\n", segmented_name(algo, pairs).c_str(),
                       workload.c_str(), check.what.c_str());
      }
    }

    bench::Row row;
    row.algorithm = segmented_name(algo, pairs);
    if (env.carveout >= 0) row.algorithm += ", carveout " + std::to_string(env.carveout) + "%";
    row.device = env.device;
    row.driver = env.driver;
    row.commit = env.commit;
    row.key = "u32";
    row.value = bench::kValueNames[opt.value];
    row.dist = bench::kDistNames[opt.dist];
    row.workload = workload;
    row.n = n;
    row.descending = false;
    row.beginBit = 0;
    row.endBit = 32;
    row.runs = opt.runs;
    row.warmup = opt.warmup;
    row.medianMs = bench::median(times_ms);
    row.minMs = *std::min_element(times_ms.begin(), times_ms.end());
    // As in the plain mode: CUB's temp storage plus the alternate key (and
    // value) buffer of the DoubleBuffers. The offsets are input, not counted.
    row.tempOnlyBytes = temp_storage_bytes;
    row.tempBytes = temp_storage_bytes + (size_t)n * 4 + (size_t)n * value_bytes;
    row.verified = check.ok;
    row.check = "std::stable_sort reference per segment";
    row.extra = "\"timing\":\"cuda events\",\"segments\":" + std::to_string(segments);
    if (opt.times) row.timesMs = times_ms;

    std::printf("%-44s %12.2f %12.2f %10.3f %14llu  %s\n", row.algorithm.c_str(), row.medianMs * 1e3, row.minMs * 1e3,
                row.keysPerS() * 1e-9, (unsigned long long)row.tempBytes, check.ok ? "ok" : "WRONG");
    std::fflush(stdout);
    if (json) {
      std::fprintf(json, "%s\n", row.json().c_str());
      std::fflush(json);
    }

    CK(cudaFree(d_temp));
    all_ok = all_ok && check.ok;
  }

  CK(cudaFree(d_offsets));
  if (pairs) {
    CK(cudaFree(d_v1));
    CK(cudaFree(d_v0));
  }
  CK(cudaFree(d_k1));
  CK(cudaFree(d_k0));
  return all_ok;
}

static void usage() {
  std::printf(
      "usage: cub_bench [options]\n%s"
      "  --commit STR        the vksort commit to record in the rows (default: $VKSORT_COMMIT)\n"
      "  --carveout P        ask for P%% of the largest shared memory per SM for every kernel (0-100;\n"
      "                      default: the driver's choice). 28 gives CUB one onesweep block per SM.\n"
      "  --segmented W,W,... segmented sorts instead of --sizes: for each workload W (65536x16,\n"
      "                      16384x64, 1024x1024, 16x65536, 256x16384, 1x4194304, powerlaw4096, or\n"
      "                      any SxK: S segments of K keys), u32 keys with u32 values (--value\n"
      "                      none: keys only), ascending, by DeviceSegmentedSort::StableSort* and\n"
      "                      DeviceSegmentedRadixSort::Sort*\n",
      bench::commonUsage());
}

// ---------------------------------------------------------------------------
// --carveout P: ask for P percent of the SM's largest shared-memory size for
// every kernel in this program (CUB's and the generator), as
// cudaFuncAttributePreferredSharedMemoryCarveout does for one kernel. CUB's
// kernels are template instances without a name we can take, so this walks
// the module that holds them (driver API through the runtime's entry points,
// so no -lcuda). Used to run CUB with the shared memory per SM that Vulkan
// gives a compute pipeline on NVIDIA (48 KiB): at 28% (a 64 KB
// configuration) one CUB onesweep block fits per SM instead of two.
// ---------------------------------------------------------------------------
template <class F>
static F driver_fn(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  CK(cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &status));
  if (!fn || status != cudaDriverEntryPointSuccess) bench::fatal(kProg, std::string("no driver function ") + name);
  return reinterpret_cast<F>(fn);
}

static void set_carveout(int percent) {
  auto funcGetModule = driver_fn<CUresult (*)(CUmodule*, CUfunction)>("cuFuncGetModule");
  auto moduleCount = driver_fn<CUresult (*)(unsigned int*, CUmodule)>("cuModuleGetFunctionCount");
  auto moduleEnum = driver_fn<CUresult (*)(CUfunction*, unsigned int, CUmodule)>("cuModuleEnumerateFunctions");
  auto funcSet = driver_fn<CUresult (*)(CUfunction, CUfunction_attribute, int)>("cuFuncSetAttribute");
  CUfunction gen = nullptr;
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&gen), (const void*)gen_kernel<uint32_t>));
  CUmodule module = nullptr;
  unsigned int count = 0;
  if (funcGetModule(&module, gen) != CUDA_SUCCESS || moduleCount(&count, module) != CUDA_SUCCESS)
    bench::fatal(kProg, "--carveout: cannot find this program's module");
  std::vector<CUfunction> fns(count);
  if (moduleEnum(fns.data(), count, module) != CUDA_SUCCESS) bench::fatal(kProg, "--carveout: cannot list kernels");
  for (CUfunction f : fns)
    if (funcSet(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent) != CUDA_SUCCESS)
      bench::fatal(kProg, "--carveout: cuFuncSetAttribute failed");
  std::printf("carveout: %d%% of the largest shared-memory size asked for %u kernels\n", percent, count);
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  bench::CommonOptions opt;
  opt.sizes = {1u << 10, 1u << 16, 1u << 20, 1u << 24, 1u << 26, 1u << 28};
  opt.runs = 30;
  opt.warmup = 5;
  opt.maxSize = 0xFFFFFFFFull;  // CUB gets a uint32_t item count (32-bit offsets, its fast path)
  Env env;
  int& carveout = env.carveout;
  env.commit = std::getenv("VKSORT_COMMIT") ? std::getenv("VKSORT_COMMIT") : "unknown";
  std::vector<std::string> segmented;  // --segmented: the workloads, in order
  bool sizes_given = false, value_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    sizes_given = sizes_given || a == "--sizes";
    value_given = value_given || a == "--value";
    if (bench::parseCommonOption(kProg, argc, argv, i, opt)) continue;
    if (a == "--segmented" && i + 1 < argc) {
      const std::string list = argv[++i];
      for (size_t pos = 0; pos <= list.size();) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string name = list.substr(pos, comma - pos);
        if (!name.empty()) segmented.push_back(name);
        pos = comma + 1;
      }
      if (segmented.empty()) bench::fatal(kProg, "--segmented wants workload names");
    } else if (a == "--commit" && i + 1 < argc) {
      env.commit = argv[++i];
    } else if (a == "--carveout" && i + 1 < argc) {
      carveout = std::atoi(argv[++i]);
      if (carveout < 0 || carveout > 100) bench::fatal(kProg, "--carveout takes 0-100");
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else {
      usage();
      bench::fatal(kProg, "unknown argument: " + a);
    }
  }
  bench::resolve(kProg, opt);
  if (!segmented.empty()) {
    // The segmented mode sorts u32 keys (with u32 values unless --value none)
    // on every bit, ascending, and names its rows after the workloads.
    if (!value_given) opt.value = bench::kValue32;
    if (opt.key != 0) bench::fatal(kProg, "--segmented sorts u32 keys only");
    if (opt.value != bench::kNoValue && opt.value != bench::kValue32)
      bench::fatal(kProg, "--segmented takes --value u32 (the default) or none");
    if (opt.descending) bench::fatal(kProg, "--segmented sorts ascending only");
    if (opt.bitsGiven) bench::fatal(kProg, "--segmented sorts on every bit: no --bits");
    if (sizes_given) bench::fatal(kProg, "--segmented takes the sizes from the workloads: no --sizes");
    if (!opt.workload.empty()) bench::fatal(kProg, "--segmented names the rows after the workloads: no --workload");
    for (const std::string& name : segmented) {
      uint32_t segments = 0, total = 0;
      std::string error;
      if (!bench::segmentWorkloadSize(name, segments, total, &error)) bench::fatal(kProg, error);
      if (total > (uint32_t)INT_MAX)  // DeviceSegmentedRadixSort takes an int count
        bench::fatal(kProg, "--segmented " + name + ": more than 2^31 - 1 keys");
    }
  }

  // Every kernel must be loaded before --carveout can set it.
  if (carveout >= 0) setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  int dev = 0;
  CK(cudaGetDevice(&dev));
  if (carveout >= 0) set_carveout(carveout);
  CK(cudaGetDeviceProperties(&env.prop, dev));
  int driver_version = 0, runtime_version = 0;
  CK(cudaDriverGetVersion(&driver_version));
  CK(cudaRuntimeGetVersion(&runtime_version));
  char driver[160];
  std::snprintf(driver, sizeof driver, "CUDA driver %d.%d, runtime %d.%d, CUB %d.%d.%d", driver_version / 1000,
                (driver_version % 1000) / 10, runtime_version / 1000, (runtime_version % 1000) / 10,
                CUB_VERSION / 100000, CUB_VERSION / 100 % 1000, CUB_VERSION % 100);
  env.device = env.prop.name;
  env.driver = driver;

  std::printf("device: %s (sm_%d%d, %d SMs), %s\n", env.prop.name, env.prop.major, env.prop.minor,
              env.prop.multiProcessorCount, driver);
  if (segmented.empty())
    std::printf("key %s, value %s, dist %s, %s, bits [%u, %u); median of %d runs after %d warm-up\n",
                opt.keyInfo().name, bench::kValueNames[opt.value], bench::kDistNames[opt.dist],
                opt.descending ? "descending" : "ascending", opt.beginBit, opt.endBit, opt.runs, opt.warmup);
  else
    std::printf("segmented: key u32, value %s, dist %s, ascending, bits [0, 32); median of %d runs after %d warm-up\n",
                bench::kValueNames[opt.value], bench::kDistNames[opt.dist], opt.runs, opt.warmup);

  FILE* json = nullptr;
  if (opt.jsonPath) {
    json = std::fopen(opt.jsonPath, "w");
    if (!json) bench::fatal(kProg, std::string("cannot open --json file: ") + opt.jsonPath);
  }
  CK(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
  CK(cudaEventCreate(&env.ev_start));
  CK(cudaEventCreate(&env.ev_stop));

  bool ok = true;
  if (segmented.empty()) {
    ok = run_key(opt, env, json);
  } else {
    for (const std::string& name : segmented) ok = run_segmented(opt, env, json, name) && ok;
  }

  CK(cudaEventDestroy(env.ev_stop));
  CK(cudaEventDestroy(env.ev_start));
  CK(cudaStreamDestroy(env.stream));
  if (json) std::fclose(json);
  if (!ok) {
    std::fprintf(stderr, "cub_bench: verification FAILED\n");
    return 1;
  }
  std::printf("verification: OK (first timed run of every %s)\n", segmented.empty() ? "size" : "workload and sort");
  return 0;
}

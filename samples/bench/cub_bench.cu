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
// Depends only on the CUDA toolkit (CUB ships with it) and bench_common.h.
//
// Build:  nvcc -O3 -arch=sm_90 -std=c++17 -o cub_bench samples/bench/cub_bench.cu
// Every key and value type is compiled in by default (a few minutes of nvcc).
// To build only some: -DCUB_BENCH_KEY_MASK=0x9 (bit k = key k of u32, i32,
// f32, u64, i64, f64), -DCUB_BENCH_VALUE_MASK=0x3 (bit 0 keys only, bit 1
// 32-bit values and index, bit 2 64-bit values), -DCUB_BENCH_DESCENDING=0.
// Run:    ./cub_bench [--sizes 1024,65536,...] [--runs 30] [--key u64] [--value u32] [--json FILE] ...

#include <cuda.h>  // driver API types only; the functions come from cudaGetDriverEntryPointByVersion
#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_common.h"

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

static void usage() {
  std::printf(
      "usage: cub_bench [options]\n%s"
      "  --commit STR        the vksort commit to record in the rows (default: $VKSORT_COMMIT)\n"
      "  --carveout P        ask for P%% of the largest shared memory per SM for every kernel (0-100;\n"
      "                      default: the driver's choice). 28 gives CUB one onesweep block per SM.\n",
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
  for (int i = 1; i < argc; ++i) {
    if (bench::parseCommonOption(kProg, argc, argv, i, opt)) continue;
    const std::string a = argv[i];
    if (a == "--commit" && i + 1 < argc) {
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
  std::printf("key %s, value %s, dist %s, %s, bits [%u, %u); median of %d runs after %d warm-up\n", opt.keyInfo().name,
              bench::kValueNames[opt.value], bench::kDistNames[opt.dist], opt.descending ? "descending" : "ascending",
              opt.beginBit, opt.endBit, opt.runs, opt.warmup);

  FILE* json = nullptr;
  if (opt.jsonPath) {
    json = std::fopen(opt.jsonPath, "w");
    if (!json) bench::fatal(kProg, std::string("cannot open --json file: ") + opt.jsonPath);
  }
  CK(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
  CK(cudaEventCreate(&env.ev_start));
  CK(cudaEventCreate(&env.ev_stop));

  const bool ok = run_key(opt, env, json);

  CK(cudaEventDestroy(env.ev_stop));
  CK(cudaEventDestroy(env.ev_start));
  CK(cudaStreamDestroy(env.stream));
  if (json) std::fclose(json);
  if (!ok) {
    std::fprintf(stderr, "cub_bench: verification FAILED\n");
    return 1;
  }
  std::printf("verification: OK (first timed run of every size)\n");
  return 0;
}

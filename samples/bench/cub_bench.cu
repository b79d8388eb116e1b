// cub_bench.cu - CUDA/CUB baseline for the vksort benchmarks.
//
// Times cub::DeviceRadixSort::SortKeys (DoubleBuffer overload, uint32 keys,
// keys only, ascending, all 32 bits) and writes one JSON line per size in the
// same schema as the vksort benchmark, so compare.py can join the two.
//
// Standalone: depends only on the CUDA toolkit (CUB ships with it).
//
// Build:  nvcc -O3 -arch=sm_90 -std=c++17 -o cub_bench samples/bench/cub_bench.cu
// Run:    ./cub_bench [--sizes 1024,65536,...] [--runs 30] [--warmup 5] [--json FILE]

#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

[[noreturn]] static void die(const char* msg, const char* arg = nullptr) {
  if (arg)
    std::fprintf(stderr, "cub_bench: %s%s\n", msg, arg);
  else
    std::fprintf(stderr, "cub_bench: %s\n", msg);
  std::exit(2);
}

// ---------------------------------------------------------------------------
// Key generation and checksums (device side).
// ---------------------------------------------------------------------------

// SplitMix64 finalizer: a bijection on 64-bit values with good avalanche, so
// hashing (index + seed * odd constant) gives well-mixed, uniform keys.
__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// keys[i] = high 32 bits of mix64(i + seed * golden), i.e. uniform 32-bit keys
// that are different for every seed. Grid-stride loop, so any grid size works.
__global__ void gen_keys(uint32_t* keys, uint32_t n, uint64_t seed) {
  const uint64_t base = seed * 0x9E3779B97F4A7C15ull;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    keys[i] = (uint32_t)(mix64(base + i) >> 32);
  }
}

// Order-independent fingerprint of a multiset of keys. Sum and xor are what
// the brief asks for; the sum of a hash of each key is added because it is
// just as cheap and catches far more corruptions (e.g. a pair of keys whose
// bit changes cancel in both sum and xor).
struct Checksum {
  unsigned long long sum;
  unsigned long long hash_sum;
  unsigned int xr;
};

__host__ __device__ inline uint64_t key_hash(uint32_t k) { return mix64((uint64_t)k + 0x632BE59BD9B4E019ull); }

__global__ void checksum_keys(const uint32_t* keys, uint32_t n, Checksum* out) {
  unsigned long long s = 0, h = 0;
  unsigned int x = 0;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    const uint32_t k = keys[i];
    s += k;
    h += key_hash(k);
    x ^= k;
  }
  // Warp reduction first, then one atomic per warp (blockDim is a multiple of 32).
  for (int off = 16; off > 0; off >>= 1) {
    s += __shfl_xor_sync(0xffffffffu, s, off);
    h += __shfl_xor_sync(0xffffffffu, h, off);
    x ^= __shfl_xor_sync(0xffffffffu, x, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out->sum, s);
    atomicAdd(&out->hash_sum, h);
    atomicXor(&out->xr, x);
  }
}

// Grid size for the helper kernels: enough blocks to fill the GPU, no more.
static unsigned helper_blocks(uint32_t n, int sm_count) {
  const uint64_t needed = ((uint64_t)n + 255) / 256;
  return (unsigned)std::max<uint64_t>(1, std::min<uint64_t>(needed, (uint64_t)sm_count * 8));
}

// ---------------------------------------------------------------------------
// Host helpers.
// ---------------------------------------------------------------------------

static std::vector<uint32_t> parse_sizes(const char* s) {
  std::vector<uint32_t> out;
  std::string str(s);
  size_t pos = 0;
  while (pos <= str.size()) {
    size_t comma = str.find(',', pos);
    if (comma == std::string::npos) comma = str.size();
    std::string tok = str.substr(pos, comma - pos);
    if (!tok.empty()) {
      char* end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(tok.c_str(), &end, 10);
      // CUB is called with a uint32_t item count (32-bit offsets, its fast
      // path), so sizes must fit in 32 bits.
      if (errno || *end != '\0' || v == 0 || v > 0xFFFFFFFFull) die("bad size in --sizes: ", tok.c_str());
      out.push_back((uint32_t)v);
    }
    pos = comma + 1;
  }
  if (out.empty()) die("--sizes is empty");
  return out;
}

static int parse_int(const char* s, const char* what) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno || *end != '\0' || v < 0 || v > 1000000) die("bad value for ", what);
  return (int)v;
}

// Minimal JSON string escaping (device names are plain ASCII in practice).
static std::string json_escape(const char* s) {
  std::string out;
  for (; *s; ++s) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += (char)c;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += (char)c;
    }
  }
  return out;
}

static double median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * ((double)v[m - 1] + (double)v[m]);
}

static void usage() {
  std::printf(
      "usage: cub_bench [--sizes N1,N2,...] [--runs R] [--warmup W] [--json FILE]\n"
      "  --sizes   key counts (default 1024,65536,1048576,16777216,67108864,268435456)\n"
      "  --runs    timed runs per size, >= 20 (default 30); the median is reported\n"
      "  --warmup  untimed runs per size before timing (default 5)\n"
      "  --json    write one JSON object per size (JSON lines) to FILE\n");
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes = {1u << 10, 1u << 16, 1u << 20, 1u << 24, 1u << 26, 1u << 28};
  int runs = 30;
  int warmup = 5;
  const char* json_path = nullptr;

  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto need = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) die("missing value for ", flag);
      return argv[++i];
    };
    if (a == "--sizes")
      sizes = parse_sizes(need("--sizes"));
    else if (a == "--runs")
      runs = parse_int(need("--runs"), "--runs");
    else if (a == "--warmup")
      warmup = parse_int(need("--warmup"), "--warmup");
    else if (a == "--json")
      json_path = need("--json");
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else {
      usage();
      die("unknown argument: ", a.c_str());
    }
  }
  // A median over fewer runs is too noisy to compare against.
  if (runs < 20) die("--runs must be >= 20");

  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  int driver_version = 0;
  CK(cudaDriverGetVersion(&driver_version));
  int runtime_version = 0;
  CK(cudaRuntimeGetVersion(&runtime_version));
  const std::string device_name = json_escape(prop.name);
  const std::string driver_str = std::to_string(driver_version);

  std::printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  std::printf("driver (cudaDriverGetVersion): %d, runtime: %d, CUB_VERSION: %d\n", driver_version, runtime_version,
              (int)CUB_VERSION);
  std::printf("runs: %d timed (median reported), warmup: %d\n\n", runs, warmup);

  FILE* json = nullptr;
  if (json_path) {
    json = std::fopen(json_path, "w");
    if (!json) die("cannot open --json file: ", json_path);
  }

  cudaStream_t stream;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t ev_start, ev_stop;
  CK(cudaEventCreate(&ev_start));
  CK(cudaEventCreate(&ev_stop));
  Checksum* d_sum = nullptr;
  CK(cudaMalloc(&d_sum, sizeof(Checksum)));

  std::printf("%12s %12s %10s %14s\n", "N", "median_us", "Gkeys/s", "temp_bytes");

  uint64_t seed_counter = 0;  // bumped every run (warmup included): fresh keys each time
  bool all_ok = true;

  for (const uint32_t n : sizes) {
    // Buffers are allocated once per size and reused by every run.
    uint32_t* d_buf0 = nullptr;
    uint32_t* d_buf1 = nullptr;
    CK(cudaMalloc(&d_buf0, (size_t)n * sizeof(uint32_t)));
    CK(cudaMalloc(&d_buf1, (size_t)n * sizeof(uint32_t)));

    // Temp storage query. The DoubleBuffer overload lets CUB ping-pong between
    // the two key buffers instead of copying back, so it needs no extra N-sized
    // scratch; temp_bytes therefore excludes the alternate buffer.
    size_t temp_bytes = 0;
    {
      cub::DoubleBuffer<uint32_t> db(d_buf0, d_buf1);
      CK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, db, n, 0, 32, stream));
    }
    void* d_temp = nullptr;
    CK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 1)));

    const unsigned blocks = helper_blocks(n, prop.multiProcessorCount);
    bool size_ok = true;
    std::vector<float> times_ms;
    times_ms.reserve(runs);

    for (int r = 0; r < warmup + runs; ++r) {
      const bool timed = r >= warmup;
      const bool verify = (r == warmup);  // first timed run of each size

      // Fresh random input every run, generated on the GPU (not timed).
      gen_keys<<<blocks, 256, 0, stream>>>(d_buf0, n, ++seed_counter);
      CK(cudaGetLastError());

      Checksum before{};
      if (verify) {
        CK(cudaMemsetAsync(d_sum, 0, sizeof(Checksum), stream));
        checksum_keys<<<blocks, 256, 0, stream>>>(d_buf0, n, d_sum);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(&before, d_sum, sizeof(Checksum), cudaMemcpyDeviceToHost, stream));
      }
      // Drain the stream so that nothing queued above can overlap the timed region.
      CK(cudaStreamSynchronize(stream));

      // The selector must start at buffer 0 every run: SortKeys flips it to
      // whichever buffer ends up holding the sorted keys.
      cub::DoubleBuffer<uint32_t> db(d_buf0, d_buf1);

      CK(cudaEventRecord(ev_start, stream));
      CK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, db, n, 0, 32, stream));
      CK(cudaEventRecord(ev_stop, stream));
      CK(cudaEventSynchronize(ev_stop));
      CK(cudaGetLastError());

      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
      if (timed) times_ms.push_back(ms);

      if (verify) {
        // Check on the host, independently of the GPU checksum kernel.
        std::vector<uint32_t> h((size_t)n);
        CK(cudaMemcpy(h.data(), db.Current(), (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        Checksum after{};
        size_t first_unsorted = 0;
        for (size_t i = 0; i < h.size(); ++i) {
          if (i > 0 && h[i - 1] > h[i] && first_unsorted == 0) first_unsorted = i;
          after.sum += h[i];
          after.hash_sum += key_hash(h[i]);
          after.xr ^= h[i];
        }
        if (first_unsorted != 0) {
          std::fprintf(stderr, "FAIL n=%u: not sorted at index %zu (%u > %u)\n", n, first_unsorted,
                       h[first_unsorted - 1], h[first_unsorted]);
          size_ok = false;
        }
        if (after.sum != before.sum || after.hash_sum != before.hash_sum || after.xr != before.xr) {
          std::fprintf(stderr,
                       "FAIL n=%u: key multiset changed (sum %llu->%llu, xor %08x->%08x, "
                       "hash %016llx->%016llx)\n",
                       n, before.sum, after.sum, before.xr, after.xr, before.hash_sum, after.hash_sum);
          size_ok = false;
        }
      }
    }

    const double med_ms = median_of(times_ms);
    const double min_ms = *std::min_element(times_ms.begin(), times_ms.end());
    const double keys_per_s = (double)n / (med_ms * 1e-3);

    std::printf("%12u %12.2f %10.3f %14zu\n", n, med_ms * 1e3, keys_per_s * 1e-9, temp_bytes);
    std::fflush(stdout);

    if (json && size_ok) {
      // Written per size and flushed, so a later failure (e.g. OOM at 2^28)
      // still leaves the earlier rows.
      std::fprintf(json,
                   "{\"impl\":\"cub\",\"device\":\"%s\",\"driver\":\"%s\",\"key\":\"u32\","
                   "\"payload\":\"none\",\"n\":%u,\"dist\":\"uniform\",\"runs\":%d,"
                   "\"median_ms\":%.6f,\"min_ms\":%.6f,\"keys_per_s\":%.6e,\"temp_bytes\":%zu}\n",
                   device_name.c_str(), driver_str.c_str(), n, runs, med_ms, min_ms, keys_per_s, temp_bytes);
      std::fflush(json);
    }

    CK(cudaFree(d_temp));
    CK(cudaFree(d_buf1));
    CK(cudaFree(d_buf0));

    if (!size_ok) {
      all_ok = false;
      break;  // no point timing further sizes with a broken sort
    }
  }

  CK(cudaFree(d_sum));
  CK(cudaEventDestroy(ev_stop));
  CK(cudaEventDestroy(ev_start));
  CK(cudaStreamDestroy(stream));
  if (json) std::fclose(json);

  if (!all_ok) {
    std::fprintf(stderr, "cub_bench: verification FAILED\n");
    return 1;
  }
  std::printf("\nverification: OK (first timed run of every size)\n");
  return 0;
}

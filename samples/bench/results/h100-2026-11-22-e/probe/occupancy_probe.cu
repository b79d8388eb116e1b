// CUDA twin of occupancy_probe.comp: peak resident blocks per SM by block size and shared memory.
#include <algorithm>
#include <cstdio>
#include <vector>
__device__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__global__ void probe(unsigned* live, unsigned* peak, unsigned* sink, unsigned spin, unsigned words) {
  extern __shared__ unsigned s[];
  unsigned sm = smid();
  if (threadIdx.x == 0) {
    unsigned v = atomicAdd(&live[sm], 1u) + 1u;
    atomicMax(&peak[sm], v);
  }
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) s[i] = i * 2654435761u;
  __syncthreads();
  unsigned x = s[(threadIdx.x * 7u) % words];
  for (unsigned i = 0; i < spin; ++i) x = x * 1664525u + 1013904223u;
  if (x == 0x12345678u) *sink = x;
  __syncthreads();
  if (threadIdx.x == 0) atomicSub(&live[sm], 1u);
}
int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("%s: %d SMs, sharedMemPerMultiprocessor %zu, sharedMemPerBlockOptin %zu\n", p.name, p.multiProcessorCount,
         p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.sharedMemPerBlockOptin);
  unsigned *live, *peak, *sink;
  cudaMalloc(&live, 4096);
  cudaMalloc(&peak, 4096);
  cudaMalloc(&sink, 4);
  const unsigned sizes[] = {128, 256, 384, 512, 1024};
  const unsigned sb[] = {4, 8192, 16384, 24576, 32768, 40960, 49152, 65536, 98304, 114688, 163840, 232448};
  printf("%6s %8s %10s %10s %12s\n", "block", "shared", "peak-max", "peak-min", "occ-api");
  for (unsigned b : sizes)
    for (unsigned s : sb) {
      if (s > p.sharedMemPerBlockOptin) continue;
      cudaMemset(live, 0, 4096);
      cudaMemset(peak, 0, 4096);
      probe<<<p.multiProcessorCount * 40, b, s>>>(live, peak, sink, 20000u, s / 4);
      if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("error\n");
        return 1;
      }
      std::vector<unsigned> h(1024);
      cudaMemcpy(h.data(), peak, 4096, cudaMemcpyDeviceToHost);
      std::vector<unsigned> q;
      for (unsigned v : h)
        if (v) q.push_back(v);
      std::sort(q.begin(), q.end());
      int occ = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, probe, b, s);
      printf("%6u %8u %10u %10u %12d   %u B per SM\n", b, s, q.back(), q.front(), occ, q.back() * s);
    }
}

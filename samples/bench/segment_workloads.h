// segment_workloads.h: the segment layouts of the segmented-sort benchmarks,
// so that every bench and test sorts the same segments. Header-only C++17;
// no Vulkan and no CUDA dependency (it compiles with g++, clang++ and nvcc).
//
// A workload is a name for a list of segment sizes, given as CSR offsets:
// segmentCount + 1 uint32_t entries, offsets[0] = 0, offsets[s + 1] -
// offsets[s] = the size of segment s, offsets[segmentCount] = the key count.
//   SxK            S segments of K keys each (S, K >= 1, S * K < 2^32), e.g.
//                  65536x16: 65,536 segments of 16 keys
//   powerlaw4096   4,096 segments, 2^22 keys in all, sizes from a power law
//                  (Pareto, alpha 0.8): a few large segments and many small
//                  or empty ones. Weights w_i = (1 - u_i)^(-1/0.8), u_i the
//                  4,096 draws of std::uniform_real_distribution<double>(0, 1)
//                  from std::mt19937(7); size_i = floor(w_i / sum(w) * 2^22);
//                  what the floors leave over (2^22 - the sum of the sizes)
//                  goes to segment 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bench {

// The workloads the segmented benchmarks run by default, smallest segments
// first. Any other SxK name works as well (parseEqualSegments).
constexpr const char* kSegmentWorkloads[] = {"65536x16",  "16384x64",  "1024x1024",   "16x65536",
                                             "256x16384", "1x4194304", "powerlaw4096"};
constexpr int kSegmentWorkloadCount = 7;

// The power-law workload: its name, segment count and key count.
constexpr const char* kPowerLawWorkload = "powerlaw4096";
constexpr uint32_t kPowerLawSegments = 4096;
constexpr uint32_t kPowerLawKeys = 1u << 22;

// Parses an equal-size workload name "SxK" (decimal S and K, both >= 1, with
// S * K < 2^32): S segments of K keys each. False for anything else.
inline bool parseEqualSegments(const std::string& name, uint32_t& segments, uint32_t& keysPerSegment) {
  const size_t x = name.find('x');
  if (x == std::string::npos || x == 0 || x + 1 >= name.size()) return false;
  uint64_t part[2] = {0, 0};
  const std::string text[2] = {name.substr(0, x), name.substr(x + 1)};
  for (int p = 0; p < 2; ++p) {
    for (const char c : text[p]) {
      if (c < '0' || c > '9') return false;
      part[p] = part[p] * 10 + static_cast<uint64_t>(c - '0');
      if (part[p] > 0xFFFFFFFFull) return false;
    }
  }
  if (part[0] == 0 || part[1] == 0 || part[0] * part[1] > 0xFFFFFFFFull) return false;
  segments = static_cast<uint32_t>(part[0]);
  keysPerSegment = static_cast<uint32_t>(part[1]);
  return true;
}

// The segment count and the key count (the sum of the segment sizes) of a
// workload. False, with a message in *error if given, for an unknown name.
inline bool segmentWorkloadSize(const std::string& name, uint32_t& segments, uint32_t& totalKeys,
                                std::string* error = nullptr) {
  if (name == kPowerLawWorkload) {
    segments = kPowerLawSegments;
    totalKeys = kPowerLawKeys;
    return true;
  }
  uint32_t s = 0, k = 0;
  if (!parseEqualSegments(name, s, k)) {
    if (error)
      *error = "unknown segment workload \"" + name + "\" (SxK: S segments of K keys, S * K < 2^32; or " +
               kPowerLawWorkload + ")";
    return false;
  }
  segments = s;
  totalKeys = s * k;
  return true;
}

// The sizes of powerlaw4096's segments, by the recipe at the top of this file.
inline std::vector<uint32_t> powerLawSegmentSizes() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> w(kPowerLawSegments);
  double sum = 0.0;
  for (double& wi : w) {
    wi = std::pow(1.0 - uniform(rng), -1.0 / 0.8);
    sum += wi;
  }
  std::vector<uint32_t> sizes(kPowerLawSegments);
  uint64_t assigned = 0;
  for (uint32_t i = 0; i < kPowerLawSegments; ++i) {
    sizes[i] = static_cast<uint32_t>(std::floor(w[i] / sum * static_cast<double>(kPowerLawKeys)));
    assigned += sizes[i];
  }
  sizes[0] += static_cast<uint32_t>(kPowerLawKeys - assigned);
  return sizes;
}

// The CSR offsets of a workload (segmentCount + 1 entries, see the top of this
// file) in `offsets`. False, with a message in *error if given, for an unknown
// name; `offsets` is then left as it was.
inline bool segmentWorkloadOffsets(const std::string& name, std::vector<uint32_t>& offsets,
                                   std::string* error = nullptr) {
  uint32_t segments = 0, total = 0;
  if (!segmentWorkloadSize(name, segments, total, error)) return false;
  std::vector<uint32_t> out(static_cast<size_t>(segments) + 1);
  out[0] = 0;
  if (name == kPowerLawWorkload) {
    const std::vector<uint32_t> sizes = powerLawSegmentSizes();
    for (uint32_t s = 0; s < segments; ++s) out[s + 1] = out[s] + sizes[s];
  } else {
    const uint32_t keysPerSegment = total / segments;
    for (uint32_t s = 0; s < segments; ++s) out[s + 1] = out[s] + keysPerSegment;
  }
  offsets.swap(out);
  return true;
}

}  // namespace bench

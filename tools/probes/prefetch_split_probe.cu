// Probe: does a prefetch of host-resident managed memory to the device come nearer a pinned
// copy's rate (managed/HtoD/prefetch reaches 91.5% of it at 1 GiB on an H100,
// results/h100/prefetch_sizes/) when the range is split into pieces: on one stream, on a stream
// each from one thread, or on a stream each from a thread each (cudaMemPrefetchAsync may do the
// driver's work on the calling thread)? For each case, MIB mebibytes (the first argument, default
// 1024) of managed memory are written by the host with a pattern, prefetched back to the host and
// touched there before each round (as gpubench's prepare step); a round is timed on the host
// clock from the first prefetch call to every stream drained. The median over 12 rounds (after
// 2) is printed as GB/s, beside a pinned copy of the same bytes (cudaMemcpyAsync from
// cudaMallocHost memory, drained) timed the same way in rounds alternating with the cases. After
// each case's last round a kernel reads every word on the device: a word that differs from the
// pattern is an error, exit 1.
// Output: a header, then one line per case: its name (one_call; pieces16 on one stream; streamsN,
// N pieces on a stream each from one thread; threadsN, N pieces on a stream and thread each),
// the prefetch's GB/s, the pinned copy's, and their ratio (the median of the rounds' ratios);
// tools/analysis/probe_columns.py reads the outputs of separate processes.
#include "whole_argument.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e = (x);                                                                           \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "prefetch_split_probe: %s: %s\n", #x, cudaGetErrorString(e));           \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

constexpr int warm = 2, timed = 12, max_streams = 16;

__host__ __device__ std::uint64_t pattern(std::uint64_t i) {
  return i * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
}

__global__ void check(const std::uint64_t* words, std::uint64_t n, unsigned long long* wrong) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    if (words[i] != pattern(i)) {
      atomicAdd(wrong, 1ull);
    }
  }
}

struct Case {
  const char* name;
  int pieces, streams, threads;
};

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? whole_argument(argv[1], 16, 65536) : 1024;
  if (argc > 2 || mib < 0) {
    std::fprintf(stderr, "prefetch_split_probe: usage: prefetch_split_probe [MIB, 16 to 65536]\n");
    return 2;
  }
  const std::size_t bytes = std::size_t(mib) << 20, words = bytes / 8;
  int concurrent = 0;
  CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
  if (concurrent == 0) {
    std::fprintf(stderr, "prefetch_split_probe: the device cannot prefetch managed memory\n");
    return 1;
  }
  std::uint64_t* managed = nullptr;
  CK(cudaMallocManaged(&managed, bytes, cudaMemAttachGlobal));
  for (std::size_t i = 0; i < words; ++i) {
    managed[i] = pattern(i);
  }
  void *pinned = nullptr, *device = nullptr;
  CK(cudaMallocHost(&pinned, bytes));
  CK(cudaMalloc(&device, bytes));
  std::memset(pinned, 0x5a, bytes);
  unsigned long long* wrong = nullptr;
  CK(cudaMalloc(&wrong, sizeof *wrong));
  std::vector<cudaStream_t> streams(max_streams);
  for (auto& s : streams) {
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  cudaMemLocation gpu{}, host{};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = 0;
  host.type = cudaMemLocationTypeHost; // as gpubench prefetches back

  const auto to_host = [&] {
    CK(cudaMemPrefetchAsync(managed, bytes, host, 0, streams[0]));
    CK(cudaStreamSynchronize(streams[0]));
    auto* b = reinterpret_cast<volatile unsigned char*>(managed);
    for (std::size_t page = 0; page < bytes; page += 4096) {
      b[page] = b[page];
    }
  };
  // The piece p of `pieces`, each a whole number of 2 MiB blocks.
  const auto piece = [&](int p, int pieces, std::size_t* offset, std::size_t* size) {
    const std::size_t blocks = bytes >> 21;
    const std::size_t first = blocks * p / pieces, last = blocks * (p + 1) / pieces;
    *offset = first << 21;
    *size = (last - first) << 21;
  };
  const auto prefetch_round = [&](const Case& c) {
    const double t0 = now_s();
    if (c.threads == 1) {
      for (int p = 0; p < c.pieces; ++p) {
        std::size_t offset, size;
        piece(p, c.pieces, &offset, &size);
        CK(cudaMemPrefetchAsync(reinterpret_cast<char*>(managed) + offset, size, gpu, 0,
                                streams[p % c.streams]));
      }
      for (int s = 0; s < c.streams; ++s) {
        CK(cudaStreamSynchronize(streams[s]));
      }
    } else {
      std::vector<std::thread> pool;
      for (int t = 0; t < c.threads; ++t) {
        pool.emplace_back([&, t] {
          std::size_t offset, size;
          piece(t, c.threads, &offset, &size);
          CK(cudaMemPrefetchAsync(reinterpret_cast<char*>(managed) + offset, size, gpu, 0,
                                  streams[t]));
          CK(cudaStreamSynchronize(streams[t]));
        });
      }
      for (auto& t : pool) {
        t.join();
      }
    }
    return now_s() - t0;
  };
  const auto pinned_round = [&] {
    const double t0 = now_s();
    CK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, streams[0]));
    CK(cudaStreamSynchronize(streams[0]));
    return now_s() - t0;
  };

  const Case cases[] = {
      {"one_call", 1, 1, 1}, {"pieces16", 16, 1, 1},   {"streams2", 2, 2, 1},
      {"streams4", 4, 4, 1}, {"streams16", 16, 16, 1}, {"threads2", 2, 2, 2},
      {"threads4", 4, 4, 4}, {"threads8", 8, 8, 8},    {"threads16", 16, 16, 16},
  };
  std::printf("figure prefetch_GBps pinned_GBps over_pinned\n");
  for (const Case& c : cases) {
    std::vector<double> prefetch, copy, ratio;
    for (int r = 0; r < warm + timed; ++r) {
      to_host();
      const double tp = prefetch_round(c);
      const double tc = pinned_round();
      if (r >= warm) {
        prefetch.push_back(bytes / tp / 1e9);
        copy.push_back(bytes / tc / 1e9);
        ratio.push_back(tc / tp);
      }
    }
    CK(cudaMemset(wrong, 0, sizeof *wrong));
    check<<<1024, 256, 0, streams[0]>>>(managed, words, wrong);
    CK(cudaGetLastError());
    unsigned long long bad = 0;
    CK(cudaMemcpyAsync(&bad, wrong, sizeof bad, cudaMemcpyDeviceToHost, streams[0]));
    CK(cudaStreamSynchronize(streams[0]));
    if (bad != 0) {
      std::fprintf(stderr, "prefetch_split_probe: %s: %llu words differ on the device\n", c.name,
                   bad);
      return 1;
    }
    std::printf("%s %.3f %.3f %.4f\n", c.name, median(prefetch), median(copy), median(ratio));
    std::fflush(stdout);
  }
  return 0;
}

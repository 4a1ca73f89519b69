// Probe: which of gpubench's host-timed figures beside a launch submit does a host reference
// timed in the same rounds steady between processes (launch/paired does it for submits,
// bench/launch/host_reference.hpp)? Each round times, on one thread and in an order rotated each
// round, a batch of each kind and each reference on the host clock:
//   submit             64 cuLaunchKernel of a kernel that counts itself, the stream drained after
//   roundtrip          16 launches, each waited for (cuStreamSynchronize)
//   graph_submit       one cuGraphLaunch of a graph of 64 such kernels, drained after
//   copy_pinned_4k     16 synchronous 4 KiB copies from pinned host memory to the device
//   copy_pageable_1m   4 synchronous 1 MiB copies from pageable host memory to the device
//   host_syscall       64 getppid system calls            (the references, as gpubench's)
//   host_spin          65,536 dependent multiply-adds
// Over ROUNDS rounds (the first argument, default 400; 20 warm-up rounds first), a header line,
// then one line per kind and reference: its name, then the median over the rounds of its batch
// alone (µs), over host_syscall, over host_spin, and over the two references' geometric mean,
// each the median of the rounds' ratios. The device counts every launch and the copies' bytes
// are read back: a count or a byte that differs is an error, exit 1.
// tools/analysis/probe_columns.py reads the lines of separate processes.
#include "whole_argument.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    CUresult r = (x);                                                                              \
    if (r != CUDA_SUCCESS) {                                                                       \
      const char* text = nullptr;                                                                  \
      cuGetErrorString(r, &text);                                                                  \
      std::fprintf(stderr, "duet_kinds_probe: %s: %s\n", #x, text ? text : "unknown error");       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__device__ unsigned long long launched;
__global__ void counted() { atomicAdd(&launched, 1ULL); }

namespace {

constexpr int submit_batch = 64, roundtrip_batch = 16, graph_nodes = 64, pinned_copies = 16,
              pageable_copies = 4, warm_rounds = 20;
constexpr std::size_t pinned_bytes = 4096, pageable_bytes = std::size_t{1} << 20;
constexpr int syscalls = 64, spin_steps = 1 << 16;
const char* const slot_names[] = {"submit",         "roundtrip",        "graph_submit",
                                  "copy_pinned_4k", "copy_pageable_1m", "host_syscall",
                                  "host_spin"};
constexpr int kind_count = 5, reference_count = 2;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename Fn> double seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::uint64_t spin_state = 1;

struct Work {
  CUstream stream;
  CUfunction kernel;
  CUgraphExec graph;
  CUdeviceptr pinned_target, pageable_target;
  void* pinned;
  std::vector<unsigned char> pageable;
  unsigned long long launches = 0;

  void launch() {
    CK(cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
    ++launches;
  }
  // Kind k's batch or reference k - kind_count, its host seconds.
  double run(int k) {
    switch (k) {
    case 0: {
      const double s = seconds([&] {
        for (int i = 0; i < submit_batch; ++i)
          launch();
      });
      CK(cuStreamSynchronize(stream));
      return s;
    }
    case 1:
      return seconds([&] {
        for (int i = 0; i < roundtrip_batch; ++i) {
          launch();
          CK(cuStreamSynchronize(stream));
        }
      });
    case 2: {
      const double s = seconds([&] { CK(cuGraphLaunch(graph, stream)); });
      launches += graph_nodes;
      CK(cuStreamSynchronize(stream));
      return s;
    }
    case 3:
      return seconds([&] {
        for (int i = 0; i < pinned_copies; ++i)
          CK(cuMemcpyHtoD(pinned_target, pinned, pinned_bytes));
      });
    case 4:
      return seconds([&] {
        for (int i = 0; i < pageable_copies; ++i)
          CK(cuMemcpyHtoD(pageable_target, pageable.data(), pageable_bytes));
      });
    case 5:
      return seconds([] {
        for (int i = 0; i < syscalls; ++i) {
          if (::syscall(SYS_getppid) == -1) {
            std::fprintf(stderr, "duet_kinds_probe: getppid failed: %s\n", std::strerror(errno));
            std::exit(1);
          }
        }
      });
    default:
      return seconds([] {
        std::uint64_t x = spin_state;
        for (int i = 0; i < spin_steps; ++i)
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        spin_state = x;
        asm volatile("" : : "r"(x) : "memory");
      });
    }
  }
};

} // namespace

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? whole_argument(argv[1], 10, 100000) : 400;
  if (argc > 2 || rounds < 0) {
    std::fprintf(stderr, "duet_kinds_probe: usage: duet_kinds_probe [ROUNDS, 10 to 100000]\n");
    return 2;
  }
  if (cudaFree(nullptr) != cudaSuccess) {
    std::fprintf(stderr, "duet_kinds_probe: no CUDA device\n");
    return 1;
  }
  Work w{};
  CK(cuStreamCreate(&w.stream, CU_STREAM_NON_BLOCKING));
  if (cudaGetFuncBySymbol(&w.kernel, reinterpret_cast<const void*>(counted)) != cudaSuccess) {
    std::fprintf(stderr, "duet_kinds_probe: no CUfunction for the kernel\n");
    return 1;
  }
  CK(cuStreamBeginCapture(w.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  for (int i = 0; i < graph_nodes; ++i) {
    CK(cuLaunchKernel(w.kernel, 1, 1, 1, 1, 1, 1, 0, w.stream, nullptr, nullptr));
  }
  CUgraph graph;
  CK(cuStreamEndCapture(w.stream, &graph));
  CK(cuGraphInstantiate(&w.graph, graph, 0));
  CK(cuGraphUpload(w.graph, w.stream));
  CK(cuMemAllocHost(&w.pinned, pinned_bytes));
  std::memset(w.pinned, 0x5a, pinned_bytes);
  w.pageable.assign(pageable_bytes, 0xa5);
  CK(cuMemAlloc(&w.pinned_target, pinned_bytes));
  CK(cuMemAlloc(&w.pageable_target, pageable_bytes));
  CK(cuStreamSynchronize(w.stream));

  constexpr int slots = kind_count + reference_count;
  std::vector<std::vector<double>> times(slots);
  for (int round = 0; round < warm_rounds + rounds; ++round) {
    for (int i = 0; i < slots; ++i) {
      const int k = (i + round) % slots;
      const double s = w.run(k);
      if (round >= warm_rounds)
        times[k].push_back(s);
    }
  }
  CK(cuCtxSynchronize());
  unsigned long long counted_launches = 0;
  if (cudaMemcpyFromSymbol(&counted_launches, launched, sizeof counted_launches) != cudaSuccess ||
      counted_launches != w.launches) {
    std::fprintf(stderr, "duet_kinds_probe: %llu launches made, %llu counted\n", w.launches,
                 counted_launches);
    return 1;
  }
  // The copies' bytes, read back.
  std::vector<unsigned char> back(pageable_bytes);
  CK(cuMemcpyDtoH(back.data(), w.pageable_target, pageable_bytes));
  if (std::count(back.begin(), back.end(), 0xa5) != static_cast<long>(pageable_bytes)) {
    std::fprintf(stderr, "duet_kinds_probe: the pageable copy's bytes differ\n");
    return 1;
  }
  CK(cuMemcpyDtoH(back.data(), w.pinned_target, pinned_bytes));
  if (std::count(back.begin(), back.begin() + pinned_bytes, 0x5a) !=
      static_cast<long>(pinned_bytes)) {
    std::fprintf(stderr, "duet_kinds_probe: the pinned copy's bytes differ\n");
    return 1;
  }

  const std::vector<double>& syscall_s = times[kind_count];
  const std::vector<double>& spin_s = times[kind_count + 1];
  std::printf("figure alone_us over_host_syscall over_host_spin over_both\n");
  for (int k = 0; k < slots; ++k) {
    std::vector<double> over_syscall, over_spin, over_both;
    for (std::size_t r = 0; r < times[k].size(); ++r) {
      over_syscall.push_back(times[k][r] / syscall_s[r]);
      over_spin.push_back(times[k][r] / spin_s[r]);
      over_both.push_back(times[k][r] / std::sqrt(syscall_s[r] * spin_s[r]));
    }
    std::printf("%s %.4f %.5f %.5f %.5f\n", slot_names[k], median(times[k]) * 1e6,
                median(over_syscall), median(over_spin), median(over_both));
  }
  return 0;
}

// Probe: does pinned host memory allocate faster on several threads at once? The copy family's
// first use of a pinned kind makes two buffers of the largest size (two cuMemHostAlloc of 1 GiB
// by default), one after the other. For 1 GiB buffers (PORTABLE | DEVICEMAP, as the `pinned`
// kind asks): two allocated in turn, two on two threads at once, four on four threads; then
// four in turn, for the rate per buffer. Each case three times in rotation, its median; every
// buffer's first and last byte written and freed before the next case. One line a case: its
// name, the wall seconds of the whole case and seconds per GiB.
//   nvcc -std=c++17 -O2 -arch=sm_90 -o /tmp/host_alloc_probe tools/probes/host_alloc_probe.cu \
//     -lcuda
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t gib = std::size_t{1} << 30;

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "host_alloc_probe: %s: %s\n", what, name ? name : "unknown");
    std::exit(1);
  }
}

// Allocates `count` buffers of 1 GiB, `threads` at once (count a multiple of threads), touches
// each one's ends and frees them all; returns the seconds until the last allocation returned.
double allocate(CUcontext context, int count, int threads) {
  std::vector<void*> buffers(count, nullptr);
  const auto start = std::chrono::steady_clock::now();
  for (int first = 0; first < count; first += threads) {
    std::vector<std::thread> workers;
    for (int i = first; i < first + threads; ++i) {
      workers.emplace_back([&, i] {
        check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
        check(cuMemHostAlloc(&buffers[i], gib,
                             CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
              "cuMemHostAlloc");
      });
    }
    for (auto& w : workers) {
      w.join();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (void* b : buffers) {
    static_cast<char*>(b)[0] = 1;
    static_cast<char*>(b)[gib - 1] = 1;
    check(cuMemFreeHost(b), "cuMemFreeHost");
  }
  return seconds;
}

} // namespace

int main() {
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  struct Case {
    const char* name;
    int count, threads;
    std::vector<double> seconds;
  };
  std::vector<Case> cases{{"2 x 1 GiB in turn", 2, 1, {}},
                          {"2 x 1 GiB, 2 threads", 2, 2, {}},
                          {"4 x 1 GiB, 4 threads", 4, 4, {}},
                          {"4 x 1 GiB in turn", 4, 1, {}}};
  for (int round = 0; round < 3; ++round) {
    for (Case& c : cases) {
      c.seconds.push_back(allocate(context, c.count, c.threads));
    }
  }
  for (Case& c : cases) {
    std::sort(c.seconds.begin(), c.seconds.end());
    const double median = c.seconds[1];
    std::printf("%-24s %6.3f s  %6.3f s/GiB\n", c.name, median, median / c.count);
  }
  check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  return 0;
}

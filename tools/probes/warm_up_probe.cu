// Probe, outside gpubench: how much warm-up a host-timed figure needs before it settles.
// Usage: warm_up_probe <submit|library_load> <one_batch|10ms|long> <fatbin>
//   submit:       host time per cuLaunchKernel of an empty kernel, batches of 64 launches, the
//                 stream drained outside the timed region (as gpubench's launch/driver/submit).
//   library_load: host time of one cuLibraryLoadData of <fatbin>, unloaded untimed in between
//                 (as gpubench's launch/module/library_load).
//   one_batch:    warm-up of one call (waited for) and one untimed batch;
//   10ms:         one call, then untimed batches until 10 ms have passed (gpubench's rule);
//   long:         one call, then untimed batches until 1 s has passed.
// Then batches are timed for 50 ms (gpubench's cap for host-timed figures); prints the median
// batch per operation in µs over the first 10 timed batches (where a benchmark whose batches
// agree stops) and over all of them. Each regime runs in a process of its own
// (warm_up_rounds.sh), so one regime's warm-up does not warm the next.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    CUresult r = (x);                                                                             \
    if (r != CUDA_SUCCESS) {                                                                      \
      const char* s = nullptr;                                                                    \
      cuGetErrorName(r, &s);                                                                      \
      std::fprintf(stderr, "%s: %s\n", #x, s ? s : "?");                                          \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

extern "C" __global__ void empty_kernel() {}

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Op {
  int ops_per_batch;
  void (*batch)(void*); // timed
  void (*reset)(void*); // untimed, after each batch
  void* arg;
};

struct SubmitArg {
  CUfunction f;
  CUstream s;
};
void submit_batch(void* a) {
  auto* p = static_cast<SubmitArg*>(a);
  for (int i = 0; i < 64; ++i) {
    CK(cuLaunchKernel(p->f, 1, 1, 1, 32, 1, 1, 0, p->s, nullptr, nullptr));
  }
}
void submit_drain(void* a) { CK(cuStreamSynchronize(static_cast<SubmitArg*>(a)->s)); }

struct LibraryArg {
  std::vector<char> image;
  CUlibrary library = nullptr;
};
void library_load(void* a) {
  auto* p = static_cast<LibraryArg*>(a);
  CK(cuLibraryLoadData(&p->library, p->image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
}
void library_unload(void* a) {
  auto* p = static_cast<LibraryArg*>(a);
  CK(cuLibraryUnload(p->library));
  p->library = nullptr;
}

double timed_batch(const Op& op) {
  const auto t = Clock::now();
  op.batch(op.arg);
  const double s = seconds_since(t);
  op.reset(op.arg);
  return s;
}
} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <submit|library_load> <one_batch|10ms|long> <fatbin>\n",
                 argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  const std::string regime = argv[2];
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUstream stream;
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  SubmitArg submit{};
  LibraryArg library{};
  std::ifstream in(argv[3], std::ios::binary);
  library.image.assign(std::istreambuf_iterator<char>(in), {});
  if (library.image.empty()) {
    std::fprintf(stderr, "%s: empty or unreadable\n", argv[3]);
    return 2;
  }
  library.image.push_back(0);
  CUlibrary kernels;
  CK(cuLibraryLoadData(&kernels, library.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  CK(cuLibraryGetKernel(&kernel, kernels, "empty_kernel"));
  CK(cuKernelGetFunction(&submit.f, kernel));
  submit.s = stream;

  Op op{};
  if (what == "submit") {
    op = Op{64, submit_batch, submit_drain, &submit};
  } else if (what == "library_load") {
    op = Op{1, library_load, library_unload, &library};
  } else {
    std::fprintf(stderr, "unknown operation %s\n", what.c_str());
    return 2;
  }
  double least = 0;
  if (regime == "10ms") {
    least = 0.01;
  } else if (regime == "long") {
    least = 1.0;
  } else if (regime != "one_batch") {
    std::fprintf(stderr, "unknown regime %s\n", regime.c_str());
    return 2;
  }

  // Warm-up: one call waited for, then untimed batches (at least one) until `least` has passed.
  const auto start = Clock::now();
  op.batch(op.arg);
  op.reset(op.arg);
  CK(cuCtxSynchronize());
  long warm_batches = 0;
  do {
    op.batch(op.arg);
    op.reset(op.arg);
    ++warm_batches;
  } while (seconds_since(start) < least);

  std::vector<double> batches;
  const auto timed = Clock::now();
  while (seconds_since(timed) < 0.05 || batches.size() < 10) {
    batches.push_back(timed_batch(op));
  }
  const auto median_us = [&](std::size_t count) {
    std::vector<double> first(batches.begin(), batches.begin() + static_cast<long>(count));
    std::sort(first.begin(), first.end());
    return first[count / 2] / op.ops_per_batch * 1e6;
  };
  std::printf("%-13s %-9s warm-up batches %7ld  timed batches %6zu  first 10 %8.3f  all %8.3f "
              "us/op\n",
              what.c_str(), regime.c_str(), warm_batches, batches.size(), median_us(10),
              median_us(batches.size()));
  CK(cuLibraryUnload(kernels));
  CK(cuStreamDestroy(stream));
  CK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}

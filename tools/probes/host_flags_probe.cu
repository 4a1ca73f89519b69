// What cudaHostGetFlags reports for a small portable allocation, alone and after pinned
// allocations of other flags were freed: does the runtime answer with the flags the memory was
// allocated with, or with those of memory allocated earlier at the same place?
// nvcc -std=c++17 -O2 -arch=sm_90 -o /tmp/host_flags_probe tools/probes/host_flags_probe.cu
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace {
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "host_flags_probe: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// Allocates `bytes` with `flags`, prints the address and what cudaHostGetFlags reports, frees it.
void report(const char* step, std::size_t bytes, unsigned int flags) {
  void* memory = nullptr;
  check(cudaHostAlloc(&memory, bytes, flags), "cudaHostAlloc");
  unsigned int reported = 0;
  check(cudaHostGetFlags(&reported, memory), "cudaHostGetFlags");
  std::printf("%-34s %8zu B flags %#x at %p: reported %#x%s\n", step, bytes, flags, memory,
              reported, (reported & flags) == flags ? "" : "  (a flag missing)");
  check(cudaFreeHost(memory), "cudaFreeHost");
}
} // namespace

int main() {
  check(cudaFree(nullptr), "cudaFree(0)");
  for (const std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20, std::size_t{64} << 20}) {
    report("portable, first", bytes, cudaHostAllocPortable);
    report("mapped", bytes, cudaHostAllocMapped);
    report("portable, after mapped", bytes, cudaHostAllocPortable);
    report("default", bytes, cudaHostAllocDefault);
    report("portable, after default", bytes, cudaHostAllocPortable);
    report("portable | mapped", bytes, cudaHostAllocPortable | cudaHostAllocMapped);
    report("write-combined", bytes, cudaHostAllocWriteCombined);
    report("portable, after write-combined", bytes, cudaHostAllocPortable);
  }
  return 0;
}

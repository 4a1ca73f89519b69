#include "piece_copies.hpp"

#include "cuda_error.hpp"
#include "gather_launch.hpp"
#include "memory.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

namespace gpubench::bench {
namespace {

// Every piece's source and destination address, as the copy calls take them.
struct PiecePointers {
  PiecePointers(const PieceLayout& layout, const PieceEnds& ends) {
    auto* const source = static_cast<std::byte*>(ends.source);
    auto* const destination = static_cast<std::byte*>(ends.destination);
    for (std::size_t piece = 0; piece < layout.pieces; ++piece) {
      sources.push_back(source + layout.source_offset(piece));
      destinations.push_back(destination + layout.destination_offset(piece));
    }
    sizes.assign(layout.pieces, layout.piece_bytes);
  }
  std::vector<void*> sources;
  std::vector<void*> destinations;
  std::vector<std::size_t> sizes;
};

class LoopOperation : public PieceOperation {
public:
  LoopOperation(const PieceLayout& layout, const PieceEnds& ends)
      : pointers_(layout, ends), kind_(ends.kind) {}
  void enqueue(CUstream stream) override {
    for (std::size_t i = 0; i < pointers_.sizes.size(); ++i) {
      GPUBENCH_CUDART(cudaMemcpyAsync(pointers_.destinations[i], pointers_.sources[i],
                                      pointers_.sizes[i], kind_, stream));
    }
  }

private:
  PiecePointers pointers_;
  cudaMemcpyKind kind_;
};

class MemcpyLoop : public PieceCopy {
public:
  const char* name() const override { return "memcpy_loop"; }
  std::size_t queued(std::size_t pieces) const override { return pieces; }
  std::unique_ptr<PieceOperation> prepare(const PieceLayout& layout, const PieceEnds& ends,
                                          int) const override {
    return std::make_unique<LoopOperation>(layout, ends);
  }
};

// cudaMemcpyBatchAsync came with CUDA 12.8; CUDA 13 dropped its failIdx argument.
constexpr int batch_api_version = 12080;

std::string cuda_version(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

class BatchOperation : public PieceOperation {
public:
  BatchOperation(const PieceLayout& layout, const PieceEnds& ends) : pointers_(layout, ends) {}
  void enqueue([[maybe_unused]] CUstream stream) override {
#if CUDART_VERSION >= 13000
    GPUBENCH_CUDART(cudaMemcpyBatchAsync(pointers_.destinations.data(), pointers_.sources.data(),
                                         pointers_.sizes.data(), pointers_.sizes.size(),
                                         &attributes_, &first_copy_, 1, stream));
#elif CUDART_VERSION >= 12080
    std::size_t failed = 0;
    GPUBENCH_CUDART(cudaMemcpyBatchAsync(pointers_.destinations.data(), pointers_.sources.data(),
                                         pointers_.sizes.data(), pointers_.sizes.size(),
                                         &attributes_, &first_copy_, 1, &failed, stream));
#else
    throw std::logic_error("cudaMemcpyBatchAsync is not in this build's CUDA runtime");
#endif
  }

private:
  PiecePointers pointers_;
#if CUDART_VERSION >= 12080
  // One set of attributes for every copy. Stream order, as a loop of cudaMemcpyAsync has: the
  // other orders let the driver read the source outside the stream's order, which the gated
  // batches and their neighbours in the stream do not allow.
  cudaMemcpyAttributes attributes_{.srcAccessOrder = cudaMemcpySrcAccessOrderStream,
                                   .srcLocHint = {},
                                   .dstLocHint = {},
                                   .flags = 0};
  std::size_t first_copy_ = 0;
#endif
};

class MemcpyBatch : public PieceCopy {
public:
  const char* name() const override { return "memcpy_batch"; }
  // Counted as its copies: nothing documents how the driver queues a batch's copies, and a gated
  // stream whose queue fills deadlocks until the gate's timeout.
  std::size_t queued(std::size_t pieces) const override { return pieces; }
  std::optional<std::string> unavailable() const override {
    if (CUDART_VERSION < batch_api_version) {
      return fmt::format("cudaMemcpyBatchAsync needs CUDA {}: this build's runtime is CUDA {}",
                         cuda_version(batch_api_version), cuda_version(CUDART_VERSION));
    }
    int runtime = 0;
    int driver = 0;
    GPUBENCH_CUDART(cudaRuntimeGetVersion(&runtime));
    GPUBENCH_CUDART(cudaDriverGetVersion(&driver));
    if (runtime < batch_api_version || driver < batch_api_version) {
      return fmt::format("cudaMemcpyBatchAsync needs CUDA {}: the runtime is CUDA {}, the driver "
                         "supports CUDA {}",
                         cuda_version(batch_api_version), cuda_version(runtime),
                         cuda_version(driver));
    }
    return std::nullopt;
  }
  std::unique_ptr<PieceOperation> prepare(const PieceLayout& layout, const PieceEnds& ends,
                                          int) const override {
    return std::make_unique<BatchOperation>(layout, ends);
  }
};

class GatherOperation : public PieceOperation {
public:
  GatherOperation(const PieceLayout& layout, const PieceEnds& ends, int sm_count)
      : slot_bytes_(layout.slot_bytes), piece_bytes_(layout.piece_bytes), pieces_(layout.pieces),
        ends_(ends), sm_count_(sm_count), source_slots_(layout.pieces * sizeof(std::uint32_t)),
        destination_slots_(layout.pieces * sizeof(std::uint32_t)) {
    upload(source_slots_.ptr(), layout.source_slots.data(), source_slots_.bytes());
    upload(destination_slots_.ptr(), layout.destination_slots.data(), destination_slots_.bytes());
  }
  void enqueue(CUstream stream) override {
    gather_launch(ends_.source_on_device, ends_.destination_on_device,
                  source_slots_.as<unsigned int>(), destination_slots_.as<unsigned int>(),
                  slot_bytes_, piece_bytes_, pieces_, sm_count_, stream);
  }

private:
  std::size_t slot_bytes_;
  std::size_t piece_bytes_;
  std::size_t pieces_;
  PieceEnds ends_;
  int sm_count_;
  DeviceBuffer source_slots_;
  DeviceBuffer destination_slots_;
};

class GatherKernel : public PieceCopy {
public:
  const char* name() const override { return "gather_kernel"; }
  std::size_t queued(std::size_t) const override { return 1; }
  std::unique_ptr<PieceOperation> prepare(const PieceLayout& layout, const PieceEnds& ends,
                                          int sm_count) const override {
    return std::make_unique<GatherOperation>(layout, ends, sm_count);
  }
};

} // namespace

const std::vector<std::unique_ptr<PieceCopy>>& piece_copies() {
  static const std::vector<std::unique_ptr<PieceCopy>> copies = [] {
    std::vector<std::unique_ptr<PieceCopy>> made;
    made.push_back(std::make_unique<MemcpyLoop>());
    made.push_back(std::make_unique<MemcpyBatch>());
    made.push_back(std::make_unique<GatherKernel>());
    return made;
  }();
  return copies;
}

} // namespace gpubench::bench

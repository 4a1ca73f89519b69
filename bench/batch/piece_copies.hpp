#pragma once

#include "piece_layout.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {

// The two regions a batch's pieces move between: each as the copy calls take it (a host
// pointer or a device address, one address space under unified addressing) and as a kernel
// reaches it (mapped host memory's device address, or device memory).
struct PieceEnds {
  void* source;
  void* destination;
  CUdeviceptr source_on_device;
  CUdeviceptr destination_on_device;
  cudaMemcpyKind kind;
};

// One batch's pieces made ready to move (pointer arrays, slot tables on the device): what the
// timed loop calls, once per batch of pieces.
class PieceOperation {
public:
  PieceOperation() = default;
  PieceOperation(const PieceOperation&) = delete;
  PieceOperation& operator=(const PieceOperation&) = delete;
  PieceOperation(PieceOperation&&) = delete;
  PieceOperation& operator=(PieceOperation&&) = delete;
  virtual ~PieceOperation() = default;
  virtual void enqueue(CUstream stream) = 0;
};

// One way of moving a batch of pieces, the <api> of batch/<direction>/<api>/pieces:<n>/<bytes>:
// memcpy_loop (a cudaMemcpyAsync per piece), memcpy_batch (one cudaMemcpyBatchAsync) or
// gather_kernel (one kernel moving every piece itself).
class PieceCopy {
public:
  PieceCopy() = default;
  PieceCopy(const PieceCopy&) = delete;
  PieceCopy& operator=(const PieceCopy&) = delete;
  PieceCopy(PieceCopy&&) = delete;
  PieceCopy& operator=(PieceCopy&&) = delete;
  virtual ~PieceCopy() = default;

  [[nodiscard]] virtual const char* name() const = 0;
  // The entries one batch of `pieces` puts in the stream's queue, which a gated stream must hold
  // until its release.
  [[nodiscard]] virtual std::size_t queued(std::size_t pieces) const = 0;
  // Why this way cannot run here, if it cannot (a runtime or driver without the call).
  [[nodiscard]] virtual std::optional<std::string> unavailable() const { return std::nullopt; }
  // The operation that moves `layout`'s pieces between `ends`.
  [[nodiscard]] virtual std::unique_ptr<PieceOperation>
  prepare(const PieceLayout& layout, const PieceEnds& ends, int sm_count) const = 0;
};

// memcpy_loop, memcpy_batch, gather_kernel: the order they are listed in.
[[nodiscard]] const std::vector<std::unique_ptr<PieceCopy>>& piece_copies();

} // namespace gpubench::bench

#pragma once

#include "copy_buffers.hpp"
#include "host_memory.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpubench::bench {

// How a copy is made: the blocking call (host clock), the stream-ordered call (events), or a
// kernel reading or writing mapped host memory (the SM path against the copy engine).
enum class CopyApi { sync, async, zerocopy };

// One copy an operation makes: a source, a destination, and the stream it runs on.
struct CopyLeg {
  Place source;
  Place destination;
  CUstream stream;
  const char* name; // where a wrong byte was found, in a failure message
};

// One case of the copy family, named <direction>/<memory>/<api>. Each direction is a small
// type that says where its bytes come from and go to; the measurement is the same for all.
class CopyCase {
public:
  CopyCase(const char* direction, const HostMemoryKind* memory, CopyApi api)
      : direction_(direction), memory_(memory), api_(api) {}
  CopyCase(const CopyCase&) = delete;
  CopyCase& operator=(const CopyCase&) = delete;
  CopyCase(CopyCase&&) = delete;
  CopyCase& operator=(CopyCase&&) = delete;
  virtual ~CopyCase() = default;

  [[nodiscard]] std::string name() const;
  [[nodiscard]] CopyApi api() const noexcept { return api_; }
  // Page-locked and device memory can be copied from behind a gate; pageable memory is staged
  // by the driver on the calling thread, which a gate would deadlock.
  [[nodiscard]] bool gateable() const noexcept {
    return memory_ == nullptr || memory_->page_locked;
  }
  // Host memory on the NUMA node farthest from the GPU (HostMemoryKind::far_node).
  [[nodiscard]] bool far_node() const noexcept {
    return memory_ != nullptr && memory_->far_node;
  }
  // The copies one operation makes, in the family's buffers of at least `bytes`.
  [[nodiscard]] virtual std::vector<CopyLeg> legs(CopyBuffers& buffers, CUstream stream,
                                                  CUstream second_stream) const = 0;
  // Bytes one operation of `bytes` counts towards bandwidth.
  [[nodiscard]] virtual std::size_t bytes_moved(std::size_t bytes) const { return bytes; }

protected:
  [[nodiscard]] const HostMemoryKind& memory() const { return *memory_; }

private:
  const char* direction_;
  const HostMemoryKind* memory_; // null: device memory only
  CopyApi api_;
};

// Every case, in the order they are listed.
[[nodiscard]] const std::vector<std::unique_ptr<CopyCase>>& copy_cases();

// Enqueues (async, zerocopy) or makes (sync) one leg's copy of `bytes`.
void copy(CopyApi api, const CopyLeg& leg, std::size_t bytes, int sm_count);

} // namespace gpubench::bench

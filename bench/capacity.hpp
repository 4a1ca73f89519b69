#pragma once

#include <cstddef>

namespace gpubench::bench {

// What a family's buffers hold room for: the largest request so far, so smaller ones use a
// prefix. ensure() reallocates only for a larger request, and records the new size only once
// the reallocation returned. A reallocation frees what it held before it allocates, so one that
// threw leaves room for nothing: the next request of any size reallocates.
class Capacity {
public:
  template <typename Reallocate> void ensure(std::size_t size, Reallocate&& reallocate) {
    if (size <= size_) {
      return;
    }
    size_ = 0;
    reallocate(size);
    size_ = size;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

private:
  std::size_t size_ = 0;
};

} // namespace gpubench::bench

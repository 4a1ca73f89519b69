#pragma once

#include <utility>

namespace gpubench {

// Move-only owner of one CUDA handle. `Release` is a stateless callable that frees it; a release
// failure during destruction is ignored on purpose, since a destructor cannot report it and
// the next checked call on the context surfaces any sticky error.
template <typename T, typename Release> class UniqueHandle {
public:
  UniqueHandle() = default;
  explicit UniqueHandle(T handle) noexcept : handle_(handle) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, T{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, T{});
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  [[nodiscard]] T get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != T{}; }

  void reset() noexcept {
    if (handle_ != T{}) {
      Release{}(handle_);
      handle_ = T{};
    }
  }

private:
  T handle_{};
};

} // namespace gpubench

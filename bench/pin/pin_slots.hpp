#pragma once

#include "memory.hpp"
#include "pin_apis.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace gpubench::bench {

// One region of `bytes` that a benchmark pins and releases over and over. For an API that pins
// memory the program holds, the slot owns that memory: malloc'd and touched once, so a pin
// times page-locking resident pages, not faulting them in. Released on destruction if pinned.
class PinSlot {
public:
  PinSlot(const PinApi& api, std::size_t bytes);
  PinSlot(const PinSlot&) = delete;
  PinSlot& operator=(const PinSlot&) = delete;
  PinSlot(PinSlot&&) = delete;
  PinSlot& operator=(PinSlot&&) = delete;
  ~PinSlot();

  // Each throws std::logic_error where the slot is already in the state asked for.
  void pin();
  void release();

  [[nodiscard]] bool pinned() const noexcept { return pinned_ != nullptr; }
  // The page-locked memory; std::logic_error where the slot is not pinned.
  [[nodiscard]] std::byte* data() const;
  // The memory the program keeps when released (the registered memory), or null.
  [[nodiscard]] const std::byte* existing() const noexcept {
    return existing_ ? existing_->data() : nullptr;
  }

private:
  const PinApi& api_;
  std::size_t bytes_;
  std::optional<PageableHostBuffer> existing_;
  void* pinned_ = nullptr;
};

// The slots one timed batch goes through: a batch of pins starts with every slot released and
// pins them in order; a batch of releases starts with every slot pinned. What the batch is
// prepared with (release_all, pin_all) runs outside the timed region.
class PinSlots {
public:
  PinSlots(const PinApi& api, std::size_t bytes, std::size_t count);

  // The timed operations: the next slot pinned, or released.
  void pin_next();
  void release_next();
  // Untimed, before a batch: every slot released (pinned), the next operation at the first.
  void release_all();
  void pin_all();

  // The operations pin_next and release_next made: what the harness counts as its operations.
  [[nodiscard]] std::size_t pins_made() const noexcept { return pins_made_; }
  [[nodiscard]] std::size_t releases_made() const noexcept { return releases_made_; }
  [[nodiscard]] const std::vector<std::unique_ptr<PinSlot>>& slots() const noexcept {
    return slots_;
  }

private:
  PinSlot& next();

  std::vector<std::unique_ptr<PinSlot>> slots_;
  std::size_t next_ = 0;
  std::size_t pins_made_ = 0;
  std::size_t releases_made_ = 0;
};

} // namespace gpubench::bench

#include "pin_slots.hpp"

#include <stdexcept>

namespace gpubench::bench {

PinSlot::PinSlot(const PinApi& api, std::size_t bytes) : api_(api), bytes_(bytes) {
  if (api.pins_existing_memory()) {
    existing_.emplace(bytes); // touched on allocation
  }
}

PinSlot::~PinSlot() {
  if (pinned_ != nullptr) {
    api_.release_noexcept(pinned_);
  }
}

void PinSlot::pin() {
  if (pinned_ != nullptr) {
    throw std::logic_error("a slot pinned twice: its batch was not prepared");
  }
  pinned_ = api_.pin(existing_ ? existing_->data() : nullptr, bytes_);
}

void PinSlot::release() {
  if (pinned_ == nullptr) {
    throw std::logic_error("a slot released twice: its batch was not prepared");
  }
  api_.release(pinned_);
  pinned_ = nullptr;
}

std::byte* PinSlot::data() const {
  if (pinned_ == nullptr) {
    throw std::logic_error("a released slot's memory was asked for");
  }
  return static_cast<std::byte*>(pinned_);
}

PinSlots::PinSlots(const PinApi& api, std::size_t bytes, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    slots_.push_back(std::make_unique<PinSlot>(api, bytes));
  }
}

PinSlot& PinSlots::next() {
  if (next_ == slots_.size()) {
    throw std::logic_error("a batch ran past its slots: it was not prepared");
  }
  return *slots_[next_++];
}

void PinSlots::pin_next() {
  next().pin();
  ++pins_made_;
}

void PinSlots::release_next() {
  next().release();
  ++releases_made_;
}

void PinSlots::release_all() {
  for (const auto& slot : slots_) {
    if (slot->pinned()) {
      slot->release();
    }
  }
  next_ = 0;
}

void PinSlots::pin_all() {
  for (const auto& slot : slots_) {
    if (!slot->pinned()) {
      slot->pin();
    }
  }
  next_ = 0;
}

} // namespace gpubench::bench

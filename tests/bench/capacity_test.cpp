#include "capacity.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <vector>

namespace gpubench::bench {
namespace {

// Buffers as the families keep them: a reallocation frees what it held, then allocates.
struct Buffers {
  Capacity capacity;
  std::optional<std::vector<char>> data;
  std::size_t fail_at = 0; // a request of this size throws, as an allocation that does not fit

  void ensure(std::size_t size) {
    capacity.ensure(size, [this](std::size_t bytes) {
      data.reset();
      if (bytes == fail_at) {
        throw std::runtime_error("out of memory");
      }
      data.emplace(bytes);
    });
  }
};

TEST(Capacity, GrowsOnlyForALargerRequest) {
  Buffers buffers;
  buffers.ensure(100);
  const char* held = buffers.data->data();
  buffers.ensure(50);
  EXPECT_EQ(buffers.data->data(), held) << "a smaller request reallocated";
  EXPECT_EQ(buffers.capacity.size(), 100U);
}

TEST(Capacity, AReallocationThatThrewHoldsNothingSoAnySizeReallocates) {
  Buffers buffers;
  buffers.ensure(100);
  buffers.fail_at = 200;
  EXPECT_THROW(buffers.ensure(200), std::runtime_error);
  EXPECT_EQ(buffers.capacity.size(), 0U);
  buffers.ensure(50); // smaller than the room held before the failure
  ASSERT_TRUE(buffers.data.has_value()) << "a request after a failed growth used freed buffers";
  EXPECT_EQ(buffers.data->size(), 50U);
  EXPECT_EQ(buffers.capacity.size(), 50U);
}

} // namespace
} // namespace gpubench::bench

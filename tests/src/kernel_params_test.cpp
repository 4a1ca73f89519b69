#include "kernel_params.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpubench {
namespace {

TEST(PackedKernelParams, SaxpyArgumentsAtTheirAlignedOffsets) {
  // saxpy(float alpha, float* x, float* y, int32_t n): 4 bytes, pad to 8, two pointers, an int.
  const float alpha = 2.0F;
  float* x = reinterpret_cast<float*>(0x1000);
  float* y = reinterpret_cast<float*>(0x2000);
  const std::int32_t n = 128;
  PackedKernelParams params;
  params.push(alpha).push(x).push(y).push(n);
  const auto bytes = params.bytes();
  ASSERT_EQ(bytes.size(), 28U);
  float packed_alpha = 0.0F;
  float* packed_y = nullptr;
  std::int32_t packed_n = 0;
  std::memcpy(&packed_alpha, bytes.data(), 4);
  std::memcpy(&packed_y, bytes.data() + 16, 8);
  std::memcpy(&packed_n, bytes.data() + 24, 4);
  EXPECT_EQ(packed_alpha, alpha);
  EXPECT_EQ(packed_y, y);
  EXPECT_EQ(packed_n, n);
}

TEST(PackedKernelParams, ExtraPointsAtTheBufferAndItsSize) {
  PackedKernelParams params;
  params.push(std::int64_t{7}).push(char{1});
  void** extra = params.extra();
  EXPECT_EQ(extra[0], CU_LAUNCH_PARAM_BUFFER_POINTER);
  EXPECT_EQ(extra[1], params.bytes().data());
  EXPECT_EQ(extra[2], CU_LAUNCH_PARAM_BUFFER_SIZE);
  EXPECT_EQ(*static_cast<std::size_t*>(extra[3]), 9U);
  EXPECT_EQ(extra[4], CU_LAUNCH_PARAM_END);
}

TEST(PackedKernelParams, RawBytesKeepTheirAlignment) {
  PackedKernelParams params;
  const std::array<std::byte, 3> three{std::byte{1}, std::byte{2}, std::byte{3}};
  params.push(char{9}).push_bytes(three, 4);
  ASSERT_EQ(params.bytes().size(), 7U);
  EXPECT_EQ(params.bytes()[4], std::byte{1});
  EXPECT_EQ(params.bytes()[6], std::byte{3});
}

} // namespace
} // namespace gpubench

// The tiled saxpy kernels at sizes that leave a partial last tile and 1-3 elements past the last
// float4, through the launcher the benchmark uses (its exact grid), and the device-side check
// the benchmark verifies with.
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "memory.hpp"
#include "random_fill.hpp"
#include "saxpy_launchers.hpp"
#include "saxpy_reference.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace gpubench::testing {
namespace {

using bench::TileCaching;

class SaxpyTileKernels : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SaxpyTileKernels, MatchTheCpuReferenceOnRandomInputs) {
  const std::size_t count = GetParam();
  std::vector<float> x(count);
  std::vector<float> y0(count);
  fill_random(x, count + 7);
  fill_random(y0, count + 8);
  // One float past N on each side of y: a kernel that writes beyond N changes it.
  const DeviceBuffer dx(count * sizeof(float));
  const DeviceBuffer dy((count + 1) * sizeof(float));
  upload(dx.ptr(), x.data(), dx.bytes());
  const float alpha = -1.25F;
  const float guard = 12345.0F;
  for (const TileCaching caching : {TileCaching::plain, TileCaching::streaming}) {
    const char* kernel =
        caching == TileCaching::plain ? "saxpy_vec4_tile" : "saxpy_vec4_tile_streaming";
    upload(dy.ptr(), y0.data(), count * sizeof(float));
    upload(dy.ptr() + count * sizeof(float), &guard, sizeof(float));
    bench::launch_saxpy_vec4_tile(caching, stream(), alpha, dx.as<float>(), dy.as<float>(),
                                  static_cast<std::int64_t>(count));
    std::vector<float> y(count + 1);
    GPUBENCH_CU(cuStreamSynchronize, stream());
    GPUBENCH_CU(cuMemcpyDtoH, y.data(), dy.ptr(), dy.bytes());
    const auto mismatch = find_saxpy_mismatch(alpha, x, y0, std::span(y).first(count));
    EXPECT_FALSE(mismatch.has_value()) << kernel << ": " << describe(*mismatch, count);
    EXPECT_EQ(y[count], guard) << kernel << " wrote past element " << count - 1;
  }
}

// Around the tile (4096 floats) and float4 boundaries, and odd sizes.
INSTANTIATE_TEST_SUITE_P(OddSizes, SaxpyTileKernels,
                         ::testing::Values(1, 3, 4, 5, 127, 1023, 4095, 4096, 4097, 8191, 1000003));

class DeviceMismatch : public GpuTest {};

TEST_F(DeviceMismatch, FindsTheFirstDifferingElementOrNone) {
  constexpr std::size_t count = 1000003;
  std::vector<float> expected(count);
  fill_random(expected, 99);
  const DeviceBuffer de(count * sizeof(float));
  const DeviceBuffer da(count * sizeof(float));
  upload(de.ptr(), expected.data(), de.bytes());
  const auto first = [&](std::vector<float> actual) {
    upload(da.ptr(), actual.data(), da.bytes());
    return bench::first_mismatch_on_device(stream(), de.as<float>(), da.as<float>(), count);
  };
  EXPECT_EQ(first(expected), count);
  for (const std::size_t at : {std::size_t{0}, std::size_t{4096}, count - 1}) {
    std::vector<float> actual = expected;
    actual[at] = std::nextafter(actual[at], std::numeric_limits<float>::infinity());
    EXPECT_EQ(first(actual), at);
  }
  std::vector<float> actual = expected;
  actual[777777] = -actual[777777];
  actual[31] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(first(actual), 31U);
}

} // namespace
} // namespace gpubench::testing

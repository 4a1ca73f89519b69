// The Driver API walk-through, as tests: N = 128, x evenly spaced from 0 to 100, y = 0,
// alpha = 2, one block of 128 threads; afterwards y must equal 2*x exactly.
#include "driver_api.hpp"
#include "embedded_images.hpp"
#include "gpu_test.hpp"
#include "memory.hpp"
#include "module.hpp"
#include "random_fill.hpp"
#include "saxpy.cuh"
#include "saxpy_reference.hpp"

#include <vector>

namespace gpubench::testing {
namespace {

constexpr int n = 128;

class Walkthrough : public GpuTest {
protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) {
      return;
    }
    for (int i = 0; i < n; ++i) {
      x_[i] = 100.0F * static_cast<float>(i) / static_cast<float>(n - 1);
    }
    dx_.emplace(n * sizeof(float));
    dy_.emplace(n * sizeof(float));
    upload(dx_->ptr(), x_.data(), n * sizeof(float));
    GPUBENCH_CU(cuMemsetD8Async, dy_->ptr(), 0, n * sizeof(float), stream());
  }

  // The buffers go before the context that owns them (GpuTest::TearDown releases it).
  void TearDown() override {
    dx_.reset();
    dy_.reset();
    GpuTest::TearDown();
  }

  void expect_y_is_two_x() {
    std::vector<float> y(n, -1.0F);
    GPUBENCH_CU(cuStreamSynchronize, stream());
    GPUBENCH_CU(cuMemcpyDtoH, y.data(), dy_->ptr(), n * sizeof(float));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(y[i], 2.0F * x_[i]) << "element " << i;
    }
  }

  void launch_with_params(CUfunction function) {
    float alpha = 2.0F;
    CUdeviceptr x = dx_->ptr();
    CUdeviceptr y = dy_->ptr();
    int count = n;
    void* params[] = {&alpha, &x, &y, &count};
    GPUBENCH_CU(cuLaunchKernel, function, 1, 1, 1, n, 1, 1, 0, stream(), params, nullptr);
  }

  std::vector<float> x_ = std::vector<float>(n);
  std::optional<DeviceBuffer> dx_;
  std::optional<DeviceBuffer> dy_;
};

TEST_F(Walkthrough, CuLaunchKernelFromTheEmbeddedFatbin) {
  const Module module(saxpy_fatbin().data());
  launch_with_params(module.function("saxpy"));
  expect_y_is_two_x();
}

TEST_F(Walkthrough, CuLaunchKernelFromJitCompiledPtx) {
  const Module module(saxpy_ptx());
  launch_with_params(module.function("saxpy"));
  expect_y_is_two_x();
}

TEST_F(Walkthrough, TripleChevron) {
  saxpy<<<1, n, 0, stream()>>>(2.0F, dx_->as<float>(), dy_->as<float>(), n);
  GPUBENCH_CUDART(cudaGetLastError());
  expect_y_is_two_x();
}

class SaxpyKernels : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

// Sizes that leave tails for both kernels: not multiples of the block or of 4.
TEST_P(SaxpyKernels, MatchTheCpuReferenceOnRandomInputs) {
  const std::size_t count = GetParam();
  std::vector<float> x(count);
  std::vector<float> y0(count);
  fill_random(x, count);
  fill_random(y0, count + 1);
  const DeviceBuffer dx(count * sizeof(float));
  const DeviceBuffer dy(count * sizeof(float));
  upload(dx.ptr(), x.data(), dx.bytes());
  const float alpha = -1.25F;
  const auto check = [&](const char* kernel, auto launch) {
    upload(dy.ptr(), y0.data(), dy.bytes());
    launch();
    GPUBENCH_CUDART(cudaGetLastError());
    std::vector<float> y(count);
    GPUBENCH_CU(cuStreamSynchronize, stream());
    GPUBENCH_CU(cuMemcpyDtoH, y.data(), dy.ptr(), dy.bytes());
    const auto mismatch = find_saxpy_mismatch(alpha, x, y0, y);
    EXPECT_FALSE(mismatch.has_value()) << kernel << ": " << describe(*mismatch, count);
  };
  const auto blocks = static_cast<unsigned int>((count + 255) / 256);
  check("saxpy", [&] {
    saxpy<<<blocks, 256, 0, stream()>>>(alpha, dx.as<float>(), dy.as<float>(),
                                        static_cast<int>(count));
  });
  check("saxpy_vec4", [&] {
    saxpy_vec4<<<7, 64, 0, stream()>>>(alpha, dx.as<float>(), dy.as<float>(),
                                       static_cast<std::int64_t>(count));
  });
}

INSTANTIATE_TEST_SUITE_P(OddSizes, SaxpyKernels,
                         ::testing::Values(1, 3, 5, 127, 1023, 4097, 1000003));

} // namespace
} // namespace gpubench::testing

#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "memory.hpp"
#include "random_fill.hpp"

#include <cstring>
#include <vector>

namespace gpubench::testing {
namespace {

using Memory = GpuTest;

TEST_F(Memory, BytesSurviveARoundTripThroughEveryHostKind) {
  constexpr std::size_t bytes = (1U << 20U) + 3;
  std::vector<std::byte> expected(bytes);
  fill_random(expected, 5);
  const DeviceBuffer device_buffer(bytes);
  PinnedHostBuffer pinned(bytes);
  RegisteredHostBuffer registered(bytes);
  PageableHostBuffer pageable(bytes);
  for (std::byte* host : {pinned.data(), registered.data(), pageable.data()}) {
    std::memcpy(host, expected.data(), bytes);
    GPUBENCH_CU(cuMemcpyHtoD, device_buffer.ptr(), host, bytes);
    std::memset(host, 0, bytes);
    GPUBENCH_CU(cuMemcpyDtoH, host, device_buffer.ptr(), bytes);
    EXPECT_EQ(std::memcmp(host, expected.data(), bytes), 0);
  }
}

TEST_F(Memory, MappedPinnedMemoryHasADeviceAddress) {
  const PinnedHostBuffer mapped(4096, CU_MEMHOSTALLOC_DEVICEMAP);
  EXPECT_NE(mapped.device_ptr(), CUdeviceptr{0});
}

TEST_F(Memory, AnImpossibleDeviceAllocationThrowsNamingTheCall) {
  try {
    const DeviceBuffer too_big(std::size_t{1} << 50U);
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_TRUE(std::string(error.what()).starts_with("cuMemAlloc(")) << error.what();
    EXPECT_NE(std::string(error.what()).find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
  }
}

TEST_F(Memory, APinnedAllocationTheOsRefusesThrowsNamingTheCall) {
  try {
    const PinnedHostBuffer too_big(std::size_t{1} << 50U);
    FAIL() << "a 1 PiB pinned allocation succeeded";
  } catch (const CudaError& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with("cuMemHostAlloc(")) << error.what();
  }
}

TEST_F(Memory, BuffersMoveWithoutDoubleFree) {
  DeviceBuffer first(256);
  const CUdeviceptr ptr = first.ptr();
  DeviceBuffer second = std::move(first);
  EXPECT_EQ(second.ptr(), ptr);
}

} // namespace
} // namespace gpubench::testing

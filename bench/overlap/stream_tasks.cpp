#include "stream_tasks.hpp"

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "host_bytes.hpp"
#include "random_fill.hpp"
#include "saxpy.cuh"
#include "saxpy_reference.hpp"
#include "session.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>

namespace gpubench::bench {
namespace {

constexpr unsigned char poison_byte = 0xA5;
constexpr int saxpy_block_threads = 256;

// A copy between slot `slot`'s pinned host region and its device region.
class SlotCopy : public StreamTask {
public:
  SlotCopy(CUstream stream, OverlapBuffers& buffers, std::size_t slot, std::size_t bytes)
      : StreamTask(stream), buffers_(buffers), slot_(slot), bytes_(bytes) {}
  [[nodiscard]] std::size_t bytes_per_op() const override { return bytes_; }
  [[nodiscard]] bool is_copy() const override { return true; }

protected:
  [[nodiscard]] std::byte* host() const { return buffers_.host[slot_]->data(); }
  [[nodiscard]] CUdeviceptr device() const { return buffers_.device[slot_]->ptr(); }
  [[nodiscard]] const std::byte* expected() const { return buffers_.expected_slot(slot_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  [[nodiscard]] OverlapBuffers& buffers() const { return buffers_; }
  [[nodiscard]] std::string where(const char* side) const {
    return fmt::format("slot {}'s {}", slot_, side);
  }

private:
  OverlapBuffers& buffers_;
  std::size_t slot_;
  std::size_t bytes_;
};

class HostToDevice final : public SlotCopy {
public:
  using SlotCopy::SlotCopy;
  void prepare() const override {
    parallel_copy(host(), expected(), bytes());
    GPUBENCH_CU(cuMemsetD8Async, device(), poison_byte, bytes(), stream());
    GPUBENCH_CU(cuStreamSynchronize, stream());
  }
  void enqueue() const override {
    GPUBENCH_CU(cuMemcpyHtoDAsync, device(), host(), bytes(), stream());
  }
  [[nodiscard]] std::optional<std::string> check(std::size_t) const override {
    GPUBENCH_CU(cuStreamSynchronize, stream());
    std::byte* const readback = buffers().readback->data();
    GPUBENCH_CU(cuMemcpyDtoH, readback, device(), bytes());
    return compare_bytes(readback, expected(), bytes(), where("device").c_str());
  }
};

class DeviceToHost final : public SlotCopy {
public:
  using SlotCopy::SlotCopy;
  void prepare() const override {
    upload(device(), expected(), bytes());
    parallel_fill(host(), poison_byte, bytes());
  }
  void enqueue() const override {
    GPUBENCH_CU(cuMemcpyDtoHAsync, host(), device(), bytes(), stream());
  }
  [[nodiscard]] std::optional<std::string> check(std::size_t) const override {
    GPUBENCH_CU(cuStreamSynchronize, stream());
    return compare_bytes(host(), expected(), bytes(), where("host").c_str());
  }
};

// y = alpha*x + y over `bytes` / 4 floats, by saxpy_vec4 (the saxpy family's float4 kernel near
// the memory ceiling) on a grid of the SMs' resident blocks, or fewer where the work needs
// fewer. Launched through the driver on the runtime's image of the kernel.
class RunningSaxpy final : public StreamTask {
public:
  RunningSaxpy(CUstream stream, OverlapBuffers& buffers, std::size_t bytes, const Session& session)
      : StreamTask(stream), buffers_(buffers), n_(bytes / sizeof(float)),
        function_(driver_function(reinterpret_cast<const void*>(saxpy_vec4))) {
    float a = 0.0F;
    fill_random(std::span(&a, 1), 0x0E7E1A93);
    alpha_ = 1.0F + a; // in [0, 2): random, never 0 (fill_random never yields -1 exactly)
    int blocks_per_sm = 0;
    GPUBENCH_CUDART(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, reinterpret_cast<const void*>(saxpy_vec4), saxpy_block_threads, 0));
    const std::size_t needed = (n_ / 4 + saxpy_block_threads - 1) / saxpy_block_threads;
    const auto resident =
        static_cast<std::size_t>(std::max(1, session.device().sm_count * blocks_per_sm));
    grid_ = static_cast<unsigned int>(std::clamp<std::size_t>(needed, 1, resident));
  }
  [[nodiscard]] std::size_t bytes_per_op() const override { return 3 * n_ * sizeof(float); }
  [[nodiscard]] bool is_copy() const override { return false; }
  void prepare() const override {
    GPUBENCH_CU(cuMemcpyDtoDAsync, buffers_.dy->ptr(), buffers_.dy0->ptr(), n_ * sizeof(float),
                stream());
    GPUBENCH_CU(cuStreamSynchronize, stream());
  }
  void enqueue() const override {
    float alpha = alpha_;
    CUdeviceptr x = buffers_.dx->ptr();
    CUdeviceptr y = buffers_.dy->ptr();
    auto n = static_cast<std::int64_t>(n_);
    void* params[] = {&alpha, &x, &y, &n};
    GPUBENCH_CU(cuLaunchKernel, function_, grid_, 1, 1, saxpy_block_threads, 1, 1, 0, stream(),
                params, nullptr);
  }
  [[nodiscard]] std::optional<std::string> check(std::size_t ops) const override {
    GPUBENCH_CU(cuStreamSynchronize, stream());
    GPUBENCH_CU(cuMemcpyDtoH, buffers_.result->data(), buffers_.dy->ptr(), n_ * sizeof(float));
    const std::span<const float> y(reinterpret_cast<const float*>(buffers_.result->data()), n_);
    const auto mismatch =
        find_saxpy_mismatch(alpha_, buffers_.x_host(n_), buffers_.y0_host(n_), y, ops);
    if (!mismatch) {
      return std::nullopt;
    }
    return fmt::format("after {} saxpys in a row: {}", ops, describe(*mismatch, n_));
  }

private:
  OverlapBuffers& buffers_;
  std::size_t n_;
  CUfunction function_;
  float alpha_ = 0.0F;
  unsigned int grid_ = 1;
};

} // namespace

std::vector<std::unique_ptr<StreamTask>> make_stream_tasks(const StreamCombo& combo,
                                                           std::size_t bytes,
                                                           OverlapBuffers& buffers,
                                                           const Session& session) {
  if (combo.works.size() > max_streams || std::ranges::count(combo.works, StreamWork::saxpy) > 1) {
    throw std::logic_error("an overlap combination of more streams, or saxpys, than it holds");
  }
  std::vector<std::unique_ptr<StreamTask>> tasks;
  std::size_t slot = 0;
  for (std::size_t i = 0; i < combo.works.size(); ++i) {
    const CUstream stream = buffers.streams[i].get();
    switch (combo.works[i]) {
    case StreamWork::htod:
      tasks.push_back(std::make_unique<HostToDevice>(stream, buffers, slot++, bytes));
      break;
    case StreamWork::dtoh:
      tasks.push_back(std::make_unique<DeviceToHost>(stream, buffers, slot++, bytes));
      break;
    case StreamWork::saxpy:
      tasks.push_back(std::make_unique<RunningSaxpy>(stream, buffers, bytes, session));
      break;
    }
  }
  return tasks;
}

} // namespace gpubench::bench

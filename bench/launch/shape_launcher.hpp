#pragma once

// Launches of launch_shape_stamp (kernels/launch_shape.cuh) in one shape (shape_cases.hpp) on
// one stream, through cuLaunchKernel, each stamping the slot after the last
// (launch % shape_launch_capacity).
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "launch_shape.cuh"
#include "shape_cases.hpp"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <optional>

namespace gpubench::bench {

class ShapeLauncher {
public:
  // Sets the kernel's attributes every shape launches it with: the most dynamic shared memory a
  // block may opt in to (`dynamic_shared_most`, so no shape's launch is refused for its size and
  // every shape sees the same attribute), and the carveout left to the driver
  // (CU_SHAREDMEM_CARVEOUT_DEFAULT) until a carveout shape sets its own before each launch. The
  // function is the process's one handle for the kernel, so what an earlier shape set is undone
  // here.
  ShapeLauncher(const LaunchShape& shape, unsigned int blocks, int dynamic_shared_most,
                CUstream stream)
      : function_(driver_function(reinterpret_cast<const void*>(launch_shape_stamp))),
        shape_(shape), blocks_(blocks), stream_(stream) {
    GPUBENCH_CU(cuFuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic_shared_most);
    GPUBENCH_CU(cuFuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                static_cast<int>(CU_SHAREDMEM_CARVEOUT_DEFAULT));
    args_.marker = shape_marker;
    args_.grid_blocks = blocks;
    args_.block_threads = shape.block_threads;
    args_.shared_bytes = shape.shared_bytes;
    params_[0] = &args_;
  }
  ShapeLauncher(const ShapeLauncher&) = delete;
  ShapeLauncher& operator=(const ShapeLauncher&) = delete;
  ShapeLauncher(ShapeLauncher&&) = delete;
  ShapeLauncher& operator=(ShapeLauncher&&) = delete;
  ~ShapeLauncher() = default;

  // A carveout shape sets the kernel's carveout preference right before the launch, as a program
  // that changes it between launches does; the launch takes the preference it finds. The launch
  // copies the parameter block at the call, so the next slot can be written.
  void launch() {
    if (const std::optional<int> percent = carveout_percent(shape_.carveout, launches_)) {
      GPUBENCH_CU(cuFuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                  *percent);
    }
    args_.launch = next_;
    next_ = (next_ + 1) % shape_launch_capacity;
    ++launches_;
    GPUBENCH_CU(cuLaunchKernel, function_, blocks_, 1, 1, shape_.block_threads, 1, 1,
                shape_.shared_bytes, stream_, params_.data(), nullptr);
  }
  // The next launch stamps slot 0.
  void restart() noexcept { next_ = 0; }
  [[nodiscard]] unsigned int blocks() const noexcept { return blocks_; }

private:
  CUfunction function_;
  const LaunchShape& shape_;
  unsigned int blocks_;
  CUstream stream_;
  unsigned int next_ = 0;
  std::uint64_t launches_ = 0;
  ShapeArgs args_{};
  std::array<void*, 1> params_{};
};

} // namespace gpubench::bench

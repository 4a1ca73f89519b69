#include "shape_cases.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <string_view>

namespace gpubench::bench {
namespace {

constexpr GridSize blocks(unsigned int count) { return {GridSize::Unit::blocks, count}; }
constexpr GridSize waves(unsigned int count) { return {GridSize::Unit::waves, count}; }

// Grid: one block to 64 waves. A 32-thread block of this kernel is resident 32 to an SM on
// Hopper, so 64 waves are two rounds of resident blocks and the smaller grids one.
// Block: 32 to 1024 threads, the most a block has. Shared memory: none, the carveout shapes'
// 8 KiB, the 48 KiB every launch may ask for, 112 KiB (two blocks still fit an H100's SM) and
// 227 KiB, the most an sm_90 block may opt in to. Each dimension keeps the base among its values,
// so it reads as a whole series.
constexpr std::array shapes{
    LaunchShape{"grid", blocks(1), base_block_threads, 0},
    LaunchShape{"grid", waves(1), base_block_threads, 0},
    LaunchShape{"grid", waves(4), base_block_threads, 0},
    LaunchShape{"grid", waves(16), base_block_threads, 0},
    LaunchShape{"grid", waves(64), base_block_threads, 0},
    LaunchShape{"block", one_wave, 32, 0},
    LaunchShape{"block", one_wave, 128, 0},
    LaunchShape{"block", one_wave, 256, 0},
    LaunchShape{"block", one_wave, 512, 0},
    LaunchShape{"block", one_wave, 1024, 0},
    LaunchShape{"smem", one_wave, base_block_threads, 0},
    LaunchShape{"smem", one_wave, base_block_threads, carveout_shared_bytes},
    LaunchShape{"smem", one_wave, base_block_threads, 48U * 1024U},
    LaunchShape{"smem", one_wave, base_block_threads, 112U * 1024U},
    LaunchShape{"smem", one_wave, base_block_threads, 227U * 1024U},
    LaunchShape{"carveout", one_wave, base_block_threads, carveout_shared_bytes, Carveout::fixed},
    LaunchShape{"carveout", one_wave, base_block_threads, carveout_shared_bytes,
                Carveout::alternating},
};

} // namespace

std::span<const LaunchShape> launch_shapes() { return shapes; }

std::string shape_value(const LaunchShape& shape) {
  const std::string_view dimension = shape.dimension;
  if (dimension == "grid") {
    return fmt::format("{}:{}", shape.grid.unit == GridSize::Unit::blocks ? "blocks" : "waves",
                       shape.grid.count);
  }
  if (dimension == "block") {
    return fmt::format("threads:{}", shape.block_threads);
  }
  if (dimension == "smem") {
    return fmt::format("bytes:{}", shape.shared_bytes);
  }
  if (dimension == "carveout") {
    return shape.carveout == Carveout::alternating ? "alternating" : "fixed";
  }
  throw std::logic_error("a launch shape of no known dimension");
}

std::string shape_name(const LaunchShape& shape, const char* measure) {
  return fmt::format("launch/shape/{}/{}/{}", shape.dimension, shape_value(shape), measure);
}

unsigned int shape_grid_blocks(GridSize grid, int sm_count) {
  if (grid.unit == GridSize::Unit::blocks) {
    return grid.count;
  }
  if (sm_count < 1) {
    throw std::logic_error("a wave on a GPU of no SMs");
  }
  return grid.count * static_cast<unsigned int>(sm_count);
}

std::optional<int> carveout_percent(Carveout carveout, std::uint64_t launch) {
  constexpr int most_l1 = 0;       // CU_SHAREDMEM_CARVEOUT_MAX_L1
  constexpr int most_shared = 100; // CU_SHAREDMEM_CARVEOUT_MAX_SHARED
  switch (carveout) {
  case Carveout::unset:
    return std::nullopt;
  case Carveout::fixed:
    return most_shared;
  case Carveout::alternating:
    return launch % 2 == 0 ? most_l1 : most_shared;
  }
  throw std::logic_error("a carveout of no known kind");
}

std::optional<std::string> shape_unfit(const LaunchShape& shape, int max_block_threads,
                                       int optin_shared_bytes, int static_shared_bytes) {
  if (static_cast<long long>(shape.block_threads) > max_block_threads) {
    return fmt::format("a block of {} threads is more than the kernel's {} here",
                       shape.block_threads, max_block_threads);
  }
  const long long dynamic_most =
      static_cast<long long>(optin_shared_bytes) - static_cast<long long>(static_shared_bytes);
  if (static_cast<long long>(shape.shared_bytes) > dynamic_most) {
    return fmt::format("{} bytes of dynamic shared memory are more than a block may opt in to "
                       "here ({} bytes, {} of them the kernel's static shared memory)",
                       shape.shared_bytes, optin_shared_bytes, static_shared_bytes);
  }
  return std::nullopt;
}

} // namespace gpubench::bench

#pragma once

// The shapes launch/shape/ launches its kernel in: each a grid, a block and dynamic shared memory,
// and how the launches set the shared-memory carveout, along one dimension from a common base.
// Pure data and arithmetic, no CUDA, so the names and the sizes they stand for are tested on
// any machine.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace gpubench::bench {

// A grid's size: `count` blocks, or `count` waves of one block per SM (the mechanisms' wave,
// launch_mechanisms.cpp), so a name says the same on a GPU of any SM count.
struct GridSize {
  enum class Unit { blocks, waves };
  Unit unit;
  unsigned int count;
};

// How the launches set CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: not at all (the
// driver's default), to the same value before every launch, or to alternating values before
// every launch.
enum class Carveout { unset, fixed, alternating };

struct LaunchShape {
  const char* dimension; // grid, block, smem, carveout
  GridSize grid;
  unsigned int block_threads;
  unsigned int shared_bytes; // dynamic shared memory per block
  Carveout carveout = Carveout::unset;
};

// The base every dimension varies one part of: a wave of 32-thread blocks, no dynamic shared
// memory, the carveout left to the driver (the mechanisms' `grid` path, not rounded to clusters).
inline constexpr GridSize one_wave{GridSize::Unit::waves, 1};
inline constexpr unsigned int base_block_threads = 32;

// The shared memory the carveout shapes give each block: below the 48 KiB every launch may ask
// without opting in, and a fraction of the largest carveout, so the driver's choice follows the
// preference rather than the kernel's need.
inline constexpr unsigned int carveout_shared_bytes = 8192;

// Every shape, in the order they register.
[[nodiscard]] std::span<const LaunchShape> launch_shapes();

// The shape's value component of its name: blocks:1, waves:4, threads:256, bytes:49152,
// fixed, alternating.
[[nodiscard]] std::string shape_value(const LaunchShape& shape);

// launch/shape/<dimension>/<value>/<measure>.
[[nodiscard]] std::string shape_name(const LaunchShape& shape, const char* measure);

// The grid's blocks on a GPU of `sm_count` SMs.
[[nodiscard]] unsigned int shape_grid_blocks(GridSize grid, int sm_count);

// The carveout a launch sets before it, as a percentage of the most shared memory an SM has, for
// the `launch`-th launch of the shape (counted from 0); nullopt: it sets none. Alternating
// launches swing between the most L1 (0) and the most shared memory (100); fixed ones ask for the
// most shared memory every time, the same call with no change.
[[nodiscard]] std::optional<int> carveout_percent(Carveout carveout, std::uint64_t launch);

// Why a block of the kernel cannot take `shape`, or nullopt: more threads than
// `max_block_threads` (the kernel's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), or more dynamic
// shared memory than `optin_shared_bytes` (the device's
// CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) less the kernel's `static_shared_bytes`.
[[nodiscard]] std::optional<std::string> shape_unfit(const LaunchShape& shape,
                                                     int max_block_threads, int optin_shared_bytes,
                                                     int static_shared_bytes);

} // namespace gpubench::bench

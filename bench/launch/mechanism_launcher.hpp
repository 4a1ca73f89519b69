#pragma once

// The launch mechanisms Hopper added, as paths of the launch family: each one a launch of
// launch_mechanism_stamp (kernels/launch_mechanism.cuh) through cuLaunchKernelEx with the
// attribute that is the mechanism, beside the same launch without it. One API for all of them,
// so what two paths differ by is the attribute alone.
#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "family.hpp"
#include "launch_mechanism.cuh"

#include <cuda.h>

#include <array>
#include <cstdint>

namespace gpubench::bench {

// The grid a mechanism is measured on. A wave is one block per SM, rounded down to whole
// clusters of the largest portable size (8): the grid a cooperative kernel is made for, and
// clusters of 2 and 8 with the same blocks. A single block is a chain of small kernels, each
// depending on the last: what programmatic dependent launch is for.
enum class Grid { single_block, wave };

// Work after each PDL kernel's wait: 4 µs, several times a kernel's gap behind a plain launch
// (launch/gpu_gap), so a kernel that triggers its dependent early is still running when the
// dependent starts, and the overlap shows; with no work, early and late triggers could not
// differ. The plain launch of the same kernel (pdl_off) does the same work.
inline constexpr std::uint64_t pdl_body_ns = 4000;

struct Mechanism {
  const char* name;
  Grid grid = Grid::wave;
  unsigned int cluster_blocks = 1; // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (x); 1: not set
  bool cooperative = false;        // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
  bool programmatic = false;       // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
  PdlTrigger trigger = PdlTrigger::at_exit;
  std::uint64_t body_ns = 0;
  // A batch captured from the stream into a graph and replayed: programmatic launches become
  // programmatic edges between the kernel nodes.
  bool graph = false;

  // Needs what sm_90 added: the programmatic instructions or clusters.
  [[nodiscard]] bool needs_sm90() const noexcept { return programmatic || cluster_blocks > 1; }
};

inline const Mechanism launch_mechanisms[] = {
    {.name = "grid"},
    {.name = "cluster2", .cluster_blocks = 2},
    {.name = "cluster8", .cluster_blocks = 8},
    {.name = "cooperative", .cooperative = true},
    {.name = "pdl_off", .grid = Grid::single_block, .body_ns = pdl_body_ns},
    {.name = "pdl_early",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::early,
     .body_ns = pdl_body_ns},
    {.name = "pdl_late",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::late,
     .body_ns = pdl_body_ns},
    {.name = "pdl_exit",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::at_exit,
     .body_ns = pdl_body_ns},
    {.name = "pdl_graph_off", .grid = Grid::single_block, .body_ns = pdl_body_ns, .graph = true},
    {.name = "pdl_graph_early",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::early,
     .body_ns = pdl_body_ns,
     .graph = true},
    {.name = "pdl_graph_late",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::late,
     .body_ns = pdl_body_ns,
     .graph = true},
    {.name = "pdl_graph_exit",
     .grid = Grid::single_block,
     .programmatic = true,
     .trigger = PdlTrigger::at_exit,
     .body_ns = pdl_body_ns,
     .graph = true},
};

inline constexpr unsigned int mechanism_block_threads = 32;

// The blocks of `grid` on a GPU of `sm_count` SMs.
[[nodiscard]] constexpr unsigned int grid_blocks(Grid grid, int sm_count) noexcept {
  if (grid == Grid::single_block) {
    return 1;
  }
  const auto whole = static_cast<unsigned int>(sm_count) / 8U * 8U;
  return whole > 8U ? whole : 8U;
}

// Launches of one mechanism on one stream, each stamping the slot after the last
// (launch % mechanism_launch_capacity). It points into itself (the config's attributes), so it
// stays where it was made.
class MechanismLauncher {
public:
  MechanismLauncher(const Mechanism& mechanism, unsigned int blocks, CUstream stream)
      : function_(driver_function(reinterpret_cast<const void*>(launch_mechanism_stamp))),
        blocks_(blocks) {
    args_.marker = mechanism_marker;
    args_.cluster_blocks = mechanism.cluster_blocks;
    args_.cooperative = mechanism.cooperative ? 1U : 0U;
    args_.trigger = mechanism.trigger;
    args_.body_ns = mechanism.body_ns;
    params_[0] = &args_;
    config_.gridDimX = blocks;
    config_.gridDimY = config_.gridDimZ = 1;
    config_.blockDimX = mechanism_block_threads;
    config_.blockDimY = config_.blockDimZ = 1;
    config_.hStream = stream;
    if (mechanism.cluster_blocks > 1) {
      CUlaunchAttribute& cluster = attributes_[config_.numAttrs++];
      cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      cluster.value.clusterDim.x = mechanism.cluster_blocks;
      cluster.value.clusterDim.y = cluster.value.clusterDim.z = 1;
    }
    if (mechanism.cooperative) {
      CUlaunchAttribute& cooperative = attributes_[config_.numAttrs++];
      cooperative.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      cooperative.value.cooperative = 1;
    }
    if (mechanism.programmatic) {
      CUlaunchAttribute& programmatic = attributes_[config_.numAttrs++];
      programmatic.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      programmatic.value.programmaticStreamSerializationAllowed = 1;
    }
    config_.attrs = config_.numAttrs > 0 ? attributes_.data() : nullptr;
  }
  MechanismLauncher(const MechanismLauncher&) = delete;
  MechanismLauncher& operator=(const MechanismLauncher&) = delete;
  MechanismLauncher(MechanismLauncher&&) = delete;
  MechanismLauncher& operator=(MechanismLauncher&&) = delete;
  ~MechanismLauncher() = default;

  // cuLaunchKernelEx copies the parameter block at the call, so the next slot can be written.
  void launch() {
    args_.launch = next_;
    next_ = (next_ + 1) % mechanism_launch_capacity;
    GPUBENCH_CU(cuLaunchKernelEx, &config_, function_, params_.data(), nullptr);
  }
  // The next launch stamps slot 0.
  void restart() noexcept { next_ = 0; }
  [[nodiscard]] unsigned int blocks() const noexcept { return blocks_; }
  [[nodiscard]] CUfunction function() const noexcept { return function_; }

private:
  CUfunction function_;
  unsigned int blocks_;
  unsigned int next_ = 0;
  MechanismArgs args_{};
  std::array<void*, 1> params_{};
  std::array<CUlaunchAttribute, 3> attributes_{};
  CUlaunchConfig config_{};
};

} // namespace gpubench::bench

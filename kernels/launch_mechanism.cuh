#pragma once

#include <cuda_runtime_api.h> // __global__ where a host compiler reads this

#include <cstdint>

// launch/gpu_gap/<mechanism> and launch/<mechanism>/submit: one kernel for every launch mechanism
// Hopper added (programmatic dependent launch, thread-block clusters, cooperative launch) and for
// the plain launches they are compared with, so a difference between two paths is the mechanism.
//
// Each block stamps the GPU's global timer (%globaltimer) as it starts, when its wait for the
// previous kernel (griddepcontrol.wait) returns, and as it ends, and checks that it was launched
// as the host says: the parameter block's marker, the blocks of its cluster (%cluster_nctarank)
// and, for a cooperative launch, that its grid synchronises (cooperative_groups' grid sync). The
// stamps, per launch over its blocks, and the counters live in launch_mechanism.cu's module at
// namespace scope; the host reaches them with cuModuleGetGlobal.
//
// The programmatic instructions and %cluster_nctarank exist from sm_90: compiled for an older
// GPU, the wait and the trigger are left out and every block reads a cluster of one. The host
// runs the mechanisms only on code compiled for sm_90 or newer (CU_FUNC_ATTRIBUTE_BINARY_VERSION).

// Launches a batch stamps; a launch's slot is its `launch` argument.
inline constexpr unsigned int mechanism_launch_capacity = 256;
// The parameter block's first word: it arrived intact.
inline constexpr unsigned int mechanism_marker = 0x6C61756EU;

// Where a kernel lets the next one launch (griddepcontrol.launch_dependents): first thing, last
// thing, or not at all, which the GPU does as the kernel's blocks exit.
enum class PdlTrigger : unsigned int { at_exit = 0, early = 1, late = 2 };

// 32 bytes, the launch's parameter block (launch/gpu_gap/<mechanism>/params:32).
struct MechanismArgs {
  unsigned int marker;         // mechanism_marker
  unsigned int launch;         // the slot this launch stamps, < mechanism_launch_capacity
  unsigned int cluster_blocks; // blocks per cluster the host asked for (1: no cluster)
  unsigned int cooperative;    // 1 where the host launched the grid cooperatively
  PdlTrigger trigger;
  unsigned int unused = 0;
  std::uint64_t body_ns; // work after the wait: the block spins this long on the timer
};
static_assert(sizeof(MechanismArgs) == 32);

// One launch, over its blocks. The host sets the firsts to all ones and the rest to zero.
struct MechanismStamp {
  std::uint64_t first_start_ns;  // the earliest block's first instruction
  std::uint64_t first_waited_ns; // the earliest return from a block's wait for the last kernel
  std::uint64_t last_end_ns;     // the latest block's last stamp
  unsigned int blocks;           // blocks that stamped
  unsigned int intact;           // of which saw their parameters, cluster and grid as launched
};

// Blocks of 32 threads; every thread waits and triggers, thread 0 stamps and counts.
__global__ void launch_mechanism_stamp(MechanismArgs args);

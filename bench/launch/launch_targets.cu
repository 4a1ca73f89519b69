#include "launch_targets.hpp"

#include "launch_gap.cuh"
#include "launch_probe.cuh"

#include <stdexcept>

namespace gpubench::bench {
namespace {

template <std::size_t Bytes, void (*Kernel)(Payload<Bytes>)> LaunchTarget make_target() {
  return {Bytes, reinterpret_cast<const void*>(Kernel),
          [](CUstream stream, const void* payload) {
            Kernel<<<1, 1, 0, stream>>>(*static_cast<const Payload<Bytes>*>(payload));
          },
          [](const cudaLaunchConfig_t& config, const void* payload) {
            return cudaLaunchKernelEx(&config, Kernel,
                                      *static_cast<const Payload<Bytes>*>(payload));
          }};
}

template <void (*Kernel)()> LaunchTarget no_params_target() {
  return {0, reinterpret_cast<const void*>(Kernel),
          [](CUstream stream, const void*) { Kernel<<<1, 1, 0, stream>>>(); },
          [](const cudaLaunchConfig_t& config, const void*) {
            return cudaLaunchKernelEx(&config, Kernel);
          }};
}

} // namespace

const std::array<LaunchTarget, 5>& launch_targets() {
  static const std::array<LaunchTarget, 5> all{
      no_params_target<launch_probe_empty>(), make_target<8, launch_probe_8>(),
      make_target<256, launch_probe_256>(), make_target<4096, launch_probe_4096>(),
      make_target<32764, launch_probe_32764>()};
  return all;
}

const LaunchTarget& launch_target(std::int64_t bytes) {
  for (const LaunchTarget& target : launch_targets()) {
    if (static_cast<std::int64_t>(target.bytes) == bytes) {
      return target;
    }
  }
  throw std::logic_error("no launch probe takes this parameter size");
}

const LaunchTarget& floor_target() {
  static const LaunchTarget target = no_params_target<launch_floor_empty>();
  return target;
}

const LaunchTarget& gap_target() {
  static const LaunchTarget target = no_params_target<launch_gap_stamp>();
  return target;
}

} // namespace gpubench::bench

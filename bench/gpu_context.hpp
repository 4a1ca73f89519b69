#pragma once

#include "device_info.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {

using ContextEntries = std::vector<std::pair<std::string, std::string>>;

// The keys gpubench adds to Google Benchmark's JSON context. Their names are a contract with
// scripts/ and CI comparisons: change them only together.
// `driver_release` is the kernel driver's version ("580.159.04"); `driver_version` the CUDA
// version it supports (cuDriverGetVersion).
[[nodiscard]] ContextEntries gpu_context(const DeviceInfo& device,
                                         const std::string& driver_release, int driver_version,
                                         int runtime_version, const std::string& pcie_link);

// gpu_context() for the open session, plus the run's settings, added with AddCustomContext.
void add_gpu_context();

// The GPU's clocks, temperature and power now, or "unavailable" without NVML.
[[nodiscard]] std::string gpu_state();

} // namespace gpubench::bench

#pragma once

#include "device_info.hpp"
#include "json_context.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::bench {

// The keys gpubench adds to Google Benchmark's JSON context. Their names are a contract with
// scripts/ and CI comparisons: change them only together.
// `driver_release` is the kernel driver's version ("580.159.04"); `driver_version` the CUDA
// version it supports (cuDriverGetVersion).
[[nodiscard]] ContextEntries gpu_context(const DeviceInfo& device,
                                         const std::string& driver_release, int driver_version,
                                         int runtime_version, const std::string& pcie_link);

// Where the run happened: the host's name and, where set, the scheduler's job, node and pod
// (Slurm's SLURM_JOB_ID, SLURMD_NODENAME, SLURM_PROCID; NODE_NAME and POD_NAME from a
// Kubernetes manifest); `getenv` reads the environment. Each value is printable(): Google
// Benchmark's JSON writer escapes few control characters and no bytes that are not UTF-8.
[[nodiscard]] ContextEntries scheduler_context(
    const std::function<const char*(const char*)>& getenv);

// gpu_context() for the first of `devices` (their sessions open), the device count and
// selection, and scheduler_context(), added with AddCustomContext.
void add_gpu_context(const std::vector<int>& devices);

// CMake's configuration gpubench was built in (Release, Debug), as the context's
// gpubench_build_type and --version (which needs no GPU) state it: a Debug build's host code
// times the host-timed figures, so results of two build types are measured otherwise.
[[nodiscard]] const char* build_type();

// gpubench --version's line: "gpubench <version> (<build type> build)".
[[nodiscard]] std::string version_line();

// The GPU's clocks, temperature and power now, or "unavailable" without NVML.
[[nodiscard]] std::string gpu_state();

} // namespace gpubench::bench

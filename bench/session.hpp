#pragma once

#include "context.hpp"
#include "device_info.hpp"
#include "family.hpp"
#include "nvml.hpp"
#include "stream.hpp"

#include <memory>
#include <string>
#include <type_traits>
#include <optional>
#include <typeindex>
#include <unordered_map>
#include <vector>

namespace gpubench::bench {

// The fixture every benchmark on one device shares: the device, its primary context, two
// measurement streams, the stream gate, and lazily built per-family state (buffers, modules,
// handles) that would be too slow to rebuild for each of Google Benchmark's runs. Everything is
// released, in reverse order, before the context is.
class Session {
public:
  // Loads `kernels` (every family's and the harness's) up front: CUDA loads a kernel lazily, at
  // its first launch, and a load waits for the device, so a first launch queued behind a
  // StreamGate would deadlock until the gate's timeout.
  Session(int ordinal, const std::vector<KernelSymbol>& kernels);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;
  ~Session();

  [[nodiscard]] const DeviceInfo& device() const noexcept { return device_; }
  [[nodiscard]] CUstream stream() const noexcept { return stream_.get(); }
  [[nodiscard]] CUstream second_stream() const noexcept { return second_stream_.get(); }
  [[nodiscard]] CUcontext context() const noexcept { return context_.get(); }
  // Makes this device's context current for the driver and the runtime.
  void make_current() const;
  // Where the host thread and its memory are placed relative to the GPU, as binding to the
  // GPU's NUMA node did when the session opened.
  [[nodiscard]] const std::string& numa_placement() const noexcept { return numa_placement_; }
  // Binds the calling thread and its new memory to this GPU's NUMA node (bind_to_numa_node),
  // where it is bound to another: each binding replaces the last, so the device a benchmark
  // measures binds before its body runs.
  void bind_host() const;
  // Null where NVML is unavailable.
  [[nodiscard]] const Nvml* nvml() const noexcept { return nvml_.get(); }
  // The device's clocks, temperature and power now; nullopt without NVML.
  [[nodiscard]] std::optional<GpuTelemetry> telemetry() const;
  // NVML's clock-limit times of this device (Nvml::clock_limit_ns); nullopt without them.
  [[nodiscard]] std::optional<ClockLimits> clock_limits() const;

  // The state of type T (a family's buffers, the harness's StreamGate), built on first use with
  // T(Session&) or T().
  template <typename T> T& state() {
    auto& slot = states_[std::type_index(typeid(T))];
    if (!slot) {
      if constexpr (std::is_constructible_v<T, Session&>) {
        slot = std::make_shared<T>(*this);
      } else {
        slot = std::make_shared<T>();
      }
    }
    return *std::static_pointer_cast<T>(slot);
  }

private:
  DeviceInfo device_;
  std::string numa_placement_;
  std::unique_ptr<Nvml> nvml_;
  PrimaryContext context_;
  Stream stream_;
  Stream second_stream_;
  // Declared last so it is destroyed first: states own memory and events of the context.
  std::unordered_map<std::type_index, std::shared_ptr<void>> states_;
};

// Opens a session on each device in `ordinals` (the first is the default), loading every
// registered family's kernels; throws CudaError or std::out_of_range.
void open_sessions(const std::vector<int>& ordinals);
void close_sessions() noexcept;
// The open session on device `ordinal`, or the first one opened; throws std::logic_error when
// none is open.
[[nodiscard]] Session& session();
[[nodiscard]] Session& session(int ordinal);

} // namespace gpubench::bench

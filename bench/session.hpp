#pragma once

#include "context.hpp"
#include "device_info.hpp"
#include "nvml.hpp"
#include "options.hpp"
#include "stream.hpp"

#include <memory>
#include <optional>
#include <typeindex>
#include <unordered_map>

namespace gpubench::bench {

// The process-wide fixture every benchmark shares: the device, its primary context, two
// measurement streams and lazily built per-family state (buffers, modules, handles) that would
// be too slow to rebuild for each of Google Benchmark's runs. Everything is released, in
// reverse order, before the context is.
class Session {
public:
  Session(int ordinal, L2Mode l2);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  Session(Session&&) = delete;
  Session& operator=(Session&&) = delete;
  ~Session() = default;

  [[nodiscard]] const DeviceInfo& device() const noexcept { return device_; }
  [[nodiscard]] L2Mode l2() const noexcept { return l2_; }
  [[nodiscard]] CUstream stream() const noexcept { return stream_.get(); }
  [[nodiscard]] CUstream second_stream() const noexcept { return second_stream_.get(); }
  // Where the host thread and its memory were placed relative to the GPU.
  [[nodiscard]] const std::string& numa_placement() const noexcept { return numa_placement_; }
  // Null where NVML is unavailable.
  [[nodiscard]] const Nvml* nvml() const noexcept { return nvml_.get(); }
  // The device's clocks, temperature and power now; nullopt without NVML.
  [[nodiscard]] std::optional<GpuTelemetry> telemetry() const;

  // The family state of type T, built on first use with T(Session&).
  template <typename T> T& state() {
    auto& slot = states_[std::type_index(typeid(T))];
    if (!slot) {
      slot = std::make_shared<T>(*this);
    }
    return *std::static_pointer_cast<T>(slot);
  }

private:
  DeviceInfo device_;
  L2Mode l2_;
  std::string numa_placement_;
  std::unique_ptr<Nvml> nvml_;
  PrimaryContext context_;
  Stream stream_;
  Stream second_stream_;
  // Declared last so it is destroyed first: states own memory and events of the context.
  std::unordered_map<std::type_index, std::shared_ptr<void>> states_;
};

// Opens the session main() runs benchmarks in; throws CudaError or std::out_of_range.
void open_session(int ordinal, L2Mode l2);
void close_session() noexcept;
// The open session; throws std::logic_error when none is open.
[[nodiscard]] Session& session();

} // namespace gpubench::bench

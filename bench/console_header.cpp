#include "console_header.hpp"

#include "device_info.hpp"
#include "pci_link.hpp"
#include "session.hpp"

#include <fmt/format.h>

namespace gpubench::bench {

std::string console_header(const std::vector<int>& devices) {
  std::string text;
  for (const int ordinal : devices) {
    const Session& s = session(ordinal);
    const DeviceInfo& d = s.device();
    const Nvml* nvml = s.nvml();
    const auto release = nvml != nullptr ? nvml->driver_version() : std::nullopt;
    const auto nvml_link = nvml != nullptr ? nvml->pci_link(d.pci_bus_id) : std::nullopt;
    const auto telemetry = s.telemetry();
    text += fmt::format(
        "gpubench: GPU{} {} ({}), driver {}, CUDA {} (runtime {}), {}, PCIe {}\n", ordinal, d.name,
        d.uuid, release.value_or("unknown"), format_cuda_version(driver_version()),
        format_cuda_version(runtime_version()),
        telemetry ? fmt::format("SM {} MHz, memory {} MHz", telemetry->sm_clock_mhz,
                                telemetry->memory_clock_mhz)
                  : std::string("clocks unavailable"),
        format_pci_link(nvml_link ? *nvml_link : read_pci_link(d.pci_bus_id)));
  }
  return text;
}

const char* debug_library_note() {
  return "gpubench: the DEBUG warning is about Google Benchmark's own library; gpubench times "
         "every figure itself (CUDA events, or the host clock around the measured calls only), "
         "so it does not apply to them";
}

} // namespace gpubench::bench

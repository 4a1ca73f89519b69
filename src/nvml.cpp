#include "nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>

namespace gpubench {
namespace {
// The few NVML declarations gpubench needs (nvml.h ships with the driver's development files,
// not with the toolkit on every machine). Values from nvml.h.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1;
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;
} // namespace

struct Nvml::Api {
  void* library = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned int) = nullptr;
  nvmlReturn_t (*device_by_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power_mw)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*link_generation)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*link_width)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*max_link_generation)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*max_link_width)(nvmlDevice_t, unsigned int*) = nullptr;

  [[nodiscard]] nvmlDevice_t device(const std::string& bus_id) const {
    nvmlDevice_t device = nullptr;
    return device_by_bus_id(bus_id.c_str(), &device) == NVML_SUCCESS ? device : nullptr;
  }
};

namespace {
template <typename Fn> bool bind(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}
} // namespace

std::unique_ptr<Nvml> Nvml::open() {
  auto api = std::make_unique<Api>();
  api->library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api->library == nullptr) {
    return nullptr;
  }
  void* lib = api->library;
  const bool bound = bind(lib, api->init, "nvmlInit_v2") &&
                     bind(lib, api->shutdown, "nvmlShutdown") &&
                     bind(lib, api->driver_version, "nvmlSystemGetDriverVersion") &&
                     bind(lib, api->device_by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     bind(lib, api->clock, "nvmlDeviceGetClockInfo") &&
                     bind(lib, api->temperature, "nvmlDeviceGetTemperature") &&
                     bind(lib, api->power_mw, "nvmlDeviceGetPowerUsage") &&
                     bind(lib, api->link_generation, "nvmlDeviceGetCurrPcieLinkGeneration") &&
                     bind(lib, api->link_width, "nvmlDeviceGetCurrPcieLinkWidth") &&
                     bind(lib, api->max_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration") &&
                     bind(lib, api->max_link_width, "nvmlDeviceGetMaxPcieLinkWidth");
  if (!bound || api->init() != NVML_SUCCESS) {
    dlclose(lib);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(std::move(api)));
}

Nvml::Nvml(std::unique_ptr<Api> api) : api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(api_->library);
}

std::optional<std::string> Nvml::driver_version() const {
  std::array<char, 96> text{};
  if (api_->driver_version(text.data(), text.size()) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return std::string(text.data());
}

std::optional<PciLink> Nvml::pci_link(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  std::array<unsigned int, 4> v{};
  if (device == nullptr || api_->link_generation(device, &v[0]) != NVML_SUCCESS ||
      api_->link_width(device, &v[1]) != NVML_SUCCESS ||
      api_->max_link_generation(device, &v[2]) != NVML_SUCCESS ||
      api_->max_link_width(device, &v[3]) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return PciLink{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]),
                 static_cast<int>(v[3])};
}

std::optional<GpuTelemetry> Nvml::telemetry(const std::string& pci_bus_id) const {
  nvmlDevice_t device = api_->device(pci_bus_id);
  unsigned int sm = 0;
  unsigned int memory = 0;
  unsigned int temperature = 0;
  unsigned int power_mw = 0;
  if (device == nullptr || api_->clock(device, NVML_CLOCK_SM, &sm) != NVML_SUCCESS ||
      api_->clock(device, NVML_CLOCK_MEM, &memory) != NVML_SUCCESS ||
      api_->temperature(device, NVML_TEMPERATURE_GPU, &temperature) != NVML_SUCCESS ||
      api_->power_mw(device, &power_mw) != NVML_SUCCESS) {
    return std::nullopt;
  }
  return GpuTelemetry{static_cast<int>(sm), static_cast<int>(memory), static_cast<int>(temperature),
                      power_mw / 1000.0};
}

std::string format_telemetry(const GpuTelemetry& t) {
  return fmt::format("{} MHz SM, {} MHz memory, {} C, {:.1f} W", t.sm_clock_mhz, t.memory_clock_mhz,
                     t.temperature_c, t.power_w);
}

} // namespace gpubench

#include "copy_cases.hpp"

#include "driver_api.hpp"
#include "zerocopy_launch.hpp"

#include <cstring>
#include <stdexcept>

namespace gpubench::bench {
namespace {

const char* to_string(CopyApi api) {
  constexpr const char* names[] = {"sync", "async", "zerocopy"};
  return names[static_cast<int>(api)];
}

class HostToDevice : public CopyCase {
public:
  HostToDevice(const HostMemoryKind& memory, CopyApi api) : CopyCase("HtoD", &memory, api) {}
  std::vector<CopyLeg> legs(CopyBuffers& b, CUstream stream, CUstream) const override {
    return {{Place::host(*b.host(memory()).a, memory()), Place::device(*b.device_a), stream,
             "device"}};
  }
};

class DeviceToHost : public CopyCase {
public:
  DeviceToHost(const HostMemoryKind& memory, CopyApi api) : CopyCase("DtoH", &memory, api) {}
  std::vector<CopyLeg> legs(CopyBuffers& b, CUstream stream, CUstream) const override {
    return {{Place::device(*b.device_a), Place::host(*b.host(memory()).a, memory()), stream,
             "host"}};
  }
};

// Counts the read and the write, as saxpy's ceiling does.
class DeviceToDevice : public CopyCase {
public:
  explicit DeviceToDevice(CopyApi api) : CopyCase("DtoD", nullptr, api) {}
  std::vector<CopyLeg> legs(CopyBuffers& b, CUstream stream, CUstream) const override {
    return {{Place::device(*b.device_a), Place::device(*b.device_b), stream, "device"}};
  }
  std::size_t bytes_moved(std::size_t bytes) const override { return 2 * bytes; }
};

// An HtoD and a DtoH of the same size on two streams, released together; both directions count.
// A sync copy blocks its thread, so this exists only in async form.
class Bidirectional : public CopyCase {
public:
  explicit Bidirectional(const HostMemoryKind& memory)
      : CopyCase("bidir", &memory, CopyApi::async) {}
  std::vector<CopyLeg> legs(CopyBuffers& b, CUstream stream,
                            CUstream second_stream) const override {
    HostBuffers& host = b.host(memory());
    return {{Place::host(*host.a, memory()), Place::device(*b.device_a), stream, "device (HtoD)"},
            {Place::device(*b.device_b), Place::host(*host.b, memory()), second_stream, "host"}};
  }
  std::size_t bytes_moved(std::size_t bytes) const override { return 2 * bytes; }
};

// No GPU copy: one host thread's memcpy between two buffers, the kind of work the driver does
// when it stages a pageable copy, measured in the same run so a pageable figure can be read
// against the host it ran on.
class HostToHost : public CopyCase {
public:
  explicit HostToHost(const HostMemoryKind& memory) : CopyCase("HtoH", &memory, CopyApi::sync) {}
  std::vector<CopyLeg> legs(CopyBuffers& b, CUstream stream, CUstream) const override {
    HostBuffers& host = b.host(memory());
    return {{Place::host(*host.a, memory()), Place::host(*host.b, memory()), stream, "host"}};
  }
};

// Far-node memory is measured by its async copies alone: what the wrong socket costs the DMA.
std::vector<std::unique_ptr<CopyCase>> make_cases() {
  std::vector<std::unique_ptr<CopyCase>> cases;
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    if (!memory.far_node) {
      cases.push_back(std::make_unique<HostToDevice>(memory, CopyApi::sync));
    }
    cases.push_back(std::make_unique<HostToDevice>(memory, CopyApi::async));
    if (memory.device_mapped) {
      cases.push_back(std::make_unique<HostToDevice>(memory, CopyApi::zerocopy));
    }
  }
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    if (!memory.far_node) {
      cases.push_back(std::make_unique<DeviceToHost>(memory, CopyApi::sync));
    }
    cases.push_back(std::make_unique<DeviceToHost>(memory, CopyApi::async));
    if (memory.device_mapped) {
      cases.push_back(std::make_unique<DeviceToHost>(memory, CopyApi::zerocopy));
    }
  }
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    if (!memory.far_node) {
      cases.push_back(std::make_unique<Bidirectional>(memory));
    }
  }
  cases.push_back(std::make_unique<DeviceToDevice>(CopyApi::sync));
  cases.push_back(std::make_unique<DeviceToDevice>(CopyApi::async));
  for (const HostMemoryKind& memory : host_memory_kinds()) {
    if (!memory.page_locked) {
      cases.push_back(std::make_unique<HostToHost>(memory));
    }
  }
  return cases;
}

void copy_sync(const CopyLeg& leg, std::size_t bytes) {
  const Place& src = leg.source;
  const Place& dst = leg.destination;
  if (!src.on_device() && dst.on_device()) {
    GPUBENCH_CU(cuMemcpyHtoD, dst.device_ptr(), src.host_data(), bytes);
  } else if (src.on_device() && !dst.on_device()) {
    GPUBENCH_CU(cuMemcpyDtoH, dst.host_data(), src.device_ptr(), bytes);
  } else if (src.on_device()) {
    GPUBENCH_CU(cuMemcpyDtoD, dst.device_ptr(), src.device_ptr(), bytes);
    // cuMemcpyDtoD may return before a device-to-device copy finishes (CUDA's documented sync
    // behaviour); the caller's wait is the one a user would see.
    GPUBENCH_CU(cuCtxSynchronize);
  } else {
    std::memcpy(dst.host_data(), src.host_data(), bytes); // one thread, as the driver stages
  }
}

void copy_async(const CopyLeg& leg, std::size_t bytes) {
  const Place& src = leg.source;
  const Place& dst = leg.destination;
  if (!src.on_device() && dst.on_device()) {
    GPUBENCH_CU(cuMemcpyHtoDAsync, dst.device_ptr(), src.host_data(), bytes, leg.stream);
  } else if (src.on_device() && !dst.on_device()) {
    GPUBENCH_CU(cuMemcpyDtoHAsync, dst.host_data(), src.device_ptr(), bytes, leg.stream);
  } else if (src.on_device()) {
    GPUBENCH_CU(cuMemcpyDtoDAsync, dst.device_ptr(), src.device_ptr(), bytes, leg.stream);
  } else {
    throw std::logic_error("a host-to-host copy has no stream-ordered form");
  }
}

} // namespace

std::string CopyCase::name() const {
  return std::string(direction_) + "/" + (memory_ != nullptr ? memory_->name : "device") + "/" +
         to_string(api_);
}

const std::vector<std::unique_ptr<CopyCase>>& copy_cases() {
  static const std::vector<std::unique_ptr<CopyCase>> cases = make_cases();
  return cases;
}

void copy(CopyApi api, const CopyLeg& leg, std::size_t bytes, int sm_count) {
  switch (api) {
  case CopyApi::sync:
    copy_sync(leg, bytes);
    return;
  case CopyApi::async:
    copy_async(leg, bytes);
    return;
  case CopyApi::zerocopy:
    zerocopy_launch(reinterpret_cast<const unsigned char*>(leg.source.mapped_ptr()),
                    reinterpret_cast<unsigned char*>(leg.destination.mapped_ptr()), bytes,
                    sm_count, leg.stream);
    return;
  }
}

} // namespace gpubench::bench

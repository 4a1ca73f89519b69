#include "registry.hpp"

#include "options.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::bench {
namespace {
// An NVTX range named after the benchmark instance, so a run profiled with Nsight Systems reads
// by benchmark. Without a profiler attached NVTX calls return at once.
class NvtxRange {
public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  NvtxRange(NvtxRange&&) = delete;
  NvtxRange& operator=(NvtxRange&&) = delete;
  ~NvtxRange() { nvtxRangePop(); }
};

// A benchmark's name as Google Benchmark makes it from the registration's name, arguments and
// time type, without the time type: name/value, name/arg:value, name/.../device:N.
std::string instance_name(const std::string& name, const std::string& arg_name,
                          std::optional<std::int64_t> value, std::optional<int> device) {
  std::string instance = name;
  if (value) {
    instance += fmt::format("/{}{}{}", arg_name, arg_name.empty() ? "" : ":", *value);
  }
  if (device) {
    instance += fmt::format("/device:{}", *device);
  }
  return instance;
}

} // namespace

Registry::Registry(std::vector<int> devices, std::vector<int> peer_devices, Selection selects,
                   HarnessOptions harness)
    : devices_(std::move(devices)), peer_devices_(std::move(peer_devices)), reachable_(devices_),
      selects_(std::move(selects)), harness_(harness) {
  for (const int device : peer_devices_) {
    if (std::find(reachable_.begin(), reachable_.end(), device) == reachable_.end()) {
      reachable_.push_back(device);
    }
  }
}

void Registry::add(const std::string& name, Body body, const CaseArgs& args) {
  register_case(name, std::move(body), args, true);
}

void Registry::add_across_devices(const std::string& name, Body body, const CaseArgs& args) {
  register_case(name, std::move(body), args, false);
}

void Registry::register_case(const std::string& name, Body body, const CaseArgs& args,
                             bool per_device) {
  const bool device_arg = per_device && devices_.size() > 1;
  const bool has_value = !args.values.empty();
  // Each instance's arguments ({value, device}, {value}, {device} or none), those selected.
  std::vector<std::vector<std::int64_t>> instances;
  const auto consider = [&](std::optional<std::int64_t> value, std::optional<int> device) {
    if (++considered_ > max_benchmarks) {
      throw UsageError(fmt::format("more than the {} benchmarks gpubench registers at once "
                                   "(sizes x devices x cases); name fewer with --device or "
                                   "--sizes",
                                   max_benchmarks));
    }
    if (selects_ && !selects_(instance_name(name, args.name, value, device) + "/manual_time")) {
      return;
    }
    std::vector<std::int64_t> instance;
    if (value) {
      instance.push_back(*value);
    }
    if (device) {
      instance.push_back(*device);
    }
    instances.push_back(std::move(instance));
  };
  if (has_value) {
    for (const std::int64_t value : args.values) {
      if (!device_arg) {
        consider(value, std::nullopt);
        continue;
      }
      for (const int device : devices_) {
        consider(value, device);
      }
    }
  } else if (device_arg) {
    for (const int device : devices_) {
      consider(std::nullopt, device);
    }
  } else {
    consider(std::nullopt, std::nullopt);
  }
  if (instances.empty()) {
    return;
  }
  registered_ += instances.size();

  auto* benchmark = benchmark::RegisterBenchmark(
      name.c_str(), [name, arg_name = args.name, body = std::move(body), device_arg, has_value,
                     reachable = reachable_, options = harness_](benchmark::State& state) {
        const std::optional<std::int64_t> value =
            has_value ? std::optional(state.range(0)) : std::nullopt;
        const std::optional<int> device =
            device_arg ? std::optional(static_cast<int>(state.range(has_value ? 1 : 0)))
                       : std::nullopt;
        const NvtxRange range(instance_name(name, arg_name, value, device));
        guarded(state, [&] {
          Session& session = device ? bench::session(*device) : bench::session();
          std::vector<Session*> sessions;
          for (const int ordinal : reachable) {
            sessions.push_back(&bench::session(ordinal));
          }
          session.bind_host();
          session.make_current();
          Harness harness(state, session, sessions, options);
          body(harness, value.value_or(0));
        });
      });
  // No Unit(): a benchmark's own unit would take the place of --benchmark_time_unit's.
  benchmark->UseManualTime();
  if (has_value && device_arg) {
    benchmark->ArgNames({args.name, "device"});
  } else if (has_value) {
    benchmark->ArgName(args.name);
  } else if (device_arg) {
    benchmark->ArgName("device");
  }
  if (has_value || device_arg) {
    for (const std::vector<std::int64_t>& instance : instances) {
      benchmark->Args(instance);
    }
  }
}

void Registry::note(const std::string& example, const std::string& text) {
  notes_.push_back({example, text});
}

std::vector<FamilyBenchmarks> configure_families(const FlagValues& flags) {
  std::vector<FamilyBenchmarks> configured;
  for (const Family& family : families()) {
    configured.push_back(family.configure(flags));
  }
  return configured;
}

void register_families(Registry& registry, const std::vector<FamilyBenchmarks>& families) {
  for (const FamilyBenchmarks& family : families) {
    family.declare(registry);
  }
}

} // namespace gpubench::bench

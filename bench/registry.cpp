#include "registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <memory>

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
} // namespace

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
  auto* benchmark = benchmark::RegisterBenchmark(
      name.c_str(), [name, arg_name = args.name, body = std::move(body), device_arg,
                     has_value](benchmark::State& state) {
        std::string instance = name;
        if (has_value) {
          instance += fmt::format("/{}{}{}", arg_name, arg_name.empty() ? "" : ":", state.range(0));
        }
        if (device_arg) {
          instance += fmt::format("/device:{}", state.range(has_value ? 1 : 0));
        }
        const NvtxRange range(instance);
        guarded(state, [&] {
          Session& session =
              device_arg ? bench::session(static_cast<int>(state.range(has_value ? 1 : 0)))
                         : bench::session();
          session.make_current();
          Harness harness(state, session);
          body(harness, has_value ? state.range(0) : 0);
        });
      });
  benchmark->UseManualTime()->Unit(benchmark::kMicrosecond);
  if (has_value && device_arg) {
    benchmark->ArgNames({args.name, "device"});
    for (const std::int64_t value : args.values) {
      for (const int device : devices_) {
        benchmark->Args({value, device});
      }
    }
  } else if (has_value) {
    benchmark->ArgName(args.name);
    for (const std::int64_t value : args.values) {
      benchmark->Arg(value);
    }
  } else if (device_arg) {
    benchmark->ArgName("device");
    for (const int device : devices_) {
      benchmark->Arg(device);
    }
  }
}

void Registry::note(const std::string& example, const std::string& text) {
  notes_.push_back({example, text});
}

void register_families(Registry& registry) {
  for (const Family& family : families()) {
    family.declare(registry);
  }
}

} // namespace gpubench::bench

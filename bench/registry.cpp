#include "registry.hpp"

#include <benchmark/benchmark.h>

#include <memory>

namespace gpubench::bench {

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
      name.c_str(), [body = std::move(body), device_arg, has_value](benchmark::State& state) {
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

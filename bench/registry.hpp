#pragma once

#include "family.hpp"
#include "harness.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpubench::bench {

// A benchmark body: measures one case for one argument value (a size, a payload; 0 where the
// case takes none) with the harness it is given.
using Body = std::function<void(Harness& harness, std::int64_t arg)>;

// A case's argument values (sizes, payloads), shown as /value or /name:value (params:256).
struct CaseArgs {
  std::vector<std::int64_t> values; // empty: the case takes no argument
  std::string name;
};

// Where a family's benchmarks are declared. Each add() is one Google Benchmark registration
// whose argument values become its instances, so ten thousand sizes are one registration. A
// case runs on every selected device, as /device:N where there is more than one; names never
// depend on a device being present.
class Registry {
public:
  // The most benchmarks one registry holds (sizes x devices x cases, peer pairs growing with the
  // square of the devices), counted before the filter: listing as many takes a few seconds.
  static constexpr std::size_t max_benchmarks = 500'000;

  // Whether a benchmark named so (as Google Benchmark names it, ".../manual_time") is to be
  // registered: gpubench applies --benchmark_filter itself (NameFilter), never Google Benchmark.
  using Selection = std::function<bool(const std::string& name)>;

  // `devices`: those selected for single-device families; `peer_devices`: those families that
  // span devices draw their pairs from; `harness`: what every benchmark's harness is given.
  Registry(std::vector<int> devices, std::vector<int> peer_devices, Selection selects = {},
           HarnessOptions harness = {});

  // Each throws UsageError past max_benchmarks.
  // A case measured on one device at a time: on each selected device.
  void add(const std::string& name, Body body, const CaseArgs& args = {});
  // A case that picks its devices itself (peer copies): registered once, its harness on the
  // first selected device.
  void add_across_devices(const std::string& name, Body body, const CaseArgs& args = {});

  [[nodiscard]] const std::vector<int>& devices() const noexcept { return devices_; }
  [[nodiscard]] const std::vector<int>& peer_devices() const noexcept { return peer_devices_; }
  // Every device a benchmark may reach (the selected ones, then the other pair ends), in that
  // order: the sessions a run opens, and hands to each body.
  [[nodiscard]] const std::vector<int>& reachable_devices() const noexcept { return reachable_; }

  // Why a family registered nothing here ("peer copies need two GPUs: 1 found"); `example` is
  // a name it would have registered, so the note is shown only where the filter selects it.
  void note(const std::string& example, const std::string& text);

  struct Note {
    std::string example;
    std::string text;
  };
  [[nodiscard]] const std::vector<Note>& notes() const noexcept { return notes_; }

  // The benchmarks (instances: one per argument value and device) registered so far.
  [[nodiscard]] std::size_t registered() const noexcept { return registered_; }

private:
  void register_case(const std::string& name, Body body, const CaseArgs& args, bool per_device);
  std::vector<int> devices_;
  std::vector<int> peer_devices_;
  std::vector<int> reachable_;
  Selection selects_;
  HarnessOptions harness_;
  std::vector<Note> notes_;
  std::size_t registered_ = 0;
  std::size_t considered_ = 0;
};

// Every family's benchmarks with its flags read from `flags`, in the families' order; throws
// UsageError naming a bad value.
[[nodiscard]] std::vector<FamilyBenchmarks> configure_families(const FlagValues& flags);
// Declares each family's benchmarks in `registry`.
void register_families(Registry& registry, const std::vector<FamilyBenchmarks>& families);

} // namespace gpubench::bench

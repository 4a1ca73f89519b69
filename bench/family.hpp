#pragma once

#include "json_context.hpp"

#include <cuda.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench::bench {

class Registry;

// A kernel compiled into the program, by name and host symbol.
struct KernelSymbol {
  std::string name;
  const void* symbol;
};

// A command-line flag a family owns, e.g. "--l2": its default as the flag would spell it, and
// check(), which throws UsageError for a value the family cannot read (a value is read once
// per occurrence, so the first bad one is named).
struct FamilyFlag {
  std::string name;
  std::string default_value;
  std::string help;
  std::function<void(std::string_view value)> check;
};

// The values of the families' flags: as given on the command line, else their defaults.
class FlagValues {
public:
  FlagValues() = default;
  // `given`: each flag named on the command line with its value (the last one given).
  explicit FlagValues(std::map<std::string, std::string, std::less<>> given)
      : given_(std::move(given)) {}
  [[nodiscard]] std::string_view of(const FamilyFlag& flag) const;
  // Whether `flag` was named on the command line (its value is then not the default).
  [[nodiscard]] bool given(const FamilyFlag& flag) const;

private:
  std::map<std::string, std::string, std::less<>> given_;
};

// What a family registers once its flags are read, with the options it read from them.
// `context` adds the family's keys to the JSON context, once the sessions of the registry's
// devices are open.
struct FamilyBenchmarks {
  std::function<void(Registry&)> declare;
  std::function<ContextEntries(const Registry&)> context = {};
};

// The component of a family's benchmark names that carries a case's argument value: the bare
// number where `key` is empty (copy/HtoD/pinned/async/4096), key:number otherwise
// (launch/driver/submit/params:256). `unit`: "bytes" or "elements".
struct Argument {
  std::string key;
  std::string unit;
};

enum class Better { higher, lower };

// A counter that is one of a family's figures: the unit it is read in, the scale from the stored
// value to that unit, and which way is better. `panel`: the plots draw it in panels of its own
// beside each benchmark's figure (the first one it carries), for a second view of the same
// measurement such as its share of a ceiling.
struct Figure {
  std::string counter;
  std::string unit;
  double scale = 1.0;
  Better better = Better::higher;
  bool panel = false;
};

// A benchmark family: what it is, what it needs and what it registers. `grammar`, `argument`,
// `figures` and `flags` are the facts the scripts read its benchmarks by (docs/family-facts.md):
// the figures are the counters its benchmarks write, in order of preference; `argument` is
// nullopt where no case takes one. `kernels` are loaded on every device before any benchmark
// runs (CUDA would load them lazily at their first launch, which behind a StreamGate
// deadlocks). `configure` reads the flags' values into the family's own options, throwing
// UsageError that names a bad one, and returns its benchmarks declared with those options.
struct Family {
  std::string name; // the first component of every benchmark name of the family
  int order = 0;    // families register and list in this order
  std::string grammar;
  std::optional<Argument> argument;
  std::vector<Figure> figures;
  std::vector<KernelSymbol> kernels;
  std::vector<FamilyFlag> flags;
  std::function<FamilyBenchmarks(const FlagValues&)> configure;
};

// Every family linked into the program, in their order.
[[nodiscard]] const std::vector<Family>& families();

// Adds a family to families(); used through GPUBENCH_FAMILY at namespace scope of the family's
// own source file.
struct FamilyRegistrar {
  explicit FamilyRegistrar(Family (*make)());
};

// The kernels of every family and of the harness itself (the stream gate, the SM clock probe),
// each once however many families declare it.
[[nodiscard]] std::vector<KernelSymbol> all_kernels();

// The driver's handle for a runtime kernel's machine code (cudaGetFuncBySymbol): the same code
// <<<>>> launches, so driver and runtime launch paths can be compared on one kernel image.
[[nodiscard]] CUfunction driver_function(const void* symbol);

// The device address of the namespace-scope `__device__` variable `name` in the module that
// holds the runtime kernel `symbol`, as loaded in the current context (cuModuleGetGlobal).
[[nodiscard]] CUdeviceptr kernel_module_global(const void* symbol, const char* name);

} // namespace gpubench::bench

#define GPUBENCH_FAMILY(make)                                                                      \
  [[maybe_unused]] static const ::gpubench::bench::FamilyRegistrar gpubench_family_registrar_{make}

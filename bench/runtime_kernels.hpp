#pragma once

#include <cuda.h>

#include <string>
#include <vector>

namespace gpubench::bench {

// A kernel compiled into the program (the runtime path), by name and host symbol.
struct RuntimeKernel {
  std::string name;
  const void* symbol;
};

[[nodiscard]] const std::vector<RuntimeKernel>& runtime_kernels();

// The driver's handle for a runtime kernel's machine code (cudaGetFuncBySymbol): the same code
// <<<>>> launches, so driver and runtime launch paths can be compared on one kernel image.
[[nodiscard]] CUfunction driver_function(const void* symbol);

} // namespace gpubench::bench

#pragma once

#include <cstddef>
#include <vector>

namespace gpubench::bench {

// Each family registers its benchmarks by name only: names never depend on the device, so
// --benchmark_list_tests works on a machine without a GPU.
void register_saxpy();
void register_launch();
// launch/module/...: loading a kernel, registered by register_launch().
void register_module_loading();
void register_copy(const std::vector<std::size_t>& sizes);

// The copy family's default sweep: 4 B to 1 GiB in powers of 4.
[[nodiscard]] std::vector<std::size_t> default_copy_sizes();

} // namespace gpubench::bench

#include "failures.hpp"

#include <atomic>

namespace gpubench::bench {
namespace {
std::atomic<int> g_failures{0};
} // namespace

void fail(benchmark::State& state, const std::string& why) {
  g_failures.fetch_add(1, std::memory_order_relaxed);
  state.SkipWithError(why.c_str());
}

void skip(benchmark::State& state, const std::string& why) {
  state.SkipWithError(("skipped: " + why).c_str());
}

int failure_count() noexcept { return g_failures.load(std::memory_order_relaxed); }

} // namespace gpubench::bench

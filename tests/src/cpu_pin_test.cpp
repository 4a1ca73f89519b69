#include "cpu_pin.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

int allowed_cpus() {
  cpu_set_t set;
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return CPU_COUNT(&set);
}

TEST(ScopedCpuPin, HoldsTheThreadOnOneCpuAndGivesTheRestBack) {
  const int before = allowed_cpus();
  {
    const ScopedCpuPin pin(true);
    ASSERT_GE(pin.cpu(), 0);
    EXPECT_EQ(allowed_cpus(), 1);
    EXPECT_EQ(sched_getcpu(), pin.cpu());
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(ScopedCpuPin, DisabledLeavesTheThreadAlone) {
  const int before = allowed_cpus();
  const ScopedCpuPin pin(false);
  EXPECT_EQ(pin.cpu(), -1);
  EXPECT_EQ(allowed_cpus(), before);
}

} // namespace
} // namespace gpubench

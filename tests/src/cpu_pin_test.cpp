#include "cpu_pin.hpp"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

int allowed_cpus() {
  cpu_set_t set;
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return CPU_COUNT(&set);
}

TEST(QuietCpu, IsTheHighestNumberedCpuTheThreadMayUse) {
  const int cpu = quiet_cpu();
  ASSERT_GE(cpu, 0);
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_TRUE(CPU_ISSET(cpu, &set));
  for (int above = cpu + 1; above < CPU_SETSIZE; ++above) {
    EXPECT_FALSE(CPU_ISSET(above, &set)) << above;
  }
}

TEST(ScopedCpuPin, HoldsTheThreadOnItsCpuAndGivesTheRestBack) {
  const int before = allowed_cpus();
  {
    const ScopedCpuPin pin(quiet_cpu());
    ASSERT_EQ(pin.cpu(), quiet_cpu());
    EXPECT_EQ(allowed_cpus(), 1);
    EXPECT_EQ(sched_getcpu(), pin.cpu());
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(ScopedCpuPin, NoCpuLeavesTheThreadAlone) {
  const int before = allowed_cpus();
  const ScopedCpuPin pin(-1);
  EXPECT_EQ(pin.cpu(), -1);
  EXPECT_EQ(allowed_cpus(), before);
}

} // namespace
} // namespace gpubench

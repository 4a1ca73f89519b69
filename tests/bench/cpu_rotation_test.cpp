#include "cpu_rotation.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <cstddef>
#include <vector>

namespace gpubench::bench {
namespace {

cpu_set_t allowed_now() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return set;
}

std::vector<int> cpus_of(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      cpus.push_back(cpu);
    }
  }
  return cpus;
}

TEST(CpuRotation, EachStepLandsOnItsCpuAndLeavesTheThreadFreeToRunOnAll) {
  const cpu_set_t before = allowed_now();
  const std::vector<int> cpus = cpus_of(before);
  if (cpus.size() < 2) {
    GTEST_SKIP() << "this thread may run on one CPU: there is nothing to rotate";
  }
  {
    const CpuRotation rotation;
    ASSERT_EQ(rotation.cpus(), cpus.size());
    for (std::size_t step = 0; step < 2 * cpus.size(); ++step) {
      const int expected = cpus[step * cpu_rotation_stride % cpus.size()];
      // The move migrates the thread before it returns; the scheduler may move it on at once
      // under load, so the CPU must be met in one of a few tries, and the set must be whole.
      bool landed = false;
      for (int attempt = 0; attempt < 20 && !landed; ++attempt) {
        rotation.move_to(step * cpu_rotation_stride);
        landed = sched_getcpu() == expected;
      }
      EXPECT_TRUE(landed) << "step " << step << ": never on CPU " << expected;
      const cpu_set_t now = allowed_now();
      EXPECT_TRUE(CPU_EQUAL(&now, &before)) << "step " << step;
    }
  }
  const cpu_set_t after = allowed_now();
  EXPECT_TRUE(CPU_EQUAL(&after, &before));
}

TEST(CpuRotation, AThreadHeldToOneCpuStaysThere) {
  const cpu_set_t before = allowed_now();
  cpu_set_t one;
  CPU_ZERO(&one);
  const int cpu = cpus_of(before).front();
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  {
    const CpuRotation rotation;
    EXPECT_EQ(rotation.cpus(), 1U);
    rotation.move_to(5);
    EXPECT_EQ(sched_getcpu(), cpu);
    const cpu_set_t now = allowed_now();
    EXPECT_TRUE(CPU_EQUAL(&now, &one));
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(before), &before), 0);
}

} // namespace
} // namespace gpubench::bench

// The latency family: every chase follows its whole cycle and stands where its ring says after
// the timed launches (the benchmark's own verification), its figures order the memory levels as
// they are (an L1 hit before the L2, the L2 before PCIe) at an SM clock's ratio of cycles to
// nanoseconds, and on the GPU itself a chain written wrong or a chase counted one load short
// fails the checks.
#include "chase_chain.hpp"
#include "driver_api.hpp"
#include "gpu_test.hpp"
#include "memory.hpp"
#include "session.hpp"
#include "timed_chase.hpp"

#include <map>
#include <optional>
#include <vector>

namespace gpubench::testing {
namespace {

TEST(LatencyChase, EveryDeviceAndHostChaseFollowsItsCycle) {
  GPUBENCH_REQUIRE_GPU();
  // gpu_test.cpp's run: --latency-sizes=4K,1M,64M and --latency-link-sizes=4K,1M.
  const auto outcomes = run_benchmarks("^latency/chase/(device|host_pinned)/");
  expect_all_verified(outcomes, 5, "ns_per_load");
  std::map<std::string, double> ns;
  for (const BenchmarkOutcome& outcome : outcomes) {
    if (outcome.failed) {
      continue;
    }
    const double ns_per_load = outcome.counters.at("ns_per_load");
    const double ghz = outcome.counters.at("cycles_per_load") / ns_per_load;
    EXPECT_GT(ghz, 0.3) << outcome.name;
    EXPECT_LT(ghz, 3.5) << outcome.name;
    ns[outcome.name] = ns_per_load;
  }
  // 4 KiB sits in any L1, 1 MiB in no L1 but in any L2.
  const std::string device = "latency/chase/device/";
  const std::string host = "latency/chase/host_pinned/";
  ASSERT_TRUE(ns.contains(device + "4096/manual_time") &&
              ns.contains(device + "1048576/manual_time") &&
              ns.contains(host + "1048576/manual_time"));
  EXPECT_LT(ns[device + "4096/manual_time"], ns[device + "1048576/manual_time"]);
  EXPECT_LT(ns[device + "1048576/manual_time"], ns[host + "1048576/manual_time"]);
}

TEST(LatencyChase, EveryPeerChaseFollowsItsCycle) {
  GPUBENCH_REQUIRE_GPU();
  const auto outcomes = run_benchmarks("^latency/chase/peer/");
  const int gpus = device_count();
  if (gpus < 2) {
    EXPECT_TRUE(outcomes.empty());
    GTEST_SKIP() << "peer chases need two GPUs: " << gpus << " found";
  }
  // Every ordered pair x 2 sizes.
  expect_all_verified(outcomes, static_cast<std::size_t>(gpus * (gpus - 1)) * 2U, "ns_per_load");
}

class ChaseOnGpu : public ::testing::Test {
protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    session_.emplace(0, bench::all_kernels());
    session_->make_current();
    memory_.emplace(ring_.slots() * chase_slot_bytes);
  }
  void TearDown() override {
    memory_.reset();
    session_.reset();
  }

  [[nodiscard]] std::uint64_t base() const { return memory_->ptr(); }

  const ChaseRing ring_{40'000, 17};
  std::optional<bench::Session> session_;
  std::optional<DeviceBuffer> memory_;
};

TEST_F(ChaseOnGpu, ABrokenChainFailsTheFullCycle) {
  bench::write_chain(ring_, base(), *session_);
  EXPECT_EQ(bench::chase_full_cycle(ring_, base(), *session_), std::nullopt);

  std::vector<std::uint32_t> successor = ring_.successors();
  std::swap(successor[100], successor[30'000]); // two cycles
  bench::write_successors(successor, base(), *session_);
  EXPECT_NE(bench::chase_full_cycle(ring_, base(), *session_), std::nullopt);

  successor = ring_.successors();
  successor[7] = 40'000; // one slot past the memory: the chase stops there, no fault
  bench::write_successors(successor, base(), *session_);
  const auto why = bench::chase_full_cycle(ring_, base(), *session_);
  ASSERT_NE(why, std::nullopt);
  EXPECT_NE(why->find("not a slot of the chased memory"), std::string::npos) << *why;
}

// Two rings of 64 MiB written in turn into the same memory, as the latency family writes one
// size after another: each chain's successors are uploaded into memory that last held the other
// ring's, so a chain linked before its upload has landed breaks the full cycle (the failures in
// results/h200/chase_upload/before.txt, at 32 and 64 MiB).
TEST(ChaseChain, ChainsWrittenInTurnEachFollowTheirWholeCycle) {
  GPUBENCH_REQUIRE_GPU();
  bench::Session session(0, bench::all_kernels());
  session.make_current();
  constexpr std::size_t slots = (std::size_t{64} << 20) / chase_slot_bytes;
  const ChaseRing rings[] = {ChaseRing(slots, 1), ChaseRing(slots, 2)};
  const DeviceBuffer memory(slots * chase_slot_bytes);
  for (int round = 0; round < 24; ++round) {
    const ChaseRing& ring = rings[round % 2];
    bench::write_chain(ring, memory.ptr(), session);
    EXPECT_EQ(bench::chase_full_cycle(ring, memory.ptr(), session), std::nullopt)
        << "round " << round;
  }
}

TEST_F(ChaseOnGpu, TheTimedChaseStandsWhereItsLoadsLead) {
  bench::write_chain(ring_, base(), *session_);
  const bench::TimedChase& timed = session_->state<bench::TimedChase>();
  timed.start_at(slot_address(base(), ring_.slot_after(0)));
  for (int launch = 0; launch < 3; ++launch) {
    timed.launch(ring_.slots(), 1000, session_->stream());
  }
  GPUBENCH_CU(cuStreamSynchronize, session_->stream());
  const bench::TimedChase::Readings readings = timed.read();
  EXPECT_EQ(readings.launches, 3U);
  ASSERT_EQ(readings.timings.size(), 3U);
  const std::uint64_t loads = 3 * (ring_.slots() + 1000);
  EXPECT_EQ(check_chase_position(ring_, base(), loads, readings.position), std::nullopt);
  // A chase one load short of what was counted.
  EXPECT_NE(check_chase_position(ring_, base(), loads + 1, readings.position), std::nullopt);
  for (const ChaseTiming& timing : readings.timings) {
    EXPECT_GT(timing.cycles, 1000);
    EXPECT_GT(timing.ns, 0U);
  }
}

} // namespace
} // namespace gpubench::testing

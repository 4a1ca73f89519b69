// HostThreadTeam: the launch family's host threads that run a batch together (launch/threads/).
#include "host_thread_team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpubench::bench {
namespace {

TEST(HostThreadTeam, EveryThreadDoesItsShareOncePerBatch) {
  constexpr std::size_t threads = 4;
  std::vector<std::atomic<int>> shares(threads);
  std::atomic<int> entered{0};
  HostThreadTeam team(
      threads, [&](std::size_t t) { shares[t].fetch_add(1); },
      [&](std::size_t) { entered.fetch_add(1); });
  EXPECT_EQ(team.threads(), threads);
  for (int batch = 1; batch <= 50; ++batch) {
    if (batch % 2 == 0) {
      team.arm(); // armed ahead, as the harness's prepare step does; run() then only opens
    }
    team.run();
    for (std::size_t t = 0; t < threads; ++t) {
      // run() returns only once every thread has finished its share
      ASSERT_EQ(shares[t].load(), batch) << "thread " << t;
    }
  }
  EXPECT_EQ(team.batches(), 50U);
  EXPECT_EQ(entered.load(), static_cast<int>(threads - 1)); // each worker, once
}

TEST(HostThreadTeam, ThreadZeroIsTheCaller) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::thread::id zero;
  HostThreadTeam team(3, [&](std::size_t t) {
    const std::lock_guard lock(mutex);
    ids.insert(std::this_thread::get_id());
    if (t == 0) {
      zero = std::this_thread::get_id();
    }
  });
  team.run();
  EXPECT_EQ(zero, std::this_thread::get_id());
  EXPECT_EQ(ids.size(), 3U);
}

TEST(HostThreadTeam, OneThreadRunsOnTheCallerAlone) {
  int shares = 0;
  HostThreadTeam team(1, [&](std::size_t t) {
    EXPECT_EQ(t, 0U);
    ++shares;
  });
  team.run();
  team.run();
  EXPECT_EQ(shares, 2);
}

TEST(HostThreadTeam, AWorkersFailureIsThrownOnceAllHaveFinished) {
  std::atomic<int> finished{0};
  std::atomic<bool> fail{true};
  HostThreadTeam team(4, [&](std::size_t t) {
    if (t == 2 && fail.load()) {
      throw std::runtime_error("thread 2 failed");
    }
    finished.fetch_add(1);
  });
  EXPECT_THROW(team.run(), std::runtime_error);
  EXPECT_EQ(finished.load(), 3);
  fail.store(false);
  team.run(); // the failure is reported once; the team goes on
  EXPECT_EQ(finished.load(), 7);
}

TEST(HostThreadTeam, AWorkerThatCannotEnterFailsEveryBatch) {
  HostThreadTeam team(
      2, [](std::size_t) {},
      [](std::size_t) { throw std::runtime_error("no context for this thread"); });
  EXPECT_THROW(team.run(), std::runtime_error);
  EXPECT_THROW(team.run(), std::runtime_error);
}

TEST(HostThreadTeam, ATeamArmedButNeverRunStopsWhenDestroyed) {
  std::atomic<int> shares{0};
  {
    HostThreadTeam team(4, [&](std::size_t) { shares.fetch_add(1); });
    team.arm();
  }
  EXPECT_EQ(shares.load(), 0);
}

} // namespace
} // namespace gpubench::bench

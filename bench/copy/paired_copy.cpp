// copy/<HtoD|DtoH>/<pageable|pinned>/sync_paired/<bytes>: what a synchronous copy costs, measured
// so that the host's drift between processes cancels. copy/.../sync times the blocking call on
// the host clock, and the host's speed moves that figure by 4-13% from one process to the next,
// more than the CI gate's runs can resolve a 10% change through. Here each round times, on one
// thread and in an order rotated each round, a batch of the copies and the two host references
// (host_reference.hpp: 64 getppid calls, and 65,536 dependent multiply-adds); the figure,
// refs_per_copy, is the median over the rounds of one copy's time over the geometric mean of the
// references' times in its round. Timed so, on three H100s, a 1 MiB copy from pageable memory
// spread 1.7-2.6% between processes and 4.5-6.4% alone, where neither reference alone kept it
// as close (tools/probes/duet_kinds_probe.cu, results/h100/duet_kinds/).
#include "paired_copy.hpp"

#include "copy_buffers.hpp"
#include "copy_cases.hpp"
#include "cpu_rotation.hpp"
#include "cuda_error.hpp"
#include "harness.hpp"
#include "host_clock.hpp"
#include "host_reference.hpp"
#include "median.hpp"
#include "prepared_legs.hpp"
#include "registry.hpp"
#include "session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::bench {
namespace {

// Copies per batch: enough of a small copy that a batch lasts about as long as the spin
// reference (tens of microseconds), one of 4 MiB or more.
std::size_t paired_batch_copies(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{4} << 20) / bytes, 1, 16);
}

// Rounds per timed batch of the harness, which runs batches until its loop has lasted 0.05 s.
constexpr std::size_t rounds_per_harness_batch = 24;
// Rounds per block. Each block starts on another of the thread's CPUs (cpu_rotation.hpp) with
// one round left unrecorded, so a process's rounds meet several CPUs' levels, as launch/paired's
// blocks do: a process that stays on the CPU it landed on carries that CPU's system-call cost
// in every round, 5.6 us for 64 getppid calls on some CPUs of an H100 host and 6.6-11.6 us on
// others (results/h100/referenced_figures/). 100-200 rounds of a benchmark visit 12-25 blocks.
constexpr std::size_t rounds_per_block = 8;

// The copy's batch and each reference, in the order of their slots within a round.
constexpr std::array<HostReference::Kind, 2> reference_kinds{HostReference::Kind::syscall,
                                                             HostReference::Kind::spin};
constexpr std::size_t slots = 1 + reference_kinds.size();

class PairedCopyRounds {
public:
  PairedCopyRounds(const CopyCase& c, const CopyLeg& leg, std::size_t bytes)
      : case_(c), leg_(leg), bytes_(bytes),
        copies_(paired_batch_copies(bytes)), references_{HostReference(reference_kinds[0]),
                                                         HostReference(reference_kinds[1])} {}

  // One recorded round; a block's first is preceded by the move to its CPU and a round there
  // that is not recorded.
  void run() {
    if (rounds_ % rounds_per_block == 0) {
      cpus_.move_to(rounds_ / rounds_per_block * cpu_rotation_stride);
      static_cast<void>(round());
    }
    const std::array<double, slots> seconds = round();
    ++rounds_;
    const double copy_seconds = seconds[0] / static_cast<double>(copies_);
    copy_.push_back(copy_seconds);
    syscall_.push_back(seconds[1]);
    spin_.push_back(seconds[2]);
    over_.push_back(copy_seconds / std::sqrt(seconds[1] * seconds[2]));
  }

  // Rounds recorded, and copies made in every round run.
  [[nodiscard]] std::size_t rounds() const noexcept { return rounds_; }
  [[nodiscard]] std::size_t copies_per_batch() const noexcept { return copies_; }
  [[nodiscard]] std::size_t copies() const noexcept { return rounds_run_ * copies_; }

  // refs_per_copy, the figure; copy_us, one copy's median time alone; each reference's median
  // time (host_syscall_us, host_spin_us); host_referenced, which tells the toolkit that the
  // figure is a cost over host work timed in the same rounds.
  void report(benchmark::State& state) const {
    state.counters["refs_per_copy"] = median(over_);
    state.counters["copy_us"] = median(copy_) * 1e6;
    state.counters[fmt::format("{}_us", HostReference::name_of(reference_kinds[0]))] =
        median(syscall_) * 1e6;
    state.counters[fmt::format("{}_us", HostReference::name_of(reference_kinds[1]))] =
        median(spin_) * 1e6;
    state.counters["host_referenced"] = 1.0;
    state.counters["rounds"] = static_cast<double>(rounds_);
    // Each block ran one round more than it recorded.
    state.counters["blocks"] = static_cast<double>(rounds_run_ - rounds_);
    state.counters["copies_per_batch"] = static_cast<double>(copies_);
  }

private:
  // Each slot once, starting from one slot further on than the round before, so neither the
  // copies nor a reference always follows the same slot.
  std::array<double, slots> round() {
    std::array<double, slots> seconds{};
    const std::size_t first = rounds_run_++ % slots;
    for (std::size_t k = 0; k < slots; ++k) {
      const std::size_t slot = (first + k) % slots;
      seconds[slot] = slot_seconds(slot);
    }
    return seconds;
  }

  // Slot 0 times the batch of copies, slot 1 + k the reference k.
  double slot_seconds(std::size_t slot) {
    if (slot > 0) {
      return host_seconds([&] { references_[slot - 1].run(); });
    }
    return host_seconds([&] {
      for (std::size_t i = 0; i < copies_; ++i) {
        copy(case_.api(), leg_, bytes_, 0);
      }
    });
  }

  const CopyCase& case_;
  const CopyLeg& leg_;
  std::size_t bytes_;
  std::size_t copies_;
  std::array<HostReference, reference_kinds.size()> references_;
  CpuRotation cpus_;
  std::size_t rounds_ = 0;     // recorded
  std::size_t rounds_run_ = 0; // recorded or not
  std::vector<double> copy_, syscall_, spin_, over_;
};

void measure_paired_copy(const CopyCase& c, Harness& h, std::size_t bytes) {
  auto& buffers = h.session().state<CopyBuffers>();
  const std::vector<CopyLeg> legs = prepared_legs(c, h.session(), buffers, bytes);
  if (legs.size() != 1) {
    throw std::logic_error("a paired copy case makes one copy per operation");
  }
  const CopyLeg& leg = legs.front();

  PairedCopyRounds rounds(c, leg, bytes);
  // Each copy blocks until it is done, so the harness waits on nothing more; its real_time is
  // the time per round.
  static_cast<void>(
      h.exec(HostClock{.ops = rounds_per_harness_batch, .wait = HostClock::Wait::none},
             [&] { rounds.run(); }));
  if (rounds.rounds() != h.ops_performed()) {
    throw std::logic_error("the paired copy rounds recorded are not the rounds the harness ran");
  }

  GPUBENCH_CU(cuCtxSynchronize);
  Harness::verify(leg.destination.check(buffers, bytes, leg.name));
  rounds.report(h.state());
  h.state().counters["copies"] = static_cast<double>(rounds.copies());
}

// The synchronous cases of the two directions between host and device, from pageable and
// pinned memory.
bool paired(const CopyCase& c) {
  if (c.api() != CopyApi::sync) {
    return false;
  }
  const std::string name = c.name();
  for (const std::string_view prefix :
       {"HtoD/pageable/", "HtoD/pinned/", "DtoH/pageable/", "DtoH/pinned/"}) {
    if (name.starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

} // namespace

void register_paired_copies(Registry& registry, const std::vector<std::int64_t>& sizes) {
  for (const auto& c : copy_cases()) {
    if (!paired(*c)) {
      continue;
    }
    registry.add(fmt::format("copy/{}_paired", c->name()),
                 [&c = *c](Harness& h, std::int64_t bytes) {
                   measure_paired_copy(c, h, static_cast<std::size_t>(bytes));
                 },
                 {sizes, ""});
  }
}

} // namespace gpubench::bench

#pragma once

#include <bitset>
#include <cstddef>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace gpubench {

// A --benchmark_filter: Google Benchmark's syntax (a POSIX extended regular expression searched
// for in each benchmark's name; "" and "all" select every name; a leading '-' selects the names
// the rest does not), matched by a bounded engine instead of std::regex. std::regex recurses
// once per character when it compiles (a long filter overflows the stack) and backtracks when it
// matches (`(.*)*x` or `.*.*.*x` never return). Here a filter becomes a Thompson automaton of at
// most `max_states` states, and a name of n bytes is matched in at most n * max_states steps,
// whatever the filter's shape. Supported: literals, `.`, bracket expressions ([a-z], [^/],
// [[:digit:]]), `^`, `$`, groups, `|`, and `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` (m, n <= 255)
// on anything, nested or not; `\` makes the character after it literal. The states a filter
// visits over all the names it is given are bounded too (`max_steps`): an ordinary filter visits
// a few million over the 74 000 names of 2000 sizes, one whose every byte visits thousands of
// states (`(.?){255}` four times) billions, minutes of matching.
class NameFilter {
public:
  static constexpr std::size_t max_chars = 1024;
  static constexpr std::size_t max_states = 4096;
  static constexpr int max_repeat = 255; // RE_DUP_MAX, as POSIX and std::regex bound {m,n}
  static constexpr std::size_t default_max_steps = 250'000'000;

  // Throws std::invalid_argument with the reason a filter is refused, in a few words.
  explicit NameFilter(std::string_view filter, std::size_t max_steps = default_max_steps);

  // Throws std::length_error, in a few words, once the names given so far have made the
  // automaton visit more than `max_steps` states.
  [[nodiscard]] bool selects(std::string_view name) const;

  enum class Kind : unsigned char { bytes, split, line_begin, line_end, match };
  struct State {
    Kind kind = Kind::match;
    int next = -1;
    int alt = -1; // split: the second way on
    std::bitset<256> bytes;
  };

private:
  [[nodiscard]] bool search(std::string_view name) const;
  bool every_name_ = false;
  bool negated_ = false;
  std::vector<State> states_;
  int start_ = -1;
  std::size_t max_steps_;
  mutable std::size_t steps_ = 0;
};

} // namespace gpubench

#include "name_filter.hpp"
#include "printable.hpp"

#include <gtest/gtest.h>

#include <functional>

#include <random>
#include <stdexcept>
#include <regex>
#include <string>
#include <vector>

namespace gpubench {
namespace {

TEST(NameFilter, GoogleBenchmarksForms) {
  EXPECT_TRUE(NameFilter("").selects("anything"));
  EXPECT_TRUE(NameFilter("all").selects("anything"));
  EXPECT_TRUE(NameFilter("saxpy").selects("copy/saxpy/1"));
  EXPECT_FALSE(NameFilter("-saxpy").selects("copy/saxpy/1"));
  EXPECT_TRUE(NameFilter("-saxpy").selects("copy/HtoD/1"));
  EXPECT_TRUE(NameFilter("^copy/[^/]+/pinned/(a|s)sync/4096/")
                  .selects("copy/HtoD/pinned/async/4096/manual_time"));
  EXPECT_FALSE(NameFilter("^copy/[^/]+/pinned/(a|s)sync/4096/")
                   .selects("copy/HtoD/pinned/async/40960/manual_time"));
  EXPECT_TRUE(NameFilter("[[:digit:]]{4}$").selects("a/1024"));
  EXPECT_FALSE(NameFilter("[[:digit:]]{5}$").selects("a/1024"));
  EXPECT_TRUE(NameFilter("a\\.b").selects("a.b"));
  EXPECT_FALSE(NameFilter("a\\.b").selects("axb"));
}

// A filter as gpubench-tools compare --changed-filter writes it (name_filter.selecting): shared leading
// components once, every character but letters, digits and '_' escaped, each name whole.
TEST(NameFilter, SelectsTheNamesComparePyNames) {
  const NameFilter filter(
      "^(copy/HtoD/(pinned/async/1048576|pageable/sync/64)|launch/graph/submit/params\\:0)(/|$)");
  EXPECT_TRUE(filter.selects("copy/HtoD/pinned/async/1048576/manual_time"));
  EXPECT_TRUE(filter.selects("copy/HtoD/pageable/sync/64/real_time"));
  EXPECT_TRUE(filter.selects("launch/graph/submit/params:0/device:1"));
  EXPECT_TRUE(filter.selects("launch/graph/submit/params:0"));
  EXPECT_FALSE(filter.selects("copy/HtoD/pinned/async/10485760/manual_time"));
  EXPECT_FALSE(filter.selects("launch/graph/submit/params:01"));
  EXPECT_FALSE(filter.selects("copy/DtoH/pinned/async/1048576/manual_time"));
}

TEST(NameFilter, RefusedWithTheReason) {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"(", "unmatched '('"},
      {")", "unmatched ')'"},
      {"[a", "unmatched '['"},
      {"\\", "escaping nothing"},
      {"\\d", "not an escape"},
      {"*a", "repeats nothing"},
      {"a{2,1}", "at least more"},
      {"a{256}", "more than 255"},
      {"a{x}", "{m}, {m,} or {m,n}"},
      {"[z-a]", "runs backwards"},
      {"[[:nope:]]", "no character class"},
      {"[[=a=]]", "not supported"},
      {"((a{255}){255})", "more than 4096 states"},
      {std::string(1025, 'a'), "more than the 1024"},
  };
  for (const auto& [filter, reason] : bad) {
    try {
      static_cast<void>(NameFilter(filter));
      ADD_FAILURE() << filter << " was taken";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos)
          << filter << ": " << error.what();
    }
  }
}

// libstdc++'s own std::regex backtracks without end on some generated shapes; its automaton
// executor (an extension) answers the same question in bounded time.
#ifdef __GLIBCXX__
constexpr auto reference_flags = std::regex::extended | std::regex_constants::__polynomial;
#else
constexpr auto reference_flags = std::regex::extended;
#endif

// Generated filters over a small alphabet, against std::regex: the same names selected.
TEST(NameFilter, AgreesWithStdRegex) {
  std::mt19937 random(27);
  const auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
  const std::string atoms = "ab/.";
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) {
    std::string name;
    for (int c = below(9); c > 0; --c) {
      name += "ab/1"[below(4)];
    }
    names.push_back(name);
  }
  const std::vector<std::string> suffixes{"", "*", "+", "?", "{2}", "{1,}", "{0,2}"};
  int compared = 0;
  for (int i = 0; i < 400; ++i) {
    // A random shape: atoms, groups, alternation, anchors, brackets and quantifiers.
    std::string filter;
    std::function<void(int)> grow = [&](int depth) {
      for (int parts = 1 + below(3); parts > 0; --parts) {
        const int kind = below(depth > 2 ? 4 : 7);
        if (kind < 3) {
          filter += atoms[static_cast<std::size_t>(below(4))];
        } else if (kind == 3) {
          filter += below(2) == 0 ? "[ab]" : "[^/]";
        } else if (kind == 4) {
          filter += below(2) == 0 ? "^" : "$";
          continue;
        } else {
          filter += '(';
          grow(depth + 1);
          if (below(2) == 0) {
            filter += '|';
            grow(depth + 1);
          }
          filter += ')';
        }
        filter += suffixes[static_cast<std::size_t>(below(7))];
      }
    };
    grow(0);
    std::regex reference;
    try {
      reference = std::regex(filter, reference_flags);
    } catch (const std::regex_error&) {
      continue;
    }
    const NameFilter ours(filter);
    for (const std::string& name : names) {
      EXPECT_EQ(ours.selects(name), std::regex_search(name, reference))
          << "filter '" << filter << "', name '" << name << "'";
    }
    ++compared;
  }
  EXPECT_GT(compared, 300);
}

TEST(Printable, EscapesWhatBreaksALine) {
  EXPECT_EQ(printable("plain /path 1K..4K"), "plain /path 1K..4K");
  EXPECT_EQ(printable("a\nb\rc\td\x1b[31m\x7f"), "a\\x0ab\\x0dc\\x09d\\x1b[31m\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(printable("\xc2\x85|\xe2\x80\xa8"), "\\xc2\\x85|\\xe2\\x80\\xa8"); // NEL, U+2028
  EXPECT_EQ(printable("\xff\xc3(\xed\xa0\x80\xc0\xaf"),
            "\\xff\\xc3(\\xed\\xa0\\x80\\xc0\\xaf"); // invalid, surrogate, overlong
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(static_cast<std::size_t>(random() % 40), '\0');
    for (char& c : bytes) {
      c = static_cast<char>(random() % 256);
    }
    const std::string once = printable(bytes);
    EXPECT_EQ(printable(once), once);
    EXPECT_EQ(once.find_first_of(std::string("\n\r\x1b\0", 4)), std::string::npos);
  }
}

TEST(NameFilter, StatesVisitedOverEveryNameAreBounded) {
  // `^saxpy/` visits a few states per name; `(.?){255}z` hundreds per byte.
  const NameFilter cheap("^saxpy/", 10'000);
  const NameFilter costly("(.?){255}z", 10'000);
  const std::string name = "copy/HtoD/pinned/async/1048576/manual_time";
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(cheap.selects(name));
  }
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i) {
          static_cast<void>(costly.selects(name));
        }
      },
      std::length_error);
  EXPECT_TRUE(NameFilter("(.?){255}z").selects("copy/HtoD/pageable/zerocopy")) << "unbounded";
}

} // namespace
} // namespace gpubench

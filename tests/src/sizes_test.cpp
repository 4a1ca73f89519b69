#include "sizes.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

TEST(ParseSize, AcceptsBinarySuffixes) {
  EXPECT_EQ(parse_size("4"), 4U);
  EXPECT_EQ(parse_size("4K"), 4096U);
  EXPECT_EQ(parse_size("1M"), 1U << 20U);
  EXPECT_EQ(parse_size("256MiB"), 256U << 20U);
  EXPECT_EQ(parse_size("1G"), 1U << 30U);
  EXPECT_EQ(parse_size("2GB"), std::size_t{2} << 30U);
  EXPECT_EQ(parse_size(" 8k "), 8192U);
}

TEST(ParseSize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "0", "-4K", "abc", "4T", "K", "1.5M", "99999999999999999999", "4iB",
                          "4iiB", "4KiiB"}) {
    EXPECT_THROW(static_cast<void>(parse_size(bad)), std::invalid_argument) << bad;
  }
}

TEST(ParseSizeList, ListsAndRanges) {
  EXPECT_EQ(parse_size_list("4K,1M,256M"),
            (std::vector<std::size_t>{4096, 1U << 20U, 256U << 20U}));
  EXPECT_EQ(parse_size_list("1K..8K:x2"), (std::vector<std::size_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_size_list("1K..8K"), (std::vector<std::size_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_size_list("4..64:x4,16"), (std::vector<std::size_t>{4, 16, 64}));
  EXPECT_EQ(parse_size_list("1K..1G:x2").size(), 21U);
}

TEST(ParseSizeList, RejectsBadLists) {
  for (const char* bad : {"", ",", "4K,,8K", "8K..4K", "1K..1G:x1", "1K..1G:2", "1K..", "0..4K"}) {
    EXPECT_THROW(static_cast<void>(parse_size_list(bad)), std::invalid_argument) << bad;
  }
}

// Each of these was once read as something else: a trailing comma ignored, a bare or overflowing
// step taken as x2.
TEST(ParseSizeList, RejectsWhatCouldBeReadAsSomethingElse) {
  for (const char* bad :
       {"1K,", "1K, ", ",1K", "1K,,2K", "1K, ,2K", "1K..1G:x", "1K..1G:x99999999999999999999",
        "1K..1G:", "1K..1G:x+2", "1K..1G:x-2", "1K..1G:x 2", "1K..1G:x2x", "1K..1G:X2",
        "1K..1G:x2:x2", "1K...1G", "..1K", "1K..2K..4K", "1K..1G:x2,"}) {
    EXPECT_THROW(static_cast<void>(parse_size_list(bad)), std::invalid_argument) << bad;
  }
}

// A second '..' is named as such, not read as a size with a unit.
TEST(ParseSizeList, RangeWithTwoDotsIsNamed) {
  for (const char* bad : {"1..2..3", "1K..2K..4K", "4K,1..2..3:x2"}) {
    try {
      static_cast<void>(parse_size_list(bad));
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("a range has one '..'"), std::string::npos)
          << error.what();
    }
  }
}

TEST(ParseSizeList, HugeRangesStayFiniteAndExact) {
  EXPECT_EQ(parse_size_list("1K..1G:x18446744073709551615"), (std::vector<std::size_t>{1024}));
  const std::vector<std::size_t> widest = parse_size_list("1..17179869183G");
  ASSERT_EQ(widest.size(), 64U);
  EXPECT_EQ(widest.back(), std::size_t{1} << 63U);
  EXPECT_EQ(parse_size_list("1K..1K:x2"), (std::vector<std::size_t>{1024}));
  EXPECT_EQ(parse_size_list(" 4K , 8K "), (std::vector<std::size_t>{4096, 8192}));
  EXPECT_EQ(parse_size_list("4K,4K,4096"), (std::vector<std::size_t>{4096}));
}

TEST(FormatSize, ShortestExactBinarySpelling) {
  EXPECT_EQ(format_size(4), "4B");
  EXPECT_EQ(format_size(65536), "64KiB");
  EXPECT_EQ(format_size(std::size_t{1} << 30U), "1GiB");
  EXPECT_EQ(format_size(1536), "1536B");
}

} // namespace
} // namespace gpubench

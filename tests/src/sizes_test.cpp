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
  for (const char* bad : {"", "0", "-4K", "abc", "4T", "K", "1.5M", "99999999999999999999"}) {
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

TEST(FormatSize, ShortestExactBinarySpelling) {
  EXPECT_EQ(format_size(4), "4B");
  EXPECT_EQ(format_size(65536), "64KiB");
  EXPECT_EQ(format_size(std::size_t{1} << 30U), "1GiB");
  EXPECT_EQ(format_size(1536), "1536B");
}

} // namespace
} // namespace gpubench

#include "shared_library.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpubench {
namespace {

// The C maths library: present wherever the tests run, with a function of known value.
constexpr const char* maths_library = "libm.so.6";

TEST(SharedLibrary, GivesAFunctionThatCanBeCalled) {
  const SharedLibrary library(maths_library);
  EXPECT_EQ(library.soname(), maths_library);
  const auto cosine = library.function<double (*)(double)>("cos");
  EXPECT_EQ(cosine(0.0), 1.0);
}

TEST(SharedLibrary, AMissingLibraryIsNamedWithTheLoadersReason) {
  try {
    const SharedLibrary library("libgpubench_absent.so.1");
    FAIL() << "opened a library that does not exist";
  } catch (const LibraryUnavailable& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("libgpubench_absent.so.1"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot open shared object file"), std::string::npos) << what;
  }
}

TEST(SharedLibrary, AMissingFunctionIsNamed) {
  const SharedLibrary library(maths_library);
  try {
    static_cast<void>(library.function<void (*)()>("gpubench_absent_function"));
    FAIL() << "found a function that does not exist";
  } catch (const LibraryUnavailable& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("gpubench_absent_function"), std::string::npos) << what;
    EXPECT_NE(what.find(maths_library), std::string::npos) << what;
  }
}

TEST(SharedLibrary, AMoveKeepsTheLibraryOpen) {
  SharedLibrary first(maths_library);
  const SharedLibrary second(std::move(first));
  EXPECT_EQ(second.function<double (*)(double)>("cos")(0.0), 1.0);
}

} // namespace
} // namespace gpubench

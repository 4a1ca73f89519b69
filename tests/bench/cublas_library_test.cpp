// The cuBLAS loader without a GPU: the library the toolkit ships binds every function the saxpy
// family calls (a wrong soname or symbol name fails here, not first on a GPU host), its status
// names reach the errors, and a library that cannot be loaded is named with the loader's reason.
#include "cublas_library.hpp"
#include "cuda_error.hpp"
#include "shared_library.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace gpubench::bench {
namespace {

// Why the toolkit's cuBLAS cannot be opened here, or nullopt where it can.
std::optional<std::string> cublas_absent() {
  try {
    const SharedLibrary library(CublasLibrary::default_soname());
    return std::nullopt;
  } catch (const LibraryUnavailable& error) {
    return error.what();
  }
}

TEST(CublasLibrary, NamesTheMajorVersionOfItsHeaders) {
  EXPECT_EQ(CublasLibrary::default_soname(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST(CublasLibrary, BindsEveryFunctionTheFamilyCalls) {
  if (const auto why = cublas_absent()) {
    GTEST_SKIP() << "no cuBLAS on this host: " << *why;
  }
  const CublasLibrary library; // throws, failing the test, where a function is not found
  EXPECT_EQ(library.soname(), CublasLibrary::default_soname());
  EXPECT_NO_THROW(library.check(CUBLAS_STATUS_SUCCESS, "cublasCreate(&handle)"));
  try {
    library.check(CUBLAS_STATUS_NOT_INITIALIZED, "cublasCreate(&handle)");
    FAIL() << "a failed status passed the check";
  } catch (const CudaError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("cublasCreate(&handle)"), std::string::npos) << what;
    EXPECT_NE(what.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos) << what;
    EXPECT_EQ(error.code(), CUBLAS_STATUS_NOT_INITIALIZED);
  }
}

TEST(CublasLibrary, ALibraryThatCannotBeLoadedIsNamed) {
  try {
    const CublasLibrary library("libcublas.so.0");
    FAIL() << "loaded a cuBLAS that does not exist";
  } catch (const LibraryUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("libcublas.so.0"), std::string::npos) << error.what();
  }
}

} // namespace
} // namespace gpubench::bench

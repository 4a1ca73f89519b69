#pragma once

#include <stdexcept>
#include <string>

namespace gpubench {

// Why a shared library, or a function in it, cannot be had: the library's name and the
// loader's own reason, e.g. "libcublas.so.13: cannot open shared object file: No such file or
// directory".
class LibraryUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One shared library opened with dlopen, for what only some runs need: the program starts and
// does everything else without it. Move-only; the reference is dropped at destruction, but the
// library stays mapped until the process exits (RTLD_NODELETE): libraries such as cuBLAS keep
// threads and exit handlers that unloading would cut short.
class SharedLibrary {
public:
  // Throws LibraryUnavailable where the loader cannot open `soname` (searched as dlopen does:
  // LD_LIBRARY_PATH, the program's RUNPATH, the loader's cache).
  explicit SharedLibrary(std::string soname);
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  ~SharedLibrary();

  [[nodiscard]] const std::string& soname() const noexcept { return soname_; }

  // The function `name` as `Function` (a pointer type the caller knows it has); throws
  // LibraryUnavailable where the library does not export it.
  template <typename Function> [[nodiscard]] Function function(const char* name) const {
    return reinterpret_cast<Function>(symbol(name));
  }

private:
  [[nodiscard]] void* symbol(const char* name) const;

  std::string soname_;
  void* handle_ = nullptr;
};

} // namespace gpubench

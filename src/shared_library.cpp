#include "shared_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <utility>

namespace gpubench {
namespace {

// dlerror's message, which names the file and the reason, or `fallback` where it has none.
std::string loader_error(const std::string& fallback) {
  const char* why = dlerror();
  return why != nullptr ? std::string(why) : fallback;
}

} // namespace

SharedLibrary::SharedLibrary(std::string soname)
    : soname_(std::move(soname)),
      handle_(dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
  if (handle_ == nullptr) {
    throw LibraryUnavailable(loader_error(fmt::format("{}: cannot be loaded", soname_)));
  }
}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : soname_(std::move(other.soname_)), handle_(std::exchange(other.handle_, nullptr)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) {
      dlclose(handle_);
    }
    soname_ = std::move(other.soname_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) {
    dlclose(handle_);
  }
}

void* SharedLibrary::symbol(const char* name) const {
  // Cleared first, so that the message is this lookup's ("<path>: undefined symbol: <name>").
  static_cast<void>(dlerror());
  void* address = dlsym(handle_, name);
  if (address == nullptr) {
    throw LibraryUnavailable(loader_error(fmt::format("{}: {} is not exported", soname_, name)));
  }
  return address;
}

} // namespace gpubench

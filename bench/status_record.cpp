#include "status_record.hpp"

#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <ctime>
#include <utility>

namespace gpubench::bench {
namespace {

// The fields a caller gives, in the record's order.
constexpr std::array<std::string_view, 6> given_keys{"gpu_uuid", "node",   "job",
                                                     "task",     "device", "attempt"};

// Printable ASCII without a space or '=' (a record's key=value, a pod log line's separator), and
// without '/' where `slash` is false.
bool plain(std::string_view value, bool slash) {
  return std::all_of(value.begin(), value.end(), [slash](char c) {
    return c > ' ' && c <= '~' && c != '=' && (slash || c != '/');
  });
}

bool is_uuid(std::string_view uuid) {
  const bool prefixed = uuid.starts_with("GPU-") || uuid.starts_with("MIG-");
  const std::string_view rest = uuid.substr(prefixed ? 4 : 0);
  return prefixed && !rest.empty() && rest.size() <= 124 &&
         std::all_of(rest.begin(), rest.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '/';
         });
}

// What fleet (scripts/gpubench_tools/reading/fleet/status.py) reads in each field: node and task
// 1-128 printable ASCII characters without a space, '/' or '=', a job up to 257 (NAME:UID), each
// GPU UUID of a comma-separated list GPU-... or MIG-..., an attempt 1-9 digits; empty where
// unknown, but for the attempt. A device is printable ASCII without a space or '='.
bool readable(std::string_view key, std::string_view value) {
  if (key == "attempt") {
    return !value.empty() && value.size() <= 9 &&
           std::all_of(value.begin(), value.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  }
  if (key == "gpu_uuid") {
    for (std::size_t begin = 0; begin <= value.size();) {
      const std::size_t comma = std::min(value.find(',', begin), value.size());
      const std::string_view uuid = value.substr(begin, comma - begin);
      if (!uuid.empty() && !is_uuid(uuid)) {
        return false;
      }
      begin = comma + 1;
    }
    return true;
  }
  if (key == "device") {
    return plain(value, true);
  }
  return value.size() <= (key == "job" ? 257U : 128U) && plain(value, false);
}

void check_fields(const std::map<std::string, std::string, std::less<>>& fields) {
  for (const auto& [key, value] : fields) {
    const std::string flag = fmt::format("--status-field={}={}", key, value);
    if (std::find(given_keys.begin(), given_keys.end(), key) == given_keys.end()) {
      throw UsageError(fmt::format("{}: a key of {} (gpubench writes status, exit and time)", flag,
                                   fmt::join(given_keys, ", ")));
    }
    if (!readable(key, value)) {
      throw UsageError(fmt::format("{}: not a value scripts/gpubench-tools fleet reads as {} "
                                   "(docs/cluster.md, the status file)",
                                   flag, key));
    }
  }
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return {text.data(), length};
}

} // namespace

StatusRecord::StatusRecord(std::string path, std::map<std::string, std::string, std::less<>> fields)
    : path_(std::move(path)), fields_(std::move(fields)), file_(path_) {
  check_fields(fields_);
  const std::string flag = fmt::format("--status-out={}", path_);
  if (path_.empty()) {
    throw UsageError(fmt::format("{}: empty file name", flag));
  }
  if (!file_.replaceable()) {
    throw UsageError(fmt::format("{}: cannot be written: not a file in a writable directory "
                                 "(the record is replaced whole, renamed over it)",
                                 flag));
  }
  if (!write("running", "none")) {
    throw UsageError(fmt::format("{}: cannot be written", flag));
  }
}

bool StatusRecord::finish(int exit_status) {
  return write(status_of_exit(exit_status), std::to_string(exit_status));
}

bool StatusRecord::write(std::string_view status, std::string_view exit) {
  std::string text = fmt::format("status={}\nexit={}\n", status, exit);
  for (const std::string_view key : given_keys) {
    if (key == "attempt") { // the scripts' order: time before attempt
      text += fmt::format("time={}\n", utc_now());
    }
    if (const auto field = fields_.find(key); field != fields_.end()) {
      text += fmt::format("{}={}\n", key, field->second);
    }
  }
  return file_.write(text);
}

std::string_view status_of_exit(int exit_status) noexcept {
  switch (exit_status) {
  case 0:
    return "done";
  case 129:
  case 130:
  case 143:
    return "interrupted";
  case 137:
    return "killed";
  default:
    return "failed";
  }
}

} // namespace gpubench::bench

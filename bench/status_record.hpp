#pragma once

#include "output_file.hpp"

#include <map>
#include <string>
#include <string_view>

namespace gpubench::bench {

// The per-GPU status record of a run (--status-out), in the format docs/cluster.md specifies and
// scripts/gpubench-tools fleet reads: one key=value a line, status, exit, then the fields the
// caller gives (gpu_uuid, node, job, task, device, in that order), time, attempt. It is replaced
// whole each time (OutputFile: a new file beside it, renamed over it), so a reader sees the old
// or the new record. `running` (exit=none) from the start of the run: a run killed by SIGKILL
// or a crash leaves it, which fleet reads as killed.
class StatusRecord {
public:
  // Throws UsageError in one line for a field fleet would refuse (a key other than those above,
  // a value outside what fleet reads), or for a file that cannot be replaced whole or written;
  // else writes the record `running`.
  StatusRecord(std::string path, std::map<std::string, std::string, std::less<>> fields);

  // Writes the record of the run's end from its exit status (status_of_exit); false where it
  // could not be written (the file keeps its last complete record).
  bool finish(int exit_status);

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
  bool write(std::string_view status, std::string_view exit);

  std::string path_;
  std::map<std::string, std::string, std::less<>> fields_;
  OutputFile file_;
};

// The status a record gives gpubench's exit status, as fleet reads one: 0 done; 129, 130, 143
// (SIGHUP, SIGINT, SIGTERM) interrupted; 137 (SIGKILL) killed; any other failed.
[[nodiscard]] std::string_view status_of_exit(int exit_status) noexcept;

} // namespace gpubench::bench

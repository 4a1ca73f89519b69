#include "file_reporter.hpp"

namespace gpubench::bench {
namespace {
std::unique_ptr<benchmark::BenchmarkReporter> reporter_for(const std::string& format) {
  if (format == "csv") {
    // Deprecated upstream but still what --benchmark_out_format=csv gives; gpubench keeps it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  }
  if (format == "console") {
    return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  }
  return std::make_unique<benchmark::JSONReporter>();
}
} // namespace

FileReporter::FileReporter(const std::string& format) : format_(reporter_for(format)) {}

bool FileReporter::ReportContext(const Context& context) {
  // Google Benchmark points this reporter at the file it opened; the format writes there too.
  format_->SetOutputStream(&GetOutputStream());
  format_->SetErrorStream(&GetErrorStream());
  const bool reported = format_->ReportContext(context);
  note_stream_state();
  return reported;
}

void FileReporter::ReportRuns(const std::vector<Run>& runs) {
  format_->ReportRuns(runs);
  ++reported_;
  note_stream_state();
}

// Called by Google Benchmark at the end of a run and by the interrupt action during one; after
// the first call the stream may no longer exist.
void FileReporter::Finalize() {
  if (finalized_) {
    return;
  }
  finalized_ = true;
  format_->Finalize();
  note_stream_state();
}

void FileReporter::note_stream_state() {
  std::ostream& out = GetOutputStream();
  out.flush();
  written_ = written_ && static_cast<bool>(out);
}

} // namespace gpubench::bench

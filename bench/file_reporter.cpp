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
  return format_->ReportContext(context);
}

void FileReporter::ReportRuns(const std::vector<Run>& runs) {
  format_->ReportRuns(runs);
  ++reported_;
  GetOutputStream().flush();
}

void FileReporter::Finalize() {
  if (!finalized_) {
    finalized_ = true;
    format_->Finalize();
  }
  GetOutputStream().flush();
}

} // namespace gpubench::bench

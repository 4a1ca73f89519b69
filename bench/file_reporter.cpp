#include "file_reporter.hpp"

#include "json_context.hpp"
#include "json_text.hpp"

#include <fmt/format.h>

#include <algorithm>

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

// The text the format ends its document with (JSON closes its list and object), as Google
// Benchmark writes it.
std::string closing_of(const std::string& format) {
  std::ostringstream text;
  const auto reporter = reporter_for(format);
  reporter->SetOutputStream(&text);
  reporter->SetErrorStream(&text);
  reporter->Finalize();
  return text.str();
}
} // namespace

FileReporter::FileReporter(const std::string& path, const std::string& format)
    : format_(reporter_for(format)), json_(format == "json"), closing_(closing_of(format)),
      file_(path) {
  // Google Benchmark writes a file's context to its error stream, and gpubench keeps it in the
  // file as Google Benchmark does.
  format_->SetOutputStream(&text_);
  format_->SetErrorStream(&text_);
}

bool FileReporter::ReportContext(const Context& context) {
  context_reported_ = true;
  const bool reported = format_->ReportContext(context);
  checkpoint();
  return reported;
}

void FileReporter::ReportRuns(const std::vector<Run>& runs) {
  format_->ReportRuns(runs);
  reported_ += runs.size();
  checkpoint();
}

void FileReporter::set_context(const std::string& key, const std::string& value) {
  set_context_json(key, fmt::format("\"{}\"", json_escape(value)));
}

void FileReporter::set_context_json(const std::string& key, const std::string& value) {
  const auto known = std::find_if(late_context_.begin(), late_context_.end(),
                                  [&](const auto& entry) { return entry.first == key; });
  if (known != late_context_.end()) {
    known->second = value;
  } else {
    late_context_.emplace_back(key, value);
  }
}

std::string FileReporter::document() const {
  std::string text = text_.str() + closing_;
  if (!json_) {
    return text;
  }
  // Each key goes first in the context: in reverse, they read in the order they were set.
  for (auto entry = late_context_.rbegin(); entry != late_context_.rend(); ++entry) {
    text = with_json_context_value(text, entry->first, entry->second).value_or(text);
  }
  return text;
}

void FileReporter::checkpoint() {
  if (file_.replaceable()) {
    written_ = file_.write(document()) && written_;
  }
}

void FileReporter::close() {
  if (!context_reported_) {
    Context context;
    context.name_field_width = 0; // Context() leaves it unset; no benchmark names to align
    ReportContext(context);
  }
  written_ = file_.write(document()) && written_;
}

} // namespace gpubench::bench

#include "display_reporter.hpp"

#include "console_header.hpp"
#include "say.hpp"

#include <iostream>
#include <sstream>
#include <string>

namespace gpubench::bench {
namespace {

// Each line written to it said as gpubench's own, but for Google Benchmark's warning that a
// family has many instances: gpubench registers every size of a case as one family on purpose.
class GpubenchLines : public std::streambuf {
protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) {
      return traits_type::not_eof(c);
    }
    if (traits_type::to_char_type(c) != '\n') {
      line_ += traits_type::to_char_type(c);
      return c;
    }
    if (!line_.starts_with("The number of inputs is very large.")) {
      say(line_);
    }
    line_.clear();
    return c;
  }

private:
  std::string line_;
};

} // namespace

DisplayReporter::DisplayReporter()
    : lines_(std::make_unique<GpubenchLines>()), before_run_(lines_.get()),
      format_(benchmark::CreateDefaultDisplayReporter()) {
  SetErrorStream(&before_run_);
}

DisplayReporter::~DisplayReporter() = default;

bool DisplayReporter::ReportContext(const Context& context) {
  std::ostringstream printed;
  format_->SetErrorStream(&printed);
  const bool ok = format_->ReportContext(context);
  format_->SetErrorStream(&std::cerr);
  std::cerr << printed.str();
  if (printed.str().find("Library was built as DEBUG") != std::string::npos) {
    std::cerr << debug_library_note() << '\n';
  }
  return ok;
}

} // namespace gpubench::bench

// The report helix-plugin-check prints: one PASS or FAIL line per check, with what was seen,
// and a result line; failures decide the exit code.
#pragma once

#include <fmt/format.h>

#include <ostream>
#include <string>

namespace helix {

class CheckReport {
 public:
  explicit CheckReport(std::ostream& out) : out_(out) {}

  // A heading for the checks that follow (the plugin, then each sample).
  void section(const std::string& text) { out_ << text << "\n"; }
  void pass(const std::string& check, const std::string& detail) { line("PASS", check, detail); }
  void fail(const std::string& check, const std::string& detail) {
    ++failed_;
    line("FAIL", check, detail);
  }
  void check(bool ok, const std::string& check, const std::string& pass_detail,
             const std::string& fail_detail) {
    ok ? pass(check, pass_detail) : fail(check, fail_detail);
  }
  void note(const std::string& text) { out_ << "  note " << text << "\n"; }

  int failed() const { return failed_; }
  int total() const { return total_; }
  // The result line; returns the exit code (0 all passed, 1 some failed).
  int finish() {
    if (failed_ == 0)
      out_ << fmt::format("result: PASS ({} checks)\n", total_);
    else
      out_ << fmt::format("result: FAIL ({} of {} checks failed)\n", failed_, total_);
    return failed_ == 0 ? 0 : 1;
  }

 private:
  void line(const char* verdict, const std::string& check, const std::string& detail) {
    ++total_;
    out_ << fmt::format("  {} {}: {}\n", verdict, check, detail);
  }

  std::ostream& out_;
  int failed_ = 0, total_ = 0;
};

}  // namespace helix

// SPDX-License-Identifier: Apache-2.0
// JUnit XML: one testsuite "fa2bench", one testcase per check, plus a "sweep" testcase that
// reports cases that ended in error or timeout (and an interrupted sweep).
#include <fmt/format.h>

#include <cmath>

#include "io/atomic_file.h"
#include "report/report.h"

namespace fa2b {
namespace {

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

}  // namespace

// Escapes text for XML attributes and character data. Characters XML 1.0 cannot carry at all
// (control characters other than tab, LF, CR) are written as "\xNN".
std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(ch));
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out;
}

std::string junit_text(const ResultSet& rs) {
  std::string body;
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const Verdict& v : rs.checks) {
    ++tests;
    body += fmt::format("    <testcase classname=\"fa2bench.checks.{}\" name=\"{}\"",
                        xml_escape(v.kind.empty() ? "check" : v.kind), xml_escape(v.name));
    const std::string message =
        fmt::format("measured {}, threshold {}", num(v.measured), v.threshold);
    if (v.verdict == VerdictKind::pass) {
      body += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n",
                          xml_escape(v.detail));
    } else if (v.verdict == VerdictKind::deferred || v.verdict == VerdictKind::skipped) {
      // Judged by merge, not by this shard (deferred), or a premise that does not hold on
      // this device (skipped): JUnit's skipped, which CI shows and never fails.
      ++skipped;
      body += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                          xml_escape(v.detail));
    } else if (v.verdict == VerdictKind::fail) {
      ++failures;
      body += fmt::format(
          ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n"
          "    </testcase>\n",
          xml_escape(message), xml_escape(v.kind), xml_escape(v.detail));
    } else {
      ++errors;
      body += fmt::format(
          ">\n      <error message=\"{}\" type=\"{}\">{}</error>\n"
          "    </testcase>\n",
          xml_escape(v.detail), xml_escape(v.kind), xml_escape(message));
    }
  }

  // The sweep itself: cases that ended in error or timeout, or a sweep that stopped early.
  ++tests;
  std::size_t bad = 0;
  std::string list;
  for (const CaseResult& r : rs.cases) {
    if (r.status != Status::error && r.status != Status::timeout) continue;
    ++bad;
    list += fmt::format("{}: {}{}\n", r.c.id(), to_string(r.status),
                        r.reason.empty() ? "" : ": " + r.reason);
  }
  body += "    <testcase classname=\"fa2bench\" name=\"sweep\"";
  if (bad == 0 && !rs.interrupted) {
    body += fmt::format(
        ">\n      <system-out>{} cases, none ended in error</system-out>\n"
        "    </testcase>\n",
        rs.cases.size());
  } else {
    ++errors;
    std::string message =
        bad == 0 ? fmt::format("the sweep was interrupted after {} cases", rs.cases.size())
                 : fmt::format("{} of {} cases ended in error or timeout", bad, rs.cases.size());
    if (bad > 0 && rs.interrupted) message += "; the sweep was interrupted";
    body += fmt::format(
        ">\n      <error message=\"{}\" type=\"sweep\">{}</error>\n"
        "    </testcase>\n",
        xml_escape(message), xml_escape(list));
  }

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"fa2bench\" tests=\"{0}\" failures=\"{1}\" "
      "errors=\"{2}\" time=\"{3}\">\n",
      tests, failures, errors, std::isfinite(rs.wall_s) ? rs.wall_s : 0.0);
  out += fmt::format(
      "  <testsuite name=\"fa2bench\" tests=\"{0}\" failures=\"{1}\" "
      "errors=\"{2}\" skipped=\"{4}\" time=\"{3}\">\n",
      tests, failures, errors, std::isfinite(rs.wall_s) ? rs.wall_s : 0.0, skipped);
  out += body;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

void write_junit(const ResultSet& rs, const std::string& path) {
  write_text_file_atomic(path, junit_text(rs));
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// JUnit XML (report/junit.h): the one document writer, and a result set's verdicts as test
// cases: one per check, plus a "sweep" test case that reports cases that ended in error or
// timeout (and an interrupted sweep).
#include <fmt/format.h>

#include <cmath>

#include "io/atomic_file.h"
#include "report/junit.h"
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

std::string junit_document(const std::string& suite, const std::vector<JunitCase>& cases,
                           double time_s) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  std::string body;
  for (const JunitCase& c : cases) {
    body += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(c.classname),
                        xml_escape(c.name));
    switch (c.outcome) {
      case JunitCase::Outcome::passed:
        body += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.text));
        break;
      case JunitCase::Outcome::skipped:
        ++skipped;
        body += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.message));
        break;
      case JunitCase::Outcome::failure:
        ++failures;
        body += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                            xml_escape(c.message), xml_escape(c.type), xml_escape(c.text));
        break;
      case JunitCase::Outcome::error:
        ++errors;
        body += fmt::format("      <error message=\"{}\" type=\"{}\">{}</error>\n",
                            xml_escape(c.message), xml_escape(c.type), xml_escape(c.text));
        break;
    }
    body += "    </testcase>\n";
  }
  const std::string time =
      std::isfinite(time_s) && time_s >= 0 ? fmt::format(" time=\"{}\"", time_s) : std::string();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{0}\" tests=\"{1}\" failures=\"{2}\" errors=\"{3}\"{4}>\n",
                     xml_escape(suite), cases.size(), failures, errors, time);
  out += fmt::format(
      "  <testsuite name=\"{0}\" tests=\"{1}\" failures=\"{2}\" errors=\"{3}\" "
      "skipped=\"{4}\"{5}>\n",
      xml_escape(suite), cases.size(), failures, errors, skipped, time);
  out += body;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string junit_text(const ResultSet& rs) {
  using Outcome = JunitCase::Outcome;
  std::vector<JunitCase> cases;
  for (const Verdict& v : rs.checks) {
    JunitCase jc;
    jc.classname = "fa2bench.checks." + (v.kind.empty() ? std::string("check") : v.kind);
    jc.name = v.name;
    const std::string measured =
        fmt::format("measured {}, threshold {}", num(v.measured), v.threshold);
    if (v.verdict == VerdictKind::pass) {
      jc.text = v.detail;
    } else if (v.verdict == VerdictKind::deferred || v.verdict == VerdictKind::skipped) {
      // Judged by merge, not by this shard (deferred), or a premise that does not hold on
      // this device (skipped): JUnit's skipped, which CI shows and never fails.
      jc.outcome = Outcome::skipped;
      jc.message = v.detail;
    } else if (v.verdict == VerdictKind::fail) {
      jc = {jc.classname, jc.name, Outcome::failure, measured, v.kind, v.detail};
    } else {
      jc = {jc.classname, jc.name, Outcome::error, v.detail, v.kind, measured};
    }
    cases.push_back(std::move(jc));
  }

  // The sweep itself: cases that ended in error or timeout, or a sweep that stopped early.
  std::size_t bad = 0;
  std::string list;
  for (const CaseResult& r : rs.cases) {
    if (r.status != Status::error && r.status != Status::timeout) continue;
    ++bad;
    list += fmt::format("{}: {}{}\n", r.c.id(), to_string(r.status),
                        r.reason.empty() ? "" : ": " + r.reason);
  }
  JunitCase sweep{"fa2bench", "sweep", Outcome::passed, {}, {}, {}};
  if (bad == 0 && !rs.interrupted) {
    sweep.text = fmt::format("{} cases, none ended in error", rs.cases.size());
  } else {
    std::string message =
        bad == 0 ? fmt::format("the sweep was interrupted after {} cases", rs.cases.size())
                 : fmt::format("{} of {} cases ended in error or timeout", bad, rs.cases.size());
    if (bad > 0 && rs.interrupted) message += "; the sweep was interrupted";
    sweep = {"fa2bench", "sweep", Outcome::error, message, "sweep", list};
  }
  cases.push_back(std::move(sweep));
  return junit_document("fa2bench", cases, std::isfinite(rs.wall_s) ? rs.wall_s : 0.0);
}

void write_junit(const ResultSet& rs, const std::string& path) {
  write_text_file_atomic(path, junit_text(rs));
}

}  // namespace fa2b

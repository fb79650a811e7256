// SPDX-License-Identifier: Apache-2.0
// One JUnit XML writer for every command that reports to CI (sweep and check: one test case
// per check verdict; compare: one per compared case and per run-level failure). Callers say
// what each test case is; how JUnit spells it (counts, escaping, the skipped element) is here.
#pragma once

#include <string>
#include <vector>

namespace fa2b {

struct JunitCase {
  enum class Outcome { passed, failure, error, skipped };
  std::string classname, name;
  Outcome outcome = Outcome::passed;
  std::string message;  // failure/error/skipped: the one-line reason (an attribute)
  std::string type;     // failure/error: what failed (an attribute)
  std::string text;     // passed: system-out; failure/error: the element's text
};

// The document: one <testsuites>/<testsuite> named `suite`, the counts, and `time_s` when it is
// finite and >= 0 (omitted otherwise).
std::string junit_document(const std::string& suite, const std::vector<JunitCase>& cases,
                           double time_s);

}  // namespace fa2b

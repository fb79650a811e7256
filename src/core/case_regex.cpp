// SPDX-License-Identifier: Apache-2.0
#include "core/case_regex.h"

#include <re2/re2.h>

namespace fa2b {

std::optional<CaseRegex> CaseRegex::compile(const std::string& pattern, std::string* error) {
  RE2::Options options;
  options.set_log_errors(false);  // the caller reports, naming the flag
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) {
    if (error) *error = re->error();
    return std::nullopt;
  }
  CaseRegex out;
  out.pattern_ = pattern;
  out.re_ = std::move(re);
  return out;
}

bool CaseRegex::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace fa2b

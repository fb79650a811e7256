// SPDX-License-Identifier: Apache-2.0
// A regular expression over case ids (`sweep --filter`, `--dump-filter`), on RE2: matching
// takes time linear in the id's length whatever the pattern, where std::regex backtracks
// (a pattern like (a*)*b hangs it) and recurses per character.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace fa2b {

class CaseRegex {
 public:
  // The compiled `pattern`, or nullopt with RE2's reason in *error.
  static std::optional<CaseRegex> compile(const std::string& pattern, std::string* error);
  // Whether the pattern matches somewhere in `text` (like std::regex_search).
  bool search(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;  // shared: RE2 cannot be copied, options can
};

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// Every JSON document fa2bench reads (configs, --set values, results files, results.jsonl
// lines, sweep.json, a child's case and result files) is parsed here, so that none of them can
// crash the tool or flood the terminal: nesting is limited before anything recursive (the
// serializer, copies, comparisons) sees the document, a number out of range is named by line
// and JSON pointer, and what an error message echoes of the input is cut short.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fa2b {

// Deeper documents are refused: nlohmann's serializer and copy recurse once per level, and a
// few hundred thousand levels overflow the stack. No fa2bench file needs more than ~10.
inline constexpr std::size_t kMaxJsonDepth = 512;
// The most characters of the input an error message repeats.
inline constexpr std::size_t kMaxEchoChars = 200;

struct JsonParseOptions {
  bool allow_comments = false;         // configs may carry // and /* */ comments
  bool reject_duplicate_keys = false;  // nlohmann keeps the last of two equal keys silently
};

class JsonInputError : public std::runtime_error {
 public:
  enum class Kind {
    syntax,        // not JSON
    truncated,     // the text ends inside the document (e.g. a process killed while writing)
    too_deep,      // nested deeper than kMaxJsonDepth
    out_of_range,  // a number beyond double's range (1e400)
    duplicate_key  // only with reject_duplicate_keys
  };
  JsonInputError(Kind kind, std::string source, std::size_t line, std::size_t column,
                 std::string pointer, std::string detail);
  Kind kind() const { return kind_; }
  std::size_t line() const { return line_; }
  std::size_t column() const { return column_; }
  const std::string& pointer() const { return pointer_; }  // empty when unknown
  const std::string& detail() const { return detail_; }    // without source and place
  // Every duplicate key found (reject_duplicate_keys), each "POINTER: duplicate key ...".
  std::vector<std::string> duplicates;

 private:
  Kind kind_;
  std::size_t line_, column_;
  std::string pointer_, detail_;
};

// Parses `text`; `source` (a path, or a label like `--set "grid.T=..."`) starts every error
// message, which also names the line and column and, where it helps, the JSON pointer.
// Throws JsonInputError.
nlohmann::json parse_json_input(std::string_view text, const std::string& source,
                                const JsonParseOptions& options = {});

// `text` cut to kMaxEchoChars characters, saying how long it was when cut.
std::string clip_echo(std::string_view text, std::size_t max_chars = kMaxEchoChars);

// One JSON-pointer reference token for `key` (RFC 6901 escapes), as every error names places.
std::string escape_pointer_token(std::string_view key);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// load_config: read a file, report JSON syntax errors, duplicate keys, too deep nesting and
// numbers out of range by position (io/json_input does the parsing).
#include <fmt/format.h>

#include "config/config_internal.h"
#include "io/input_file.h"
#include "io/json_input.h"

namespace fa2b {

using config_detail::json;

Config load_config(const std::string& path, const ConfigOverrides& overrides) {
  std::string text;
  try {
    text = read_input_file(path, {kMaxConfigBytes, /*refuse_nul=*/true});
  } catch (const InputFileError& e) {
    throw ConfigError({e.what()});
  }

  json raw;
  try {
    raw = parse_json_input(text, path, {/*allow_comments=*/true, /*reject_duplicate_keys=*/true});
  } catch (const JsonInputError& e) {
    using Kind = JsonInputError::Kind;
    if (e.kind() == Kind::duplicate_key) {
      std::vector<std::string> messages;
      for (const auto& d : e.duplicates) messages.push_back(path + ": " + d);
      throw ConfigError(messages);
    }
    if (e.kind() == Kind::syntax || e.kind() == Kind::truncated) {
      throw ConfigError({fmt::format("{}: JSON syntax error at line {}, column {}: {}", path,
                                     e.line(), e.column(), e.detail())});
    }
    throw ConfigError({e.what()});  // too deep, number out of range: file, line and pointer
  }
  return parse_config(raw, path, overrides);
}

ConfigSource source_of(const Config& config) {
  return {config.path, config.sha256, config.raw};
}

}  // namespace fa2b

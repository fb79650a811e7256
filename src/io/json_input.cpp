// SPDX-License-Identifier: Apache-2.0
#include "io/json_input.h"

#include <fmt/format.h>

#include <set>
#include <utility>

namespace fa2b {

using nlohmann::json;

namespace {

std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t pos) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// The offset of the bracket that opens level kMaxJsonDepth + 1, or npos. A flat scan (strings
// and comments skipped) so that the limit holds before any parser or DOM exists; on text the
// parser accepts it counts exactly the parser's levels.
std::size_t find_too_deep(std::string_view text, bool comments) {
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (ch == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (comments && ch == '/' && next == '/') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) return i;
    } else if (comments && ch == '/' && next == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos) return i;
      ++i;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// nlohmann's DOM builder, plus where the parser is (for a JSON pointer in errors), a depth
// guard (the pre-scan's twin: the parser itself never goes deeper) and duplicate keys.
class GuardedSax {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  GuardedSax(json& root, const JsonParseOptions& options) : dom_(root, false), options_(options) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) {
    return value() && dom_.number_float(v, s);
  }
  bool string(string_t& v) { return value() && dom_.string(v); }
  bool binary(binary_t& v) { return value() && dom_.binary(v); }

  bool start_object(std::size_t n) { return open(false) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return open(true) && dom_.start_array(n); }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  bool key(string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (options_.reject_duplicate_keys && !f.keys.insert(k).second) {
      duplicates.push_back(pointer() + ": duplicate key \"" + clip_echo(k) +
                           "\"; each key may appear once in an object");
    }
    return dom_.key(k);
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& last_token, const Exception& ex) {
    error_position = position;
    error_token = last_token;
    error_what = ex.what();
    error_id = ex.id;
    error_pointer = pointer();
    return false;
  }

  // The pointer of the value being read: in an object its key; in the innermost list the next
  // index (the value has not been counted yet), in an outer one the element being read.
  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool innermost = i + 1 == frames_.size();
      p += '/';
      p +=
          f.array ? std::to_string(innermost ? f.count : f.count - 1) : escape_pointer_token(f.key);
    }
    return p;
  }

  std::vector<std::string> duplicates;
  bool too_deep = false;
  std::size_t error_position = 0;
  std::string error_token, error_what, error_pointer;
  int error_id = 0;

 private:
  struct Frame {
    bool array;
    std::size_t count;  // values begun so far (lists)
    std::string key;    // the current key (objects)
    std::set<std::string> keys;
  };
  // A value begins: count it in its list. The pointer of a list element is taken before this.
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
    return true;
  }
  bool open(bool array) {
    if (frames_.size() >= kMaxJsonDepth) {
      too_deep = true;
      error_pointer = pointer();
      return false;
    }
    value();
    frames_.push_back(Frame{array, 0, {}, {}});
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const JsonParseOptions& options_;
  std::vector<Frame> frames_;
};

std::string too_deep_message() {
  return fmt::format("JSON nested deeper than {} levels (fa2bench reads at most {})", kMaxJsonDepth,
                     kMaxJsonDepth);
}

// nlohmann's message without its prefix and place, its "last read" token cut short.
std::string parser_detail(const std::string& what, const std::string& token) {
  std::string detail = what;
  const auto column = detail.find("column ");
  const auto colon = column == std::string::npos ? column : detail.find(": ", column);
  if (colon != std::string::npos) {
    detail = detail.substr(colon + 2);
  } else if (const auto bracket = detail.find("] "); bracket != std::string::npos) {
    detail = detail.substr(bracket + 2);
  }
  if (token.size() > kMaxEchoChars) {
    const auto at = detail.find(token);
    if (at != std::string::npos) detail.replace(at, token.size(), clip_echo(token));
  }
  return clip_echo(detail, 4 * kMaxEchoChars);
}

}  // namespace

JsonInputError::JsonInputError(Kind kind, std::string source, std::size_t line, std::size_t column,
                               std::string pointer, std::string detail)
    : std::runtime_error(fmt::format("{}: line {}, column {}{}: {}", source, line, column,
                                     pointer.empty() ? "" : " (at " + clip_echo(pointer) + ")",
                                     detail)),
      kind_(kind),
      line_(line),
      column_(column),
      pointer_(clip_echo(pointer)),
      detail_(std::move(detail)) {}

std::string clip_echo(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return fmt::format("{}... ({} characters in all)", text.substr(0, max_chars), text.size());
}

json parse_json_input(std::string_view text, const std::string& source,
                      const JsonParseOptions& options) {
  using Kind = JsonInputError::Kind;
  const std::size_t deep_at = find_too_deep(text, options.allow_comments);
  if (deep_at != std::string_view::npos) {
    const auto [line, col] = line_column(text, deep_at);
    throw JsonInputError(Kind::too_deep, source, line, col, "", too_deep_message());
  }
  json root;
  GuardedSax sax(root, options);
  const bool ok = json::sax_parse(text, &sax, json::input_format_t::json, /*strict=*/true,
                                  options.allow_comments);
  if (sax.too_deep) {  // unreachable after the pre-scan; kept so the limit has no gap
    throw JsonInputError(Kind::too_deep, source, 0, 0, sax.error_pointer, too_deep_message());
  }
  if (!ok) {
    const bool range = sax.error_id == 406;  // out_of_range.406: number overflow
    // The place of the offending token: its first character for a number, else where the
    // parser stopped.
    const std::size_t end = sax.error_position == 0 ? 0 : sax.error_position - 1;
    const std::size_t start = range && sax.error_token.size() <= sax.error_position
                                  ? sax.error_position - sax.error_token.size()
                                  : end;
    const auto [line, col] = line_column(text, start);
    if (range) {
      throw JsonInputError(Kind::out_of_range, source, line, col, sax.error_pointer,
                           "number " + clip_echo(sax.error_token) +
                               " is out of range (beyond double precision's ~1.8e308)");
    }
    const std::string detail = parser_detail(sax.error_what, sax.error_token);
    const bool truncated = sax.error_position >= text.size() ||
                           detail.find("unexpected end of input") != std::string::npos;
    throw JsonInputError(truncated ? Kind::truncated : Kind::syntax, source, line, col, "", detail);
  }
  if (!sax.duplicates.empty()) {
    JsonInputError e(Kind::duplicate_key, source, 0, 0, "", sax.duplicates.front());
    e.duplicates = sax.duplicates;
    throw e;
  }
  return root;
}

// RFC 6901: "~" becomes "~0" and "/" becomes "~1".
std::string escape_pointer_token(std::string_view key) {
  std::string out;
  for (const char ch : key) {
    if (ch == '~') {
      out += "~0";
    } else if (ch == '/') {
      out += "~1";
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace fa2b

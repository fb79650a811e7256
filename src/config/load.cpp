// load_config: read a file, report JSON syntax errors and duplicate keys by position.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "config/config_internal.h"

namespace fa2b {

using config_detail::json;

namespace {

// Tracks where the parser is, so a duplicate key can be named by its JSON pointer
// (nlohmann::json keeps the last of two equal keys silently).
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        begin_element();
        frames_.push_back(Frame{event == json::parse_event_t::array_start, 0, {}, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!frames_.empty() && parsed.is_string()) {
          Frame& f = frames_.back();
          f.key = parsed.get<std::string>();
          if (!f.keys.insert(f.key).second) {
            duplicates.push_back(pointer() + ": duplicate key \"" + f.key +
                                 "\"; each key may appear once in an object");
          }
        }
        break;
      case json::parse_event_t::value:
        begin_element();
        break;
    }
    return true;
  }
  std::vector<std::string> duplicates;

 private:
  struct Frame {
    bool array;
    std::size_t next;
    std::string key;
    std::set<std::string> keys;
  };
  void begin_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().next;
  }
  std::string pointer() const {
    std::string p;
    for (const auto& f : frames_) {
      p = f.array ? config_detail::ptr(p, f.next - 1) : config_detail::ptr(p, f.key);
    }
    return p;
  }
  std::vector<Frame> frames_;
};

}  // namespace

Config load_config(const std::string& path, const ConfigOverrides& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError({path + ": cannot open: " + std::strerror(EISDIR)});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path + ": cannot open: " + std::strerror(errno)});
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  DuplicateKeyFinder finder;
  json raw;
  try {
    raw = json::parse(
        text,
        [&finder](int depth, json::parse_event_t event, json& parsed) {
          return finder(depth, event, parsed);
        },
        /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const std::string what = e.what();
    static const std::regex where(R"(at line (\d+), column (\d+): (.*))");
    std::smatch m;
    std::string msg;
    if (std::regex_search(what, m, where)) {
      msg =
          "JSON syntax error at line " + m[1].str() + ", column " + m[2].str() + ": " + m[3].str();
    } else {
      msg = "JSON syntax error at byte " + std::to_string(e.byte) + ": " + what;
    }
    throw ConfigError({path + ": " + msg});
  }
  if (!finder.duplicates.empty()) {
    std::vector<std::string> messages;
    for (const auto& d : finder.duplicates) messages.push_back(path + ": " + d);
    throw ConfigError(messages);
  }
  return parse_config(raw, path, overrides);
}

}  // namespace fa2b

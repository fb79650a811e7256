// SPDX-License-Identifier: Apache-2.0
// ConfigError and the small helpers every config file uses: pointers, did-you-mean, getters.
#include <algorithm>
#include <cctype>

#include "config/config_internal.h"
#include "io/json_input.h"

namespace fa2b {

namespace {
std::string join_lines(const std::vector<std::string>& messages) {
  std::string out;
  for (const auto& m : messages) {
    if (!out.empty()) out += '\n';
    out += m;
  }
  return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<std::string> messages)
    : std::runtime_error(join_lines(messages)), messages_(std::move(messages)) {}

namespace config_detail {

std::string sweep_name(const nlohmann::json& sweep, const std::string& sp,
                       std::set<std::string>& names, Errors& errors) {
  std::string name;
  if (!sweep.contains("name")) {
    errors.add(sp, "missing required \"name\" (a unique sweep name)");
  } else if (auto n = get_string(sweep["name"], ptr(sp, "name"), errors)) {
    name = *n;
    if (!names.insert(name).second) {
      errors.add(ptr(sp, "name"), "duplicate sweep name \"" + name + "\"; names must be unique");
    }
  }
  if (sweep.contains("description") && !sweep["description"].is_string()) {
    errors.add(ptr(sp, "description"), "expected a string, got " + show(sweep["description"]));
  }
  return name;
}

std::string ptr(const std::string& base, std::string_view key) {
  return base + "/" + escape_pointer_token(key);
}

std::string ptr(const std::string& base, std::size_t index) {
  return base + "/" + std::to_string(index);
}

// Optimal string alignment distance: insertions, deletions, substitutions, transpositions.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      // A swap of two neighbours ("=<" for "<=") counts as one edit.
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    prev2 = prev;
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  const std::string lw = lower(word);
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const auto& cand : candidates) {
    // A difference in case only counts as the closest possible match.
    const std::size_t d = lower(cand) == lw ? 0 : edit_distance(lw, lower(cand));
    // On a tie the longer name wins: "Tq" is more likely "T_q" than "T".
    if (d < best_d || (d == best_d && cand.size() > best.size())) {
      best_d = d;
      best = cand;
    }
  }
  // Close enough to be a typo: at most 2 edits, and at most half the longer word.
  const std::size_t longer = std::max(word.size(), best.size());
  if (best_d <= 2 && 2 * best_d <= longer) return best;
  return {};
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string show(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

const std::vector<std::string>& unsupported_training_options() {
  static const std::vector<std::string> names = {"dropout", "dropout_p", "softcap", "alibi_slopes"};
  return names;
}

void check_keys(const json& obj, const std::string& pointer,
                const std::vector<std::string>& allowed, std::string_view what, Errors& errors) {
  const auto& unsupported = unsupported_training_options();
  for (const auto& item : obj.items()) {
    const std::string& key = item.key();
    if (!key.empty() && key[0] == '_') continue;  // comments
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (std::find(unsupported.begin(), unsupported.end(), key) != unsupported.end()) {
      errors.add(ptr(pointer, key),
                 "\"" + key +
                     "\" is not supported: fa2bench measures exact softmax attention without "
                     "dropout, soft-capping or ALiBi; the one training option is the "
                     "\"mode\" axis (fwd, bwd, fwd_bwd)");
      continue;
    }
    // flash-attention's name for the sliding window, too far from ours for did_you_mean.
    if (key == "window_size" &&
        std::find(allowed.begin(), allowed.end(), "window") != allowed.end()) {
      errors.add(ptr(pointer, key),
                 "unknown " + std::string(what) +
                     " \"window_size\": the sliding window is the \"window\" axis here, "
                     "[left, right] with -1 for an unbounded side");
      continue;
    }
    std::string msg = "unknown " + std::string(what) + " \"" + key + "\"";
    const std::string near = did_you_mean(key, allowed);
    if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
    msg += "; allowed: " + join(allowed);
    errors.add(ptr(pointer, key), msg);
  }
}

std::optional<std::int64_t> get_int_at_least(const json& v, std::int64_t min,
                                             const std::string& pointer, Errors& errors) {
  const std::string want = min == 1   ? "a positive integer"
                           : min == 0 ? "a non-negative integer"
                                      : "an integer >= " + std::to_string(min);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) {
      errors.add(pointer, "expected " + want + " that fits in 64 bits, got " + show(v));
      return std::nullopt;
    }
    if (static_cast<std::int64_t>(u) >= min) return static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= min) return i;
  }
  errors.add(pointer, "expected " + want + ", got " + show(v));
  return std::nullopt;
}

std::optional<std::int64_t> get_positive_int(const json& v, const std::string& pointer,
                                             Errors& errors) {
  return get_int_at_least(v, 1, pointer, errors);
}

std::optional<double> get_number(const json& v, const std::string& pointer, Errors& errors) {
  if (v.is_number()) return v.get<double>();
  errors.add(pointer, "expected a number, got " + show(v));
  return std::nullopt;
}

std::optional<std::string> get_string(const json& v, const std::string& pointer, Errors& errors) {
  if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
  errors.add(pointer, "expected a non-empty string, got " + show(v));
  return std::nullopt;
}

std::optional<bool> get_bool(const json& v, const std::string& pointer, Errors& errors) {
  if (v.is_boolean()) return v.get<bool>();
  errors.add(pointer, "expected true or false, got " + show(v));
  return std::nullopt;
}

}  // namespace config_detail
}  // namespace fa2b

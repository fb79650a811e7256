// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the config module's source files. Not part of the public interface.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.h"

namespace fa2b::config_detail {

using json = nlohmann::json;

inline constexpr std::int64_t kMaxCases = 100000;

// Collects every problem found; thrown as one ConfigError at the end.
class Errors {
 public:
  // An empty pointer is the whole document, shown as "(root)".
  void add(const std::string& pointer, const std::string& what) {
    messages_.push_back((pointer.empty() ? std::string("(root)") : pointer) + ": " + what);
  }
  void append(const Errors& other) {
    messages_.insert(messages_.end(), other.messages_.begin(), other.messages_.end());
  }
  const std::vector<std::string>& messages() const { return messages_; }
  bool empty() const { return messages_.empty(); }
  std::size_t size() const { return messages_.size(); }
  void throw_if_any() const {
    if (!messages_.empty()) throw ConfigError(messages_);
  }

 private:
  std::vector<std::string> messages_;
};

// JSON pointer helpers: "/sweeps/0" + "grid" -> "/sweeps/0/grid" (escaping ~ and /).
// A sweep's "name" (required, unique among `names`, which it joins) and its optional
// "description" checked; "" when the name is missing or not a string (errors say which).
std::string sweep_name(const nlohmann::json& sweep, const std::string& sp,
                       std::set<std::string>& names, Errors& errors);
std::string ptr(const std::string& base, std::string_view key);
std::string ptr(const std::string& base, std::size_t index);

// Levenshtein distance and the closest candidate worth suggesting (empty when none is close).
std::size_t edit_distance(std::string_view a, std::string_view b);
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
// A JSON value as the user wrote it, shortened when long: "2048" (a string), 1.5, [1,2].
std::string show(const json& v);

// Options of flash-attention's training API that fa2bench does not measure (dropout and the
// attention variants beside exact softmax attention). Named anywhere in a config, they are
// refused with their own message rather than as a misspelling.
const std::vector<std::string>& unsupported_training_options();

// Reports every key of `obj` (an object) not in `allowed`, with a did-you-mean. `what` names
// the kind of key ("key", "axis", "measure setting"). Keys starting with "_" are comments.
void check_keys(const json& obj, const std::string& pointer,
                const std::vector<std::string>& allowed, std::string_view what, Errors& errors);

// Typed getters: report a type error and return nullopt when the value has the wrong type.
std::optional<std::int64_t> get_positive_int(const json& v, const std::string& pointer,
                                             Errors& errors);
std::optional<std::int64_t> get_int_at_least(const json& v, std::int64_t min,
                                             const std::string& pointer, Errors& errors);
std::optional<double> get_number(const json& v, const std::string& pointer, Errors& errors);
std::optional<std::string> get_string(const json& v, const std::string& pointer, Errors& errors);
std::optional<bool> get_bool(const json& v, const std::string& pointer, Errors& errors);

// ---- axes ---------------------------------------------------------------------------------

// Grid axes in expansion order (the last varies fastest).
const std::vector<std::string>& grid_axis_names();
// Selector axes: "backend", "sweep" and the grid axes.
const std::vector<std::string>& selector_axis_names();
bool is_int_axis(std::string_view axis);
// The integer (count) axes of the axis table: B, H, H_kv, T, T_q, T_k, D (ranges, {min, max}
// selectors, growth checks); int_axis_list() joins them with ", " for messages.
const std::vector<std::string>& int_axis_names();
std::string int_axis_list();
// Whether `v`, given for `axis`, is a list of values rather than one value: any JSON array,
// except that one window is itself a pair ([16, 16]); a list of windows is a list of pairs.
bool is_value_list(std::string_view axis, const json& v);

// The value of one axis of a case as JSON (T is T_q when T_q == T_k, null otherwise).
json case_axis_value(const Case& c, std::string_view axis);

// Validates one value of an axis (a scalar already taken out of a list); returns the
// normalised JSON value or nullopt after reporting the problem.
std::optional<json> check_axis_scalar(std::string_view axis, const json& v,
                                      const std::string& pointer, Errors& errors);

// Expands an axis value (scalar, non-empty list or range object) into its list of values.
std::optional<std::vector<json>> expand_axis_values(std::string_view axis, const json& v,
                                                    const std::string& pointer, Errors& errors);

// ---- variable-length batches (lengths.cpp) -------------------------------------------------

// One value of the "lengths" axis: a list of lengths (each 0 or more) or a distribution object;
// returns it normalised (a list, or the object with every key) or nullopt after reporting.
std::optional<json> check_lengths(const json& v, const std::string& pointer, Errors& errors);
// Where the axes that a variable-length batch ties together were given (JSON pointers); unset
// when the case's sweep and the defaults leave one out. grid_B: B in the sweep's own grid (a B
// of /defaults yields to a list of lengths).
struct VarlenAxes {
  std::optional<std::string> lengths, packing, T, grid_B, layout;
  std::optional<std::string> B;  // where B was given (grid or /defaults), for its bound
};
// Completes a case once all its axes are set: draws a distribution's B lengths, sets B from a
// list, T_q = T_k = the longest, a packed batch's layout bshd. Returns (pointer, message) for
// what contradicts: packing without lengths, a grid B other than the list's size, a length
// beyond a given T, T_q != T_k, no tokens at all, more tokens than 32-bit offsets address, a
// packed batch with layout bhsd.
std::vector<std::pair<std::string, std::string>> finish_varlen(Case& c, const VarlenAxes& given);

// ---- selectors ----------------------------------------------------------------------------

// Parses a selector object (axis -> scalar | list | {"min", "max"}); reports problems.
Selector parse_selector(const json& v, const std::string& pointer, Errors& errors);
// True when `value` (one accepted entry of a selector axis) accepts the case.
bool selector_entry_matches(std::string_view axis, const json& entry, const Case& c);
// A selector entry for messages: "4096", "fa2", "[512, 4096]".
std::string show_entry(const json& entry);

// ---- measure ------------------------------------------------------------------------------

// Applies the keys of a "measure" object on top of `base`; reports problems.
MeasureSettings parse_measure(const json& v, const std::string& pointer, MeasureSettings base,
                              Errors& errors);

// ---- overrides ----------------------------------------------------------------------------

// Applies --set and --backends to a copy of the config; throws ConfigError on bad syntax.
json apply_overrides(const json& raw, const ConfigOverrides& overrides);

// ---- expansion and checks -----------------------------------------------------------------

// Expands the sweeps of a config (already known to be an object); fills `cases`, and
// `model_cases` from "scope": "transformer" sweeps.
void expand_sweeps(const json& raw, const MeasureSettings& top_measure, std::vector<Case>& cases,
                   std::vector<ModelCase>& model_cases, Errors& errors);

// ---- transformer sweeps (expand_model.cpp) -------------------------------------------------

// True for a sweep object whose "scope" is "transformer".
bool is_transformer_sweep(const json& sweep);
// Validates one transformer sweep and appends its cases; `names` holds the sweep names so far.
void expand_model_sweep(const json& sweep, const std::string& pointer,
                        const MeasureSettings& top_measure, std::set<std::string>& names,
                        std::vector<ModelCase>& cases, Errors& errors);

// Parses and validates the checks against the expanded cases. When `drop_unmatched` is set,
// a check whose only problems are references to cases that do not exist (as happens after
// --backends or --set grid.* narrowed the sweep) is dropped instead: its index goes to
// `dropped` and a note to `notes`.
// When `cases_valid` is false (the sweeps had errors) only the checks' own syntax is checked.
// With `model_cases` (a config of transformer sweeps) the checks are of transformer results:
// status, threshold and ratio, over model_metric_names(), referring to those cases.
std::vector<CheckSpec> parse_checks(const json& raw, const std::vector<Case>& cases,
                                    bool cases_valid, bool drop_unmatched,
                                    std::vector<std::size_t>& dropped,
                                    std::vector<std::string>& notes, Errors& errors,
                                    const std::vector<ModelCase>* model_cases = nullptr);

}  // namespace fa2b::config_detail

// SPDX-License-Identifier: Apache-2.0
// One definition per axis: the table of a case's shape axes (B, H, ..., page_size) that config
// expansion, selectors, the results writer, CSV, the checks' shape matching and `tune` iterate.
// A new axis is one entry here (plus its Case field and kernel support); docs/development.md,
// "Adding an axis", lists the rest. tests/unit/test_axis_table.cpp holds every entry to its
// pieces.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"

namespace fa2b {

// What values an axis takes in a config (config/axes.cpp validates by kind).
enum class AxisKind {
  count,    // a positive integer; ranges ({"range": ..., "mul"}) and {min, max} selectors allowed
  index,    // an integer >= 0 with its own bound (variant)
  flag,     // true / false
  name,     // one of AxisDef::names
  window,   // [left, right]
  lengths,  // a list of lengths or a distribution object
  page,     // a power of two from kMinPageSize to kMaxPageSize
};

// What `fa2bench tune` does with the axis when it turns a case into a sweep of variants.
enum class TuneRule {
  keep,         // the case's value
  keep_if_set,  // the case's value when it differs from a default Case's (a bounded window)
  leave,        // left to its default (the tune measures the dense, contiguous forward)
  own,          // tune sets it itself (variant: swept; mode: fwd)
};

// One CSV column of an axis: its header and its cell.
struct AxisCsvColumn {
  std::string_view header;
  std::string (*cell)(const Case&);
};

// The results loader's checked reading of one case's params object (io/results_loader.cpp
// implements it): every error names the file and the JSON pointer, as the loader's always have.
class ParamsIn {
 public:
  virtual ~ParamsIn() = default;
  // The params object and its pointer ("/cases/3/params").
  virtual const nlohmann::json& params() const = 0;
  virtual const std::string& pointer() const = 0;
  std::string at(const char* key) const { return pointer() + "/" + key; }
  // A key of `obj`: nullptr when absent; require fails ("missing") at `where`/key.
  virtual const nlohmann::json* find(const nlohmann::json& obj, const char* key) const = 0;
  virtual const nlohmann::json& require(const nlohmann::json& obj, const std::string& where,
                                        const char* key) const = 0;
  virtual std::int64_t to_int(const nlohmann::json& v, const std::string& where) const = 0;
  virtual std::uint64_t to_uint(const nlohmann::json& v, const std::string& where) const = 0;
  virtual double to_double(const nlohmann::json& v, const std::string& where) const = 0;
  // A finite number >= 0.
  virtual double finite_nonnegative(const nlohmann::json& v, const std::string& where) const = 0;
  virtual std::string to_string(const nlohmann::json& v, const std::string& where) const = 0;
  virtual bool to_bool(const nlohmann::json& v, const std::string& where) const = 0;
  // An integer at least `min`.
  virtual std::int64_t at_least(const nlohmann::json& v, const std::string& where,
                                std::int64_t min) const = 0;
  [[noreturn]] virtual void fail(const std::string& where, const std::string& what) const = 0;
  [[noreturn]] virtual void wrong_type(const std::string& where, const char* expected,
                                       const nlohmann::json& v) const = 0;
};

struct AxisDef {
  std::string_view name;
  AxisKind kind;
  // AxisKind::name: the values accepted, as written in configs and results.
  std::vector<std::string> names;
  // Other axes this one stands for (T: T_q and T_k); empty for a field of its own.
  std::vector<std::string_view> covers;
  // The case's value as a grid value, matched by selectors (`where`, `exclude`, check
  // selections, growth/ratio axes); null when the case has none (T when T_q != T_k, packing of
  // a dense batch). lengths: its id tag ("uniform512-8192s1").
  nlohmann::json (*value)(const Case&);
  // Sets the case's field(s) from one validated grid value (config expansion).
  void (*set)(Case&, const nlohmann::json&);
  // Whether two cases are equal on this axis (same_shape, growth groups); nullptr for an axis
  // that covers others (T), whose fields those own.
  bool (*same)(const Case&, const Case&);
  // Adds the axis's keys to a results file's params, in the table's order; nullptr where
  // another axis writes them (packing: with lengths). Keys a case did not have before the axis
  // existed are left out for such cases, so that older params stay byte for byte.
  void (*write_params)(const Case&, nlohmann::ordered_json&);
  // Reads the keys write_params writes back into the case (the results loader), refusing
  // impossible values; an absent key means what files written before the axis meant (the
  // default). Present exactly when write_params is; runs in the same order.
  void (*read_params)(const ParamsIn&, Case&);
  // Whether write_params runs after every other axis's (the variable-length keys, written last
  // since before the paged and variant keys existed).
  bool params_last = false;
  // CSV columns; empty with `no_csv` saying why (the CSV's columns are fixed for old readers).
  std::vector<AxisCsvColumn> csv;
  std::string_view no_csv;
  TuneRule tune = TuneRule::keep;
};

// Every axis, in grid expansion order (the last varies fastest; new axes go last so that the
// case order of every existing config stays).
const std::vector<AxisDef>& axis_table();
// The axis named `name`; nullptr when there is none.
const AxisDef* find_axis(std::string_view name);
// The table's axes in params order (params_last ones at the end).
std::vector<const AxisDef*> params_axes();
// A case's params block (results files, `plan --json`): every axis's write_params in order.
nlohmann::ordered_json axis_params(const Case& c);
// Equal on every axis that has `same`, except `skip` and the axes it covers.
bool same_on_axes(const Case& a, const Case& b, std::string_view skip = {});

}  // namespace fa2b

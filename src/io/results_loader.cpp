// SPDX-License-Identifier: Apache-2.0
// Results loader: reads what write_results_json writes (schema major 1), ignores unknown
// fields, and names the file and the JSON pointer of anything it cannot use.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/axis_table.h"
#include "io/input_file.h"
#include "io/json_input.h"
#include "io/results_json.h"

namespace fa2b {

using nlohmann::json;

namespace {

constexpr std::string_view kSchemaPrefix = "fa2bench/results/";
constexpr std::string_view kSchemaMajor = "1";

std::string describe(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return fmt::format("string \"{}\"", s);
  }
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer " + v.dump();
  if (v.is_number_float()) return "number " + v.dump();
  return v.type_name();
}

// Reads typed values out of a results document; every error names the file (when there is
// one) and the JSON pointer.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    std::string msg = file_.empty() ? std::string() : file_ + ": ";
    msg += where.empty() ? what : where + ": " + what;
    throw ResultsFileError(msg);
  }
  [[noreturn]] void wrong_type(const std::string& where, const char* expected,
                               const json& v) const {
    fail(where, fmt::format("expected {}, got {}", expected, describe(v)));
  }

  void expect_object(const json& v, const std::string& where) const {
    if (!v.is_object()) wrong_type(where, "an object", v);
  }
  const json& require(const json& obj, const std::string& where, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where + "/" + key, "missing");
    return *it;
  }
  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  std::int64_t to_int(const json& v, const std::string& where) const {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(where, fmt::format("{} does not fit a 64-bit signed integer", u));
      return static_cast<std::int64_t>(u);
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::trunc(d) == d && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
    }
    wrong_type(where, "an integer", v);
  }
  std::uint64_t to_uint(const json& v, const std::string& where) const {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::uint64_t>();
    wrong_type(where, "a non-negative integer", v);
  }
  double to_double(const json& v, const std::string& where) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    wrong_type(where, "a number (or null, \"inf\", \"-inf\")", v);
  }
  std::string to_string(const json& v, const std::string& where) const {
    if (!v.is_string()) wrong_type(where, "a string", v);
    return v.get<std::string>();
  }
  bool to_bool(const json& v, const std::string& where) const {
    if (!v.is_boolean()) wrong_type(where, "a boolean", v);
    return v.get<bool>();
  }

  // A number read, then held to what the field can be: a time, an error, a rate, a ratio of
  // them is never negative (-1 or "-inf" would pass every "< bound" check); settings and raw
  // samples are finite too. Elsewhere NaN (null, "nan") stays: it is how a missing value is
  // written, and the result gate judges a missing median.
  // positive: a fraction of a peak (mfu, bw_frac), written only where known, so a number
  // there is finite and > 0 (0 would claim a case that moved nothing); null still reads as
  // unknown.
  enum class Range { any, nonnegative, finite_nonnegative, positive };
  double in_range(double d, const std::string& where, Range range, const json& v) const {
    if (range == Range::any) return d;
    if (range == Range::positive && !std::isnan(d) && !(std::isfinite(d) && d > 0))
      fail(where, fmt::format("{} is not a finite number > 0; this field is a fraction of a "
                              "device's peak",
                              describe(v)));
    if (std::isnan(d) && range == Range::finite_nonnegative)
      fail(where, fmt::format("{} is not a number; this field is a finite number", describe(v)));
    if (std::isnan(d)) return d;
    if (d < 0) fail(where, fmt::format("{} is negative; this field is >= 0", describe(v)));
    if (range == Range::finite_nonnegative && !std::isfinite(d))
      fail(where, fmt::format("{} is not finite; this field is a finite number", describe(v)));
    return d;
  }
  // An integer at least `min`: bytes and counts are >= 0 (-1 where the schema says "none").
  std::int64_t at_least(const json& v, const std::string& where, std::int64_t min) const {
    const std::int64_t n = to_int(v, where);
    if (n < min && min == 0)
      fail(where, fmt::format("{} is negative; this field is a count or byte size (>= 0)", n));
    if (n < min) {
      fail(where, fmt::format("{} is below {}; this field is {}", n, min,
                              min == 1 ? "a size (>= 1)" : fmt::format(">= {}", min)));
    }
    return n;
  }

  // Required and optional fields of an object at pointer `where`.
  std::int64_t req_int(const json& o, const std::string& where, const char* key) const {
    return to_int(require(o, where, key), where + "/" + key);
  }
  std::string req_string(const json& o, const std::string& where, const char* key) const {
    return to_string(require(o, where, key), where + "/" + key);
  }
  bool req_bool(const json& o, const std::string& where, const char* key) const {
    return to_bool(require(o, where, key), where + "/" + key);
  }
  template <class T>
  void opt_int(const json& o, const std::string& where, const char* key, T& out) const {
    if (const json* v = find(o, key)) out = static_cast<T>(to_int(*v, where + "/" + key));
  }
  void opt_double(const json& o, const std::string& where, const char* key, double& out,
                  Range range = Range::nonnegative) const {
    if (const json* v = find(o, key)) {
      const std::string at = where + "/" + key;
      out = in_range(to_double(*v, at), at, range, *v);
    }
  }
  template <class T>
  void opt_count(const json& o, const std::string& where, const char* key, T& out,
                 std::int64_t min = 0) const {
    if (const json* v = find(o, key)) out = static_cast<T>(at_least(*v, where + "/" + key, min));
  }
  std::int64_t req_size(const json& o, const std::string& where, const char* key) const {
    return at_least(require(o, where, key), where + "/" + key, 1);
  }
  void opt_string(const json& o, const std::string& where, const char* key,
                  std::string& out) const {
    if (const json* v = find(o, key)) out = to_string(*v, where + "/" + key);
  }
  void opt_bool(const json& o, const std::string& where, const char* key, bool& out) const {
    if (const json* v = find(o, key)) out = to_bool(*v, where + "/" + key);
  }
  // An optional array; nullptr when absent.
  const json* opt_array(const json& o, const std::string& where, const char* key) const {
    const json* v = find(o, key);
    if (v && !v->is_array()) wrong_type(where + "/" + key, "an array", *v);
    return v;
  }
  // An optional sub-object; nullptr when absent.
  const json* opt_object(const json& o, const std::string& where, const char* key) const {
    const json* v = find(o, key);
    if (v) expect_object(*v, where + "/" + key);
    return v;
  }
  template <class E, class Parse>
  E enum_value(const std::string& s, const std::string& where, const char* what,
               Parse parse) const {
    const auto e = parse(s);
    if (!e) fail(where, fmt::format("unknown {} \"{}\"", what, s));
    return *e;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The params of a case as the axis table reads them (core/axis_table.h), through the Reader.
class AxisParamsIn final : public ParamsIn {
 public:
  AxisParamsIn(const Reader& rd, const json& p, std::string pointer)
      : rd_(rd), p_(p), pointer_(std::move(pointer)) {}
  const json& params() const override { return p_; }
  const std::string& pointer() const override { return pointer_; }
  const json* find(const json& obj, const char* key) const override { return rd_.find(obj, key); }
  const json& require(const json& obj, const std::string& where, const char* key) const override {
    return rd_.require(obj, where, key);
  }
  std::int64_t to_int(const json& v, const std::string& where) const override {
    return rd_.to_int(v, where);
  }
  std::uint64_t to_uint(const json& v, const std::string& where) const override {
    return rd_.to_uint(v, where);
  }
  double to_double(const json& v, const std::string& where) const override {
    return rd_.to_double(v, where);
  }
  double finite_nonnegative(const json& v, const std::string& where) const override {
    return rd_.in_range(rd_.to_double(v, where), where, Reader::Range::finite_nonnegative, v);
  }
  std::string to_string(const json& v, const std::string& where) const override {
    return rd_.to_string(v, where);
  }
  bool to_bool(const json& v, const std::string& where) const override {
    return rd_.to_bool(v, where);
  }
  std::int64_t at_least(const json& v, const std::string& where, std::int64_t min) const override {
    return rd_.at_least(v, where, min);
  }
  [[noreturn]] void fail(const std::string& where, const std::string& what) const override {
    rd_.fail(where, what);
  }
  [[noreturn]] void wrong_type(const std::string& where, const char* expected,
                               const json& v) const override {
    rd_.wrong_type(where, expected, v);
  }

 private:
  const Reader& rd_;
  const json& p_;
  std::string pointer_;
};

CaseResult read_case(const Reader& rd, const json& j, const std::string& at) {
  rd.expect_object(j, at);
  CaseResult r;
  Case& c = r.c;
  c.backend = rd.req_string(j, at, "backend");
  c.role = c.backend;
  rd.opt_string(j, at, "role", c.role);
  rd.opt_string(j, at, "sweep", c.sweep);

  const std::string pp = at + "/params";
  const json& p = rd.require(j, at, "params");
  rd.expect_object(p, pp);
  // Every axis reads its own keys, in the order the writer wrote them.
  const AxisParamsIn in(rd, p, pp);
  for (const AxisDef* a : params_axes()) a->read_params(in, c);

  const std::string mp = at + "/measure";
  if (const json* m = rd.opt_object(j, at, "measure")) {
    MeasureSettings& ms = c.measure;
    rd.opt_count(*m, mp, "warmup", ms.warmup);
    rd.opt_count(*m, mp, "min_samples", ms.min_samples);
    rd.opt_count(*m, mp, "max_samples", ms.max_samples);
    rd.opt_double(*m, mp, "target_rel_spread", ms.target_rel_spread,
                  Reader::Range::finite_nonnegative);
    rd.opt_double(*m, mp, "max_time_s", ms.max_time_s, Reader::Range::finite_nonnegative);
    if (const json* v = rd.find(*m, "seed")) ms.seed = rd.to_uint(*v, mp + "/seed");
    rd.opt_bool(*m, mp, "l2_flush", ms.l2_flush);
    rd.opt_count(*m, mp, "verify_rows", ms.verify_rows);
    if (const json* v = rd.find(*m, "verify")) {
      const auto mode = parse_verify_mode(rd.to_string(*v, mp + "/verify"));
      if (!mode) rd.fail(mp + "/verify", "expected \"sample\", \"full\" or \"none\"");
      ms.verify = *mode;
    }
    // Written as a count; a hand-edited file may say true or false as the config does.
    if (const json* v = rd.find(*m, "keep_samples")) {
      if (v->is_boolean()) {
        ms.keep_samples = v->get<bool>() ? kMaxKeptSamples : 0;
      } else {
        rd.opt_count(*m, mp, "keep_samples", ms.keep_samples);
      }
    }
    rd.opt_bool(*m, mp, "drop_throttled", ms.drop_throttled);
    rd.opt_bool(*m, mp, "profile_once", ms.profile_once);
    rd.opt_double(*m, mp, "sustained_s", ms.sustained_s, Reader::Range::finite_nonnegative);
    rd.opt_double(*m, mp, "settle_s", ms.settle_s, Reader::Range::finite_nonnegative);
    if (const json* v = rd.find(*m, "inputs")) {
      ms.inputs = rd.enum_value<InputDist>(rd.to_string(*v, mp + "/inputs"), mp + "/inputs",
                                           "input distribution",
                                           [](std::string_view x) { return parse_input_dist(x); });
    }
    if (const json* v = rd.find(*m, "timing")) {
      ms.timing = rd.enum_value<TimingMethod>(
          rd.to_string(*v, mp + "/timing"), mp + "/timing", "timing method",
          [](std::string_view x) { return parse_timing_method(x); });
    }
  }

  rd.opt_string(j, at, "target", r.target);
  rd.opt_count(j, at, "device_index", r.device_index, -1);  // -1: ran on no device
  r.status = rd.enum_value<Status>(rd.req_string(j, at, "status"), at + "/status", "status",
                                   [](std::string_view x) { return parse_status(x); });
  rd.opt_string(j, at, "reason", r.reason);

  const std::string tp = at + "/time_ms";
  if (const json* t = rd.opt_object(j, at, "time_ms")) {
    TimeStats& ts = r.time;
    rd.opt_double(*t, tp, "median", ts.median);
    rd.opt_double(*t, tp, "mean", ts.mean);
    rd.opt_double(*t, tp, "min", ts.min);
    rd.opt_double(*t, tp, "max", ts.max);
    rd.opt_double(*t, tp, "p10", ts.p10);
    rd.opt_double(*t, tp, "p90", ts.p90);
    rd.opt_double(*t, tp, "stdev", ts.stdev);
    rd.opt_count(*t, tp, "n", ts.n);
    rd.opt_double(*t, tp, "first", ts.first_ms);
    if (const json* kept = rd.opt_array(*t, tp, "samples")) {
      for (std::size_t i = 0; i < kept->size(); ++i) {
        const std::string where = fmt::format("{}/samples/{}", tp, i);
        const double x = rd.to_double((*kept)[i], where);
        ts.samples.push_back(rd.in_range(x, where, Reader::Range::finite_nonnegative, (*kept)[i]));
      }
    }
    if (const json* flagged = rd.opt_array(*t, tp, "throttled_at")) {
      for (std::size_t i = 0; i < flagged->size(); ++i) {
        const std::string where = fmt::format("{}/throttled_at/{}", tp, i);
        const std::int64_t index = rd.to_int((*flagged)[i], where);
        if (index < 0 || index >= kMaxKeptSamples)
          rd.fail(where, fmt::format("expected 0 to {}", kMaxKeptSamples - 1));
        ts.throttled_at.push_back(static_cast<int>(index));
      }
    }
    rd.opt_count(*t, tp, "dropped_throttled", ts.dropped_throttled, -1);  // -1: not recorded
    rd.opt_string(*t, tp, "dropped_throttled_absent", ts.dropped_throttled_absent);
    rd.opt_count(*t, tp, "retaken_throttled", ts.retaken_throttled, -1);  // -1: not recorded
    rd.opt_double(*t, tp, "cooldown_s", ts.cooldown_s, Reader::Range::finite_nonnegative);
    rd.opt_count(*t, tp, "graph_launches", ts.graph_launches);
    rd.opt_count(*t, tp, "cold_copies", ts.cold_copies);
    rd.opt_count(*t, tp, "cold_copy_bytes", ts.cold_copy_bytes);
  }
  // Kept as written (merge and compare pass it through); a reader needs no field of it.
  if (const json* g = rd.opt_object(j, at, "gpu_state")) r.gpu_state = *g;
  rd.opt_double(j, at, "flops", r.flops);
  rd.opt_double(j, at, "prepare_ms", r.prepare_ms);
  if (const json* w = rd.opt_object(j, at, "wall_ms")) {
    const std::string wp = at + "/wall_ms";
    rd.opt_double(*w, wp, "setup", r.wall_ms.setup);
    rd.opt_double(*w, wp, "verify", r.wall_ms.verify);
    rd.opt_double(*w, wp, "timing", r.wall_ms.timing);
    rd.opt_double(*w, wp, "total", r.wall_ms.total);
  }
  rd.opt_string(j, at, "backend_info", r.backend_info);
  rd.opt_string(j, at, "repro", r.repro);
  rd.opt_double(j, at, "tflops", r.tflops);
  rd.opt_double(j, at, "gbps", r.gbps);
  rd.opt_double(j, at, "pct_of_peak_flops", r.pct_of_peak_flops);
  rd.opt_double(j, at, "pct_of_peak_bw", r.pct_of_peak_bw);
  rd.opt_double(j, at, "mfu", r.mfu, Reader::Range::positive);
  rd.opt_double(j, at, "bw_frac", r.bw_frac, Reader::Range::positive);
  rd.opt_double(j, at, "copy_bw_gbs", r.copy_bw_gbs);
  rd.opt_double(j, at, "pct_of_copy_bw", r.pct_of_copy_bw);

  const std::string mem = at + "/memory";
  if (const json* m = rd.opt_object(j, at, "memory")) {
    rd.opt_count(*m, mem, "peak_bytes", r.memory.peak_bytes);
    rd.opt_count(*m, mem, "workspace_bytes", r.memory.workspace_bytes);
    rd.opt_count(*m, mem, "predicted_bytes", r.memory.predicted_bytes);
    rd.opt_count(*m, mem, "requested_bytes", r.memory.requested_bytes);
    rd.opt_count(*m, mem, "saved_bytes", r.memory.saved_bytes);
    if (const json* ex = rd.opt_array(*m, mem, "predicted_bytes_excludes")) {
      for (std::size_t i = 0; i < ex->size(); ++i) {
        r.memory.predicted_excludes.push_back(
            rd.to_string((*ex)[i], mem + "/predicted_bytes_excludes/" + std::to_string(i)));
      }
    }
  } else {
    r.memory.recorded = false;
  }
  const std::string ap = at + "/accuracy";
  if (const json* a = rd.opt_object(j, at, "accuracy")) {
    Accuracy& acc = r.accuracy;
    rd.opt_double(*a, ap, "max_abs_err", acc.max_abs_err);
    rd.opt_double(*a, ap, "mean_abs_err", acc.mean_abs_err);
    rd.opt_double(*a, ap, "rel_l2_err", acc.rel_l2_err);
    acc.nonfinite_recorded = rd.find(*a, "nonfinite") != nullptr;
    rd.opt_count(*a, ap, "nonfinite", acc.nonfinite);
    rd.opt_count(*a, ap, "rows_checked", acc.rows_checked);
    // Older writers had no "checked": a case with compared rows was checked.
    acc.checked = acc.rows_checked > 0;
    rd.opt_bool(*a, ap, "checked", acc.checked);
    rd.opt_bool(*a, ap, "grads_checked", acc.grads_checked);
    for (Grad g : kGrads) {
      const std::string suffix = "_" + std::string(to_string(g));
      rd.opt_double(*a, ap, ("max_abs_err" + suffix).c_str(), acc.of(g).max_abs_err);
      rd.opt_double(*a, ap, ("mean_abs_err" + suffix).c_str(), acc.of(g).mean_abs_err);
      rd.opt_double(*a, ap, ("rel_l2_err" + suffix).c_str(), acc.of(g).rel_l2_err);
    }
    rd.opt_count(*a, ap, "nonfinite_grad", acc.grad_nonfinite);
    rd.opt_count(*a, ap, "key_rows_checked", acc.key_rows_checked);
  } else {
    r.accuracy.nonfinite_recorded = false;
  }
  return r;
}

Verdict read_verdict(const Reader& rd, const json& j, const std::string& at) {
  rd.expect_object(j, at);
  Verdict v;
  v.name = rd.req_string(j, at, "name");
  rd.opt_string(j, at, "kind", v.kind);
  const std::string verdict = rd.req_string(j, at, "verdict");
  if (verdict == "pass") {
    v.verdict = VerdictKind::pass;
  } else if (verdict == "fail") {
    v.verdict = VerdictKind::fail;
  } else if (verdict == "error") {
    v.verdict = VerdictKind::error;
  } else if (verdict == "deferred") {
    v.verdict = VerdictKind::deferred;
  } else if (verdict == "skipped") {
    v.verdict = VerdictKind::skipped;
  } else {
    rd.fail(at + "/verdict",
            fmt::format("unknown verdict \"{}\" (pass, fail, error, deferred, skipped)", verdict));
  }
  rd.opt_double(j, at, "measured", v.measured, Reader::Range::any);  // a check's own quantity
  rd.opt_string(j, at, "threshold", v.threshold);
  rd.opt_string(j, at, "detail", v.detail);
  return v;
}

// A case is one (sweep, id), as the result gate, resume and merge key it. Two copies in one
// file would let each reader pick its own (compare took the first, a check saw both), so a
// file holding one twice is refused whichever command reads it.
void refuse_duplicate_cases(const Reader& rd, const std::vector<CaseResult>& cases) {
  std::map<std::pair<std::string, std::string>, std::size_t> first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i].c;
    const auto [it, added] = first.emplace(std::make_pair(c.sweep, c.id()), i);
    if (!added) {
      rd.fail(fmt::format("/cases/{}", i),
              fmt::format("duplicate case id \"{}\" (sweep \"{}\"), also at /cases/{}; a results "
                          "file holds each case once",
                          c.id(), c.sweep, it->second));
    }
  }
}

ResultSet read_result_set(const Reader& rd, const json& j) {
  if (!j.is_object()) {
    rd.fail("", fmt::format("expected a JSON object at the top level, got {}", describe(j)));
  }
  ResultSet rs;
  const json& schema = rd.require(j, "", "schema");
  rs.schema = rd.to_string(schema, "/schema");
  const std::string_view sv = rs.schema;
  const bool ours = sv.substr(0, kSchemaPrefix.size()) == kSchemaPrefix;
  const std::string_view version = ours ? sv.substr(kSchemaPrefix.size()) : std::string_view();
  if (!ours || version.substr(0, version.find('.')) != kSchemaMajor) {
    rd.fail("",
            fmt::format("unknown schema \"{}\" (this build reads {})", rs.schema, kResultsSchema));
  }
  if (const json* v = rd.find(j, "tool")) rs.tool = *v;
  if (const json* v = rd.find(j, "host")) rs.host = *v;
  if (const json* v = rd.find(j, "device")) rs.device = *v;
  rd.opt_string(j, "", "target", rs.target);
  if (const json* cfg = rd.opt_object(j, "", "config")) {
    rd.opt_string(*cfg, "/config", "path", rs.config_path);
    rd.opt_string(*cfg, "/config", "sha256", rs.config_sha256);
    if (const json* v = rd.find(*cfg, "echo")) rs.config_echo = *v;
  }
  const json& cases = rd.require(j, "", "cases");
  if (!cases.is_array()) rd.wrong_type("/cases", "an array", cases);
  for (std::size_t i = 0; i < cases.size(); ++i)
    rs.cases.push_back(read_case(rd, cases[i], fmt::format("/cases/{}", i)));
  refuse_duplicate_cases(rd, rs.cases);
  if (const json* checks = rd.find(j, "checks")) {
    if (!checks->is_array()) rd.wrong_type("/checks", "an array", *checks);
    for (std::size_t i = 0; i < checks->size(); ++i)
      rs.checks.push_back(read_verdict(rd, (*checks)[i], fmt::format("/checks/{}", i)));
  }
  rd.opt_bool(j, "", "interrupted", rs.interrupted);
  if (const json* shard = rd.opt_object(j, "", "shard")) {
    const std::int64_t index = rd.req_int(*shard, "/shard", "index");
    const std::int64_t count = rd.req_int(*shard, "/shard", "count");
    if (count < 1 || count > std::numeric_limits<int>::max() || index < 0 || index >= count) {
      rd.fail("/shard", fmt::format("index {} of count {} is not a shard (0 <= index < count)",
                                    index, count));
    }
    rs.shard_index = static_cast<int>(index);
    rs.shard_count = static_cast<int>(count);
  }
  rd.opt_string(j, "", "filter", rs.filter);
  rd.opt_double(j, "", "wall_s", rs.wall_s);
  if (const json* clocks = rd.opt_object(j, "", "clocks")) rs.clocks = *clocks;
  if (const json* run = rd.opt_object(j, "", "run"))
    rd.opt_bool(*run, "/run", "profile_once", rs.profile_once);
  return rs;
}

// 1-based line and column of byte offset `pos` (0-based) in `text`.
}  // namespace

CaseResult case_result_from_json(const json& j) {
  return read_case(Reader(""), j, "");
}

ResultSet result_set_from_json(const json& j) {
  return read_result_set(Reader(""), j);
}

json read_results_document(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw ResultsFileError(e.what());
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ResultsFileError(path + ": empty file");

  json j;
  try {
    j = parse_json_input(text, path);
  } catch (const JsonInputError& e) {
    using Kind = JsonInputError::Kind;
    const char* what = e.kind() == Kind::truncated ? "truncated JSON: "
                       : e.kind() == Kind::syntax  ? "not valid JSON: "
                                                   : "";
    throw ResultsFileError(fmt::format("{}: line {}, column {}{}: {}{}", path, e.line(), e.column(),
                                       e.pointer().empty() ? "" : " (at " + e.pointer() + ")", what,
                                       e.detail()));
  }
  return j;
}

bool is_model_results(const json& j) {
  return j.is_object() && j.contains("kind") && j["kind"] == kModelResultsKind;
}

ResultSet load_results(const std::string& path) {
  const json j = read_results_document(path);
  if (is_model_results(j)) {
    // Without this the reader would only say "/schema: missing", which hides what the file is.
    throw ResultsFileError(
        fmt::format("{}: is a transformer results file (kind \"{}\"); this "
                    "command reads attention results (schema {})",
                    path, kModelResultsKind, kResultsSchema));
  }
  return read_result_set(Reader(path), j);
}

}  // namespace fa2b

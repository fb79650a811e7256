// SPDX-License-Identifier: Apache-2.0
// Model results loader: the fields `compare` and `check` judge by must be there and be finite
// on ok cases, since a missing step time read as 0 would look like an infinitely fast backend.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "io/model_results.h"
#include "io/results_json.h"

namespace fa2b {

using nlohmann::json;

namespace {

class ModelReader {
 public:
  explicit ModelReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ResultsFileError(fmt::format("{}: {}: {}", file_, where.empty() ? "/" : where, what));
  }
  const json& require(const json& o, const std::string& where, const char* key) const {
    const auto it = o.find(key);
    if (it == o.end()) fail(where + "/" + key, "missing");
    return *it;
  }
  const json& object(const json& o, const std::string& where, const char* key) const {
    const json& v = require(o, where, key);
    if (!v.is_object()) fail(where + "/" + key, "expected an object, got " + v.dump());
    return v;
  }
  std::string string(const json& o, const std::string& where, const char* key) const {
    const json& v = require(o, where, key);
    if (!v.is_string()) fail(where + "/" + key, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  // A number that may be absent (NaN). null is what nlohmann writes for NaN and inf: it is
  // accepted only where `finite` is false (cases that are not ok).
  double number(const json& o, const std::string& where, const char* key, bool finite) const {
    const auto it = o.find(key);
    if (it == o.end()) return kNaN;
    if (it->is_null() && !finite) return kNaN;
    if (!it->is_number()) fail(where + "/" + key, "expected a number, got " + it->dump());
    const double v = it->get<double>();
    if (finite && !std::isfinite(v)) fail(where + "/" + key, "not a finite number");
    return v;
  }
  // A time, a throughput or a FLOP rate: never negative (-1 would pass every "<" check).
  double nonnegative(const json& o, const std::string& where, const char* key, bool finite) const {
    const double v = number(o, where, key, finite);
    if (v < 0) fail(where + "/" + key, o.at(key).dump() + " is negative; this field is >= 0");
    return v;
  }
  // Bytes and counts: integers >= 0 (absent: 0).
  std::int64_t integer(const json& o, const std::string& where, const char* key) const {
    const auto it = o.find(key);
    if (it == o.end()) return 0;
    if (!it->is_number_integer()) fail(where + "/" + key, "expected an integer, got " + it->dump());
    if (it->is_number_unsigned() &&
        it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(where + "/" + key, it->dump() + " does not fit a 64-bit signed integer");
    }
    const std::int64_t n = it->get<std::int64_t>();
    if (n < 0) {
      fail(where + "/" + key,
           fmt::format("{} is negative; this field is a count or byte size (>= 0)", n));
    }
    return n;
  }

 private:
  std::string file_;
};

const json& empty_object() {
  static const json e = json::object();
  return e;
}

ModelCaseRecord read_case(const ModelReader& rd, const json& j, const std::string& at) {
  if (!j.is_object()) rd.fail(at, "expected an object, got " + j.dump());
  ModelCaseRecord r;
  r.id = rd.string(j, at, "id");
  r.backend = rd.string(j, at, "backend");
  if (r.id.rfind(r.backend + "/", 0) != 0 || r.id.size() == r.backend.size() + 1) {
    rd.fail(at + "/id",
            fmt::format("\"{}\" does not start with its backend \"{}/\"", r.id, r.backend));
  }
  r.shape_key = r.id.substr(r.backend.size() + 1);
  r.role = j.contains("role") ? rd.string(j, at, "role") : r.backend;
  r.sweep = j.contains("sweep") ? rd.string(j, at, "sweep") : "";
  const std::string status = rd.string(j, at, "status");
  const auto parsed = parse_status(status);
  if (!parsed) {
    rd.fail(at + "/status",
            fmt::format("unknown status \"{}\" (ok, unsupported, oom, error, timeout)", status));
  }
  r.status = *parsed;
  r.reason = j.contains("reason") ? rd.string(j, at, "reason") : "";
  r.params = rd.object(j, at, "params");
  if (!r.params.contains("T") || !r.params["T"].is_number_integer())
    rd.fail(at + "/params/T", "missing or not an integer");

  const bool ok = r.status == Status::ok;
  // An ok case must carry what it is judged by; the others may have been stopped early.
  const json& mem = ok ? rd.object(j, at, "memory") : j.value("memory", empty_object());
  const json& timing = ok ? rd.object(j, at, "timing") : j.value("timing", empty_object());
  const json& metrics = ok ? rd.object(j, at, "metrics") : j.value("metrics", empty_object());
  const std::string mp = at + "/memory", tp = at + "/timing", xp = at + "/metrics";
  r.peak_bytes = rd.integer(mem, mp, "peak_bytes");
  r.predicted_bytes = rd.integer(mem, mp, "predicted_bytes");
  r.requested_bytes = rd.integer(mem, mp, "requested_bytes");
  r.forward_ms = rd.nonnegative(timing, tp, "forward_ms", ok);
  r.backward_ms = rd.nonnegative(timing, tp, "backward_ms", ok);
  r.optimizer_ms = rd.nonnegative(timing, tp, "optimizer_ms", ok);
  r.step_ms = rd.nonnegative(timing, tp, "step_ms", ok);
  r.steps = rd.integer(timing, tp, "steps");
  r.tokens_per_s = rd.nonnegative(metrics, xp, "tokens_per_s", ok);
  r.tflops = rd.nonnegative(metrics, xp, "tflops", ok);
  r.loss_first = rd.number(metrics, xp, "loss_first", ok);
  r.loss_last = rd.number(metrics, xp, "loss_last", ok);
  if (ok) {
    if (!(r.step_ms > 0)) rd.fail(tp + "/step_ms", "an ok case needs a step time > 0");
    if (r.peak_bytes <= 0) rd.fail(mp + "/peak_bytes", "an ok case needs a peak > 0");
    if (!(r.tokens_per_s > 0)) rd.fail(xp + "/tokens_per_s", "an ok case needs tokens/s > 0");
  }
  return r;
}

}  // namespace

ModelResultSet model_result_set_from_json(const json& j, const std::string& file) {
  const ModelReader rd(file);
  if (!j.is_object()) rd.fail("", "expected a JSON object at the top level");
  if (!is_model_results(j)) {
    rd.fail("/kind", fmt::format("expected \"{}\", got {}", kModelResultsKind,
                                 j.contains("kind") ? j["kind"].dump() : "none"));
  }
  if (j.value("schema_version", json()) != 1) {
    rd.fail("/schema_version",
            fmt::format("expected 1 (this build reads version 1), got {}",
                        j.contains("schema_version") ? j["schema_version"].dump() : "none"));
  }
  ModelResultSet rs;
  rs.file = file;
  if (j.contains("config")) rs.config_path = rd.string(j, "", "config");
  if (j.contains("config_sha256")) rs.config_sha256 = rd.string(j, "", "config_sha256");
  if (j.contains("target")) rs.target = rd.string(j, "", "target");
  rs.device = j.value("device", json());
  rs.tool = j.value("tool", json());
  if (j.contains("interrupted")) {
    if (!j["interrupted"].is_boolean()) rd.fail("/interrupted", "expected a boolean");
    rs.interrupted = j["interrupted"].get<bool>();
  }
  const json& cases = rd.require(j, "", "cases");
  if (!cases.is_array()) rd.fail("/cases", "expected an array");
  // One (sweep, id) once: two copies would let compare and check each judge their own.
  std::map<std::pair<std::string, std::string>, std::size_t> first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string at = fmt::format("/cases/{}", i);
    rs.cases.push_back(read_case(rd, cases[i], at));
    const ModelCaseRecord& r = rs.cases.back();
    const auto [it, added] = first.emplace(std::make_pair(r.sweep, r.id), i);
    if (!added) {
      rd.fail(at, fmt::format("duplicate case id \"{}\" (sweep \"{}\"), also at /cases/{}; a "
                              "results file holds each case once",
                              r.id, r.sweep, it->second));
    }
  }
  if (j.contains("config_echo")) rs.config_echo = j["config_echo"];
  if (j.contains("checks")) {
    if (!j["checks"].is_array()) rd.fail("/checks", "expected an array");
    rs.checks = j["checks"];
  }
  return rs;
}

const std::vector<std::string>& model_metric_names() {
  static const std::vector<std::string> names = {"peak_bytes", "predicted_bytes", "requested_bytes",
                                                 "forward_ms", "backward_ms",     "optimizer_ms",
                                                 "step_ms",    "tokens_per_s",    "tflops",
                                                 "loss_first", "loss_last"};
  return names;
}

std::optional<double> model_metric_value(const ModelCaseRecord& r, const std::string& name) {
  // Memory is recorded whatever the status (an oom's requested bytes are the point of it).
  if (name == "peak_bytes") return static_cast<double>(r.peak_bytes);
  if (name == "predicted_bytes") return static_cast<double>(r.predicted_bytes);
  if (name == "requested_bytes") return static_cast<double>(r.requested_bytes);
  if (r.status != Status::ok) return std::nullopt;
  const std::pair<const char*, double> timed[] = {
      {"forward_ms", r.forward_ms},     {"backward_ms", r.backward_ms},
      {"optimizer_ms", r.optimizer_ms}, {"step_ms", r.step_ms},
      {"tokens_per_s", r.tokens_per_s}, {"tflops", r.tflops},
      {"loss_first", r.loss_first},     {"loss_last", r.loss_last}};
  for (const auto& [n, v] : timed)
    if (name == n) return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
  return std::nullopt;
}

ModelResultSet load_model_results(const std::string& path) {
  return model_result_set_from_json(read_results_document(path), path);
}

}  // namespace fa2b

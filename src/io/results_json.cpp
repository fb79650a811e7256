// SPDX-License-Identifier: Apache-2.0
// JSON results writer (schema "fa2bench/results/1"; see docs/results_schema.md).
#include "io/results_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/axis_table.h"
#include "core/backend_catalog.h"
#include "core/copy_bw.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "io/atomic_file.h"
#include "io/json_detail.h"

namespace fa2b {

using json_detail::number_json;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// A free-form block (tool, host, device, config echo) in the output's json type; null -> {}.
// Converted, not dumped and parsed again: the block was read through parse_json_input
// (nesting limited) or built here, and the writer's dump replaces any invalid UTF-8.
template <class J>
J block(const json& j) {
  if (j.is_null()) return J::object();
  return J(j);
}

// The case's shape, in the order results files list it: the axis table's params
// (core/axis_table.h), each axis writing its keys.
template <class J>
J params_block(const Case& c) {
  return J(axis_params(c));
}

// A variable-length batch's token counts and FLOPs (results and `plan` alike).
template <class J>
J varlen_block(const Case& c) {
  return {{"total_tokens", total_tokens(c)},
          {"padding_ratio", number_json<J>(padding_ratio(c))},
          {"useful_flops", number_json<J>(case_flops(c))},
          {"executed_flops", number_json<J>(executed_flops(c))}};
}

// The measuring settings a case ran with, as results, `plan` and `tune` write them.
template <class J>
J measure_block(const MeasureSettings& m) {
  J j = {{"warmup", m.warmup},
         {"min_samples", m.min_samples},
         {"max_samples", m.max_samples},
         {"target_rel_spread", number_json<J>(m.target_rel_spread)},
         {"max_time_s", number_json<J>(m.max_time_s)},
         {"seed", m.seed},
         {"inputs", to_string(m.inputs)},
         {"l2_flush", m.l2_flush},
         {"verify_rows", m.verify_rows},
         {"keep_samples", m.keep_samples},
         {"drop_throttled", m.drop_throttled}};
  if (m.profile_once) j["profile_once"] = true;                           // absent: a measured case
  if (m.verify != VerifyMode::sample) j["verify"] = to_string(m.verify);  // absent: sample
  if (m.sustained_s > 0) j["sustained_s"] = number_json<J>(m.sustained_s);  // absent: off
  if (m.settle_s > 0) j["settle_s"] = number_json<J>(m.settle_s);           // absent: off
  if (m.timing != TimingMethod::events) j["timing"] = to_string(m.timing);  // absent: events
  return j;
}

template <class J>
J case_json(const CaseResult& r) {
  const Case& c = r.c;
  const MeasureSettings& m = c.measure;
  const TimeStats& t = r.time;
  const Accuracy& a = r.accuracy;
  J j = J::object();
  j["id"] = c.id();
  j["sweep"] = c.sweep;
  j["backend"] = c.backend;
  j["role"] = c.role;
  j["params"] = params_block<J>(c);
  j["measure"] = measure_block<J>(m);
  j["target"] = r.target;
  if (r.device_index >= 0) j["device_index"] = r.device_index;
  j["status"] = to_string(r.status);
  j["reason"] = r.reason;
  j["time_ms"] = {{"median", number_json<J>(t.median)}, {"mean", number_json<J>(t.mean)},
                  {"min", number_json<J>(t.min)},       {"max", number_json<J>(t.max)},
                  {"p10", number_json<J>(t.p10)},       {"p90", number_json<J>(t.p90)},
                  {"stdev", number_json<J>(t.stdev)},   {"n", t.n},
                  {"first", number_json<J>(t.first_ms)}};
  if (!t.samples.empty()) {
    J kept = J::array();
    for (double x : t.samples) kept.push_back(number_json<J>(x));
    j["time_ms"]["samples"] = kept;
  }
  if (!t.throttled_at.empty()) j["time_ms"]["throttled_at"] = t.throttled_at;
  if (t.dropped_throttled >= 0) j["time_ms"]["dropped_throttled"] = t.dropped_throttled;
  if (!t.dropped_throttled_absent.empty())
    j["time_ms"]["dropped_throttled_absent"] = t.dropped_throttled_absent;
  if (t.retaken_throttled >= 0) {
    j["time_ms"]["retaken_throttled"] = t.retaken_throttled;
    j["time_ms"]["cooldown_s"] = number_json<J>(t.cooldown_s);
  }
  if (t.graph_launches > 0) j["time_ms"]["graph_launches"] = t.graph_launches;
  if (t.cold_copies > 0) {
    j["time_ms"]["cold_copies"] = t.cold_copies;
    j["time_ms"]["cold_copy_bytes"] = t.cold_copy_bytes;
  }
  j["flops"] = number_json<J>(r.flops);
  if (c.varlen()) j["varlen"] = varlen_block<J>(c);
  j["tflops"] = number_json<J>(r.tflops);
  j["gbps"] = number_json<J>(r.gbps);
  // Only where the device has a known peak, so a missing one is never read as 0%.
  if (std::isfinite(r.pct_of_peak_flops)) j["pct_of_peak_flops"] = r.pct_of_peak_flops;
  if (std::isfinite(r.pct_of_peak_bw)) j["pct_of_peak_bw"] = r.pct_of_peak_bw;
  if (std::isfinite(r.mfu)) j["mfu"] = r.mfu;
  if (std::isfinite(r.bw_frac)) j["bw_frac"] = r.bw_frac;
  if (std::isfinite(r.copy_bw_gbs)) j["copy_bw_gbs"] = r.copy_bw_gbs;
  if (std::isfinite(r.pct_of_copy_bw)) j["pct_of_copy_bw"] = r.pct_of_copy_bw;
  j["prepare_ms"] = number_json<J>(r.prepare_ms);
  if (std::isfinite(r.wall_ms.total)) {
    j["wall_ms"] = {{"setup", number_json<J>(r.wall_ms.setup)},
                    {"verify", number_json<J>(r.wall_ms.verify)},
                    {"timing", number_json<J>(r.wall_ms.timing)},
                    {"total", number_json<J>(r.wall_ms.total)}};
  }
  if (!r.backend_info.empty()) j["backend_info"] = r.backend_info;
  if (!r.repro.empty()) j["repro"] = r.repro;
  j["memory"] = {{"peak_bytes", r.memory.peak_bytes},
                 {"workspace_bytes", r.memory.workspace_bytes},
                 {"predicted_bytes", r.memory.predicted_bytes},
                 {"requested_bytes", r.memory.requested_bytes}};
  // What predicted_bytes leaves out (cudnn's plan workspaces); absent when it is exact.
  if (!r.memory.predicted_excludes.empty()) {
    J excludes = J::array();
    for (const std::string& e : r.memory.predicted_excludes) excludes.push_back(e);
    j["memory"]["predicted_bytes_excludes"] = excludes;
  }
  j["accuracy"] = {{"checked", a.checked},
                   {"max_abs_err", number_json<J>(a.max_abs_err)},
                   {"mean_abs_err", number_json<J>(a.mean_abs_err)},
                   {"rel_l2_err", number_json<J>(a.rel_l2_err)},
                   {"nonfinite", a.nonfinite},
                   {"rows_checked", a.rows_checked}};
  if (!r.gpu_state.is_null()) j["gpu_state"] = block<J>(r.gpu_state);
  // Training modes only, so forward results stay as they were.
  if (runs_backward(c.mode)) {
    j["memory"]["saved_bytes"] = r.memory.saved_bytes;
    J& acc = j["accuracy"];
    acc["grads_checked"] = a.grads_checked;
    for (Grad g : kGrads) {
      const std::string suffix = "_" + std::string(to_string(g));
      acc["max_abs_err" + suffix] = number_json<J>(a.of(g).max_abs_err);
      acc["mean_abs_err" + suffix] = number_json<J>(a.of(g).mean_abs_err);
      acc["rel_l2_err" + suffix] = number_json<J>(a.of(g).rel_l2_err);
    }
    acc["nonfinite_grad"] = a.grad_nonfinite;
    acc["key_rows_checked"] = a.key_rows_checked;
  }
  return j;
}

template <class J>
J verdict_json(const Verdict& v) {
  J j = J::object();
  j["name"] = v.name;
  j["kind"] = v.kind;
  j["verdict"] = to_string(v.verdict);
  j["measured"] = number_json<J>(v.measured);
  j["threshold"] = v.threshold;
  j["detail"] = v.detail;
  return j;
}

template <class J>
J conventions() {
  J j = J::object();
  j["flops"] =
      "forward 4*B*H*T_q*T_k*D, halved when causal (2*B*H*T_q*T_k*(D + D_v) where params.D_v "
      "gives V and O their own head dim); with a sliding window (params.window other "
      "than [-1, -1]) 4*B*H*D per visible (query row, key) pair instead, causal intersected "
      "with the window; params.mode bwd counts 2.5x the forward, fwd_bwd 3.5x "
      "(flash-attention convention). A variable-length batch (params.lengths) counts its real "
      "tokens only: the sum over its sequences of each one's FLOPs at its own length (useful "
      "FLOPs), whatever its packing";
  j["varlen"] =
      "variable-length batches only: total_tokens = sum of params.lengths; padding_ratio = B * "
      "max(lengths) / total_tokens (token slots of the padded batch per real token, the same "
      "for both packings); useful_flops = flops; executed_flops = what the kernels compute: "
      "padded, the B x max(lengths) shape's FLOPs (padding included), packed, useful_flops. "
      "tflops is on useful FLOPs; gbps and the memory on the tensors the case holds: a packed "
      "batch's total_tokens rows, a padded one's B * max(lengths)";
  j["tflops"] = "flops / median time of the timed region, 1e12 per second";
  j["gbps"] =
      "minimal traffic (forward: Q, K, V read once, O and the float32 LSE written once; "
      "backward: Q, K, V, O, dO, LSE read once, dQ, dK, dV written once; fwd_bwd: both) / "
      "median time, 1e9 bytes per second";
  j["time_ms"] =
      "timed region only, milliseconds (CUDA events on the GPU target, a steady clock on the "
      "CPU target); L2 flushed before each sample when measure.l2_flush; 'first' is the very "
      "first launch, not one of the samples. params.mode bwd times the backward alone (its "
      "forward ran once before, untimed); fwd_bwd times forward and backward together";
  j["pct_of_peak_flops"] =
      "100 * tflops / the device's dense tensor peak for the case's dtype (device.peak_tflops, "
      "vendor data sheets); pct_of_peak_bw: 100 * gbps / device.peak_bw_gbs; absent where the "
      "device or dtype has no peak (device.peaks_absent says why)";
  j["mfu"] =
      "tflops / the device's dense tensor peak for the case's dtype (device.peak_tflops): "
      "pct_of_peak_flops as a fraction; bw_frac: gbps / device.peak_bw_gbs (the data sheet's "
      "memory bandwidth, not the measured copy_bw_gbs); each absent where the device or dtype "
      "has no peak";
  j["repro"] =
      "the fa2bench sweep command line (POSIX shell quoting) that re-runs this case alone: the "
      "sweep's config, --set, --backends, --inputs, --memory-budget, --case-timeout and "
      "--profile-once as given, its target, and --filter matching the case's id exactly; add "
      "--out";
  j["pct_of_copy_bw"] =
      "100 * gbps / copy_bw_gbs, the copy bandwidth the process running the case measured at "
      "its start (" +
      copy_bw_method() +
      "; device.copy_bw_gbs is the median over the cases); absent on the CPU target";
  j["peak_bytes"] = "tracked allocations during the case, inputs and outputs included";
  j["workspace_bytes"] = "tracked peak beyond Q, K, V, O and LSE (and dO, dQ, dK, dV)";
  j["saved_bytes"] =
      "training modes: predicted bytes the forward keeps for the backward; the float32 LSE "
      "(O is an output anyway and not counted), plus P in the input dtype for " +
      catalog_names_prose(materialises_scores);
  j["predicted_bytes"] =
      "the shape algebra's prediction of peak_bytes on the device that ran the case (fa2's "
      "split-KV workspace from its multiprocessors included): equal to peak_bytes for every ok "
      "case unless memory.predicted_bytes_excludes names what it leaves out (\"cudnn "
      "workspace\": cuDNN's plans size theirs once built)";
  j["requested_bytes"] = "status oom: the size of the allocation that failed";
  j["accuracy"] =
      "float64 CPU reference on accuracy.rows_checked query rows; nonfinite counts the whole "
      "output. Training modes: dQ on the same query rows, dK and dV on key_rows_checked key "
      "rows, with a seeded random dO; nonfinite_grad counts the whole of dQ, dK and dV";
  j["numbers"] = "NaN is written as null, +inf and -inf as the strings \"inf\" and \"-inf\"";
  return j;
}

template <class J>
J summary(const ResultSet& rs) {
  std::size_t by_status[5] = {0, 0, 0, 0, 0};
  for (const CaseResult& r : rs.cases) ++by_status[static_cast<int>(r.status)];
  J s = J::object();
  s["cases"] = rs.cases.size();
  for (Status st : {Status::ok, Status::unsupported, Status::oom, Status::error, Status::timeout})
    s[std::string(to_string(st))] = by_status[static_cast<int>(st)];
  std::size_t pass = 0, fail = 0, error = 0, deferred = 0, skipped = 0;
  for (const Verdict& v : rs.checks) {
    if (v.verdict == VerdictKind::pass) ++pass;
    if (v.verdict == VerdictKind::fail) ++fail;
    if (v.verdict == VerdictKind::error) ++error;
    if (v.verdict == VerdictKind::deferred) ++deferred;
    if (v.verdict == VerdictKind::skipped) ++skipped;
  }
  s["checks_pass"] = pass;
  s["checks_fail"] = fail;
  s["checks_error"] = error;
  s["checks_deferred"] = deferred;
  s["checks_skipped"] = skipped;
  return s;
}

template <class J>
J set_json(const ResultSet& rs) {
  J j = J::object();
  j["schema"] = rs.schema.empty() ? std::string(kResultsSchema) : rs.schema;
  j["tool"] = block<J>(rs.tool);
  j["host"] = block<J>(rs.host);
  j["device"] = block<J>(rs.device);
  j["target"] = rs.target;
  J config = J::object();
  config["path"] = rs.config_path;
  config["sha256"] = rs.config_sha256;
  config["echo"] = block<J>(rs.config_echo);
  j["config"] = std::move(config);
  j["conventions"] = conventions<J>();
  j["summary"] = summary<J>(rs);
  j["interrupted"] = rs.interrupted;
  if (rs.shard_count > 0) {
    J shard = J::object();
    shard["index"] = rs.shard_index;
    shard["count"] = rs.shard_count;
    j["shard"] = std::move(shard);
  }
  if (!rs.filter.empty()) j["filter"] = rs.filter;
  j["wall_s"] = number_json<J>(rs.wall_s);
  if (!rs.clocks.is_null()) j["clocks"] = block<J>(rs.clocks);
  // The run's options that make its numbers unlike a measured sweep's; absent: none.
  if (rs.profile_once) j["run"] = {{"profile_once", true}};
  J checks = J::array();
  for (const Verdict& v : rs.checks) checks.push_back(verdict_json<J>(v));
  j["checks"] = std::move(checks);
  J cases = J::array();
  for (const CaseResult& r : rs.cases) cases.push_back(case_json<J>(r));
  j["cases"] = std::move(cases);
  return j;
}

}  // namespace

namespace json_detail {
ordered_json ordered_json_of(const CaseResult& r) {
  return case_json<ordered_json>(r);
}
ordered_json ordered_json_of(const Verdict& v) {
  return verdict_json<ordered_json>(v);
}
ordered_json ordered_json_of(const ResultSet& rs) {
  return set_json<ordered_json>(rs);
}
}  // namespace json_detail

json params_json(const Case& c) {
  return params_block<json>(c);
}

json measure_json(const MeasureSettings& m) {
  return measure_block<json>(m);
}

json model_params_json(const ModelCase& c) {
  return {{"layers", c.layers},
          {"hidden", c.hidden},
          {"heads", c.heads},
          {"H_kv", c.H_kv},
          {"D", c.head_dim()},
          {"vocab", c.vocab},
          {"mlp_ratio", c.mlp_ratio},
          {"B", c.B},
          {"T", c.T},
          {"dtype", std::string(to_string(c.dtype))},
          {"optimizer", std::string(to_string(c.optimizer))},
          {"recompute", c.recompute ? "on" : "off"}};
}

json to_json(const CaseResult& r) {
  return case_json<json>(r);
}
json to_json(const Verdict& v) {
  return verdict_json<json>(v);
}
json to_json(const ResultSet& rs) {
  return set_json<json>(rs);
}

std::string results_json_text(const ResultSet& rs) {
  // Invalid UTF-8 in a reason string (e.g. from a driver message) is replaced, not fatal.
  return json_detail::ordered_json_of(rs).dump(2, ' ', false,
                                               ordered_json::error_handler_t::replace) +
         "\n";
}

void write_results_json(const ResultSet& rs, const std::string& path) {
  write_text_file_atomic(path, results_json_text(rs));
}

}  // namespace fa2b

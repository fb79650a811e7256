// SPDX-License-Identifier: Apache-2.0
// Transformer results files (kind "fa2bench-model-results": `sweep` of a transformer config and
// scripts/torch_train_step.py) read back for `compare` and `check`. Only what those tools use is
// kept; anything unusable is refused with the file and the JSON pointer, never read as 0.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fa2b {

// One case of a model results file.
struct ModelCaseRecord {
  std::string id;         // "fa2/L12-h4096-nh32-V32000-B4-T2048/bf16/adamw"
  std::string shape_key;  // the id after "<backend>/": what --pair matches on
  std::string backend, role, sweep;
  Status status = Status::ok;
  std::string reason;
  nlohmann::json params;  // as written (layers, hidden, heads, T, dtype, ...)
  std::int64_t peak_bytes = 0, predicted_bytes = 0, requested_bytes = 0;
  // Medians over the timed steps; NaN where a case that is not ok has none.
  double forward_ms = kNaN, backward_ms = kNaN, optimizer_ms = kNaN, step_ms = kNaN;
  std::int64_t steps = 0;
  double tokens_per_s = kNaN, tflops = kNaN, loss_first = kNaN, loss_last = kNaN;
};

struct ModelResultSet {
  std::string file;
  std::string config_path, config_sha256, target;
  nlohmann::json device, tool;
  bool interrupted = false;  // the writer stopped before its last case
  std::vector<ModelCaseRecord> cases;
  nlohmann::json checks = nlohmann::json::array();  // verdicts as written (sweep with checks)
  nlohmann::json config_echo;  // the config the sweep ran (null in files written without it)
};

// Metrics a check may name on transformer results: peak_bytes, predicted_bytes,
// requested_bytes (any status: an oom records what it asked for), forward_ms, backward_ms,
// optimizer_ms, step_ms, tokens_per_s, tflops, loss_first, loss_last (ok cases only).
const std::vector<std::string>& model_metric_names();
// The metric's value; nullopt for an unknown name, or a timing / throughput / loss metric of
// a case that is not ok.
std::optional<double> model_metric_value(const ModelCaseRecord& r, const std::string& name);

// Reads a parsed model results document; `file` names it in errors. Throws ResultsFileError
// for: a wrong kind or schema_version, a missing or mistyped field, an id that does not start
// with its backend, an unknown status, and an ok case without a finite step_ms, a positive
// peak_bytes or a finite tokens_per_s (or with any other number not finite).
ModelResultSet model_result_set_from_json(const nlohmann::json& j, const std::string& file);

// read_results_document + model_result_set_from_json.
ModelResultSet load_model_results(const std::string& path);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// Results as JSON (schema "fa2bench/results/1"; see docs/results_schema.md), both ways: what
// results.json, results.jsonl, sweep.json and an isolated child's result file hold. In io, not
// report, because the runner streams and resumes with the same serialisation the reports read.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/model_case.h"
#include "core/result.h"

namespace fa2b {

// A case's shape parameters (B, H, H_kv, T_q, T_k, D, dtype, causal, window, layout, mode).
nlohmann::json params_json(const Case& c);
// The measuring settings of a case (results files, `plan --cases-json`, `tune`).
nlohmann::json measure_json(const MeasureSettings& m);
// The params block of a transformer case (results files and `plan --cases-json`).
nlohmann::json model_params_json(const ModelCase& c);
nlohmann::json to_json(const CaseResult& r);
nlohmann::json to_json(const Verdict& v);
nlohmann::json to_json(const ResultSet& rs);
CaseResult case_result_from_json(const nlohmann::json& j);  // throws ResultsFileError
ResultSet result_set_from_json(const nlohmann::json& j);    // throws ResultsFileError

// A results file that cannot be used: message names the file and the place.
class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The "kind" of a transformer sweep's results.json (app/model_sweep.cpp,
// scripts/torch_train_step.py); attention results have a "schema" instead.
inline constexpr const char* kModelResultsKind = "fa2bench-model-results";

// The JSON document of a results file of either kind; throws ResultsFileError naming the file
// (and line and column for bad JSON).
nlohmann::json read_results_document(const std::string& path);
// True for a transformer results document (kind kModelResultsKind).
bool is_model_results(const nlohmann::json& j);

// Attention results; a transformer results file is refused with a message saying so.
ResultSet load_results(const std::string& path);

// The text of results.json: pretty-printed, ends with a newline.
std::string results_json_text(const ResultSet& rs);
// Written to "<path>.tmp" and renamed (io/atomic_file.h), so a crash never leaves half a file.
void write_results_json(const ResultSet& rs, const std::string& path);

}  // namespace fa2b

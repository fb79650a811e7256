// SPDX-License-Identifier: Apache-2.0
// The built-in quickstart sweep. configs/quickstart.json holds the same JSON (a unit test
// keeps the two equal); edit both together.
#include "config/config.h"
#include "io/json_input.h"

namespace fa2b {

nlohmann::json quickstart_config_json() {
  static const char* const kText = R"json({
  "name": "quickstart",
  "description": "Small built-in sweep: naive vs FlashAttention-2, fp16, B=1, H=4, D=64, causal, T in {128, 256, 512}. Runs in seconds on a CPU and is meaningful on a GPU.",
  "measure": {"warmup": 2, "min_samples": 5, "max_samples": 20, "target_rel_spread": 0.05,
              "max_time_s": 2, "seed": 42, "l2_flush": true, "verify_rows": 256,
              "inputs": "normal"},
  "defaults": {"B": 1, "H": 4, "D": 64, "dtype": "fp16", "causal": true, "layout": "bhsd"},
  "sweeps": [
    {"name": "quickstart",
     "backends": ["naive", "fa2"],
     "grid": {"T": [128, 256, 512]}}
  ],
  "checks": [
    {"name": "fa2_matches_reference_fp16", "kind": "threshold", "metric": "max_abs_err",
     "select": {"backend": "fa2", "dtype": "fp16"}, "op": "<", "value": 2e-3, "where": "fits"},
    {"name": "naive_runs_where_it_fits", "kind": "status", "expect": "ok", "where": "fits",
     "select": {"backend": "naive"}},
    {"name": "fa2_peak_below_naive_at_512", "kind": "ratio", "metric": "peak_bytes",
     "numerator": "naive", "denominator": "fa2", "select": {"T": 512}, "op": ">", "value": 1,
     "pairs": "both_ran", "min_pairs": 1},
    {"name": "fa2_memory_growth_128_to_512", "kind": "growth", "metric": "peak_bytes",
     "select": {"backend": "fa2"}, "axis": "T", "from": 128, "to": 512, "op": "<=", "value": 6,
     "where": "fits"},
    {"name": "flash_state_smaller_than_half_score_matrix", "kind": "plan",
     "metric": "flash_state_bytes", "divide_by": "score_matrix_bytes",
     "select": {"backend": "fa2", "T": 512}, "op": "<", "value": 0.5}
  ]
})json";
  return parse_json_input(kText, "<built-in quickstart>");
}

}  // namespace fa2b

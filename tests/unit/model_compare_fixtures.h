// SPDX-License-Identifier: Apache-2.0
// Crafted transformer results for the model compare and check tests: one case of a backend on
// L2-h64-nh4-V97-B2-T<T>/fp32/adamw, in the form a transformer sweep writes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fa2b {

inline nlohmann::json model_case_json(const std::string& backend, std::int64_t T,
                                      const std::string& status, std::int64_t peak_bytes,
                                      double step_ms, double tokens_per_s) {
  const std::string shape = "L2-h64-nh4-V97-B2-T" + std::to_string(T) + "/fp32/adamw";
  const bool ok = status == "ok";
  return {{"id", backend + "/" + shape},
          {"backend", backend},
          {"role", backend},
          {"sweep", "s"},
          {"params", {{"layers", 2}, {"hidden", 64}, {"heads", 4}, {"B", 2}, {"T", T}}},
          {"status", status},
          {"reason", ok ? "" : "needs more"},
          {"memory",
           {{"peak_bytes", peak_bytes},
            {"predicted_bytes", peak_bytes},
            {"requested_bytes", status == "oom" ? 1 << 20 : 0}}},
          {"timing",
           {{"forward_ms", ok ? step_ms / 3 : 0.0},
            {"backward_ms", ok ? step_ms / 2 : 0.0},
            {"optimizer_ms", ok ? step_ms / 6 : 0.0},
            {"step_ms", ok ? step_ms : 0.0},
            {"steps", ok ? 3 : 0}}},
          {"metrics",
           {{"tokens_per_s", ok ? tokens_per_s : 0.0},
            {"tflops", ok ? 1.0 : 0.0},
            {"loss_first", ok ? 4.6 : 0.0},
            {"loss_last", ok ? 4.4 : 0.0}}}};
}

inline nlohmann::json model_results_json(std::vector<nlohmann::json> cases) {
  return {{"kind", "fa2bench-model-results"},
          {"schema_version", 1},
          {"config", "c.json"},
          {"target", "cpu"},
          {"cases", std::move(cases)}};
}

}  // namespace fa2b

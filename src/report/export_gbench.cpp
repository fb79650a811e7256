// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/export_formats.h"

namespace fa2b {
namespace {

// google/benchmark writes numbers; a NaN metric (not measured) is left out rather than null.
void put_finite(nlohmann::ordered_json& j, const char* key, double v) {
  if (std::isfinite(v)) j[key] = v;
}

nlohmann::ordered_json context(const ResultSet& rs) {
  nlohmann::ordered_json c;
  c["date"] = block_field<std::string>(rs.tool, "started", "");
  c["host_name"] = block_field<std::string>(rs.host, "hostname", "");
  c["executable"] = "fa2bench";
  c["num_cpus"] = block_field<int>(rs.host, "cpu_threads", 0);
  c["mhz_per_cpu"] = 0;  // not recorded by fa2bench
  c["cpu_scaling_enabled"] = false;
  c["caches"] = nlohmann::ordered_json::array();
  c["library_build_type"] = "release";
  // Beyond google/benchmark's keys, what a reader needs to trust the numbers.
  c["fa2bench_target"] = rs.target;
  c["fa2bench_device"] = block_field<std::string>(rs.device, "name", "");
  c["fa2bench_config"] = rs.config_path;
  c["fa2bench_config_sha256"] = rs.config_sha256;
  c["fa2bench_time_is"] = "median of CUDA-event (GPU) or steady-clock (CPU target) samples";
  return c;
}

}  // namespace

std::string gbench_json_text(const ResultSet& rs) {
  nlohmann::ordered_json out;
  out["context"] = context(rs);
  nlohmann::ordered_json benchmarks = nlohmann::ordered_json::array();
  int family = 0;
  for (const CaseResult& r : rs.cases) {
    nlohmann::ordered_json b;
    const std::string name = "fa2bench/" + r.c.id();
    b["name"] = name;
    b["family_index"] = family++;
    b["per_family_instance_index"] = 0;
    b["run_name"] = name;
    b["run_type"] = "iteration";
    b["repetitions"] = 1;
    b["repetition_index"] = 0;
    b["threads"] = 1;
    if (r.status != Status::ok || !std::isfinite(r.time.median)) {
      b["error_occurred"] = true;
      b["error_message"] = std::string(to_string(r.status)) + ": " + r.reason;
      b["iterations"] = 0;
      b["real_time"] = 0;
      b["cpu_time"] = 0;
      b["time_unit"] = "ms";
    } else {
      b["iterations"] = r.time.n;
      b["real_time"] = r.time.median;
      b["cpu_time"] = r.time.median;
      b["time_unit"] = "ms";
      put_finite(b, "tflops", r.tflops);
      put_finite(b, "gbps", r.gbps);
      if (r.memory.recorded) b["peak_bytes"] = r.memory.peak_bytes;
      put_finite(b, "max_abs_err", r.accuracy.max_abs_err);
      if (r.accuracy.grads_checked) {
        for (Grad g : kGrads) {
          const std::string key = "max_abs_err_" + std::string(to_string(g));
          put_finite(b, key.c_str(), r.accuracy.of(g).max_abs_err);
        }
      }
    }
    benchmarks.push_back(std::move(b));
  }
  out["benchmarks"] = std::move(benchmarks);
  return out.dump(2) + "\n";
}

}  // namespace fa2b

#include "runner/sweep_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "build_info.h"
#include "report/report.h"
#include "runner/case_runner.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

std::string format_duration(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f}h{:02.0f}m", std::floor(s / 3600), std::fmod(s / 60, 60));
}

std::string one_line(const CaseResult& r) {
  switch (r.status) {
    case Status::ok:
      return fmt::format("{:.4g} ms, {:.1f} TFLOP/s, max err {:.2e}", r.time.median, r.tflops,
                         r.accuracy.max_abs_err);
    default:
      return fmt::format("{}: {}", to_string(r.status), r.reason);
  }
}

}  // namespace

std::vector<Case> cases_for_target(const std::vector<Case>& cases, const std::string& target) {
  std::vector<Case> out = cases;
  if (target != "cpu") return out;
  for (Case& c : out) {
    const std::string cpu = cpu_counterpart(c.backend);
    if (!cpu.empty()) c.backend = cpu;
  }
  return out;
}

ResultSet run_sweep(const Config& config, const std::vector<Case>& cases, Platform& platform,
                    const SweepOptions& options) {
  ResultSet rs;
  rs.tool = {{"name", "fa2bench"},
             {"version", FA2BENCH_VERSION},
             {"git", FA2BENCH_GIT},
             {"build", FA2BENCH_BUILD_TYPE}};
  rs.host = host_block();
  rs.device = platform.device_block();
  rs.target = platform.target();
  rs.config_path = config.path;
  rs.config_sha256 = config.sha256;
  rs.config_echo = config.raw;

  std::unique_ptr<JsonlWriter> jsonl;
  if (!options.jsonl_path.empty()) jsonl = std::make_unique<JsonlWriter>(options.jsonl_path);

  // Backends live for the whole sweep so plans and handles are built once.
  std::map<std::string, std::unique_ptr<Backend>> backends;
  std::unique_ptr<Platform> host;  // CPU backends listed on the cuda target run on the host
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = cases.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Case& c = cases[i];
    auto& backend = backends[c.backend];
    if (!backend) backend = make_backend(c.backend);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (options.progress) {
      const std::string eta =
          i == 0 ? "?" : format_duration(elapsed / static_cast<double>(i) *
                                         static_cast<double>(n - i));
      fmt::print(stderr, "[{}/{}] {} {}  (elapsed {}, eta {})\n", i + 1, n, c.backend,
                 c.shape_key(), format_duration(elapsed), eta);
    }
    CaseResult r;
    if (!backend) {
      r.c = c;
      r.target = platform.target();
      r.status = Status::unsupported;
      r.reason = fmt::format("backend {} is not built into this fa2bench", c.backend);
    } else {
      Platform* where = &platform;
      if (!backend->on_device() && platform.target() != "cpu") {
        if (!host) host = make_host_platform();
        where = host.get();
      }
      r = run_case(c, *backend, *where);
    }
    if (options.progress) fmt::print(stderr, "        {}\n", one_line(r));
    if (jsonl) jsonl->append(r);
    rs.cases.push_back(std::move(r));
  }
  rs.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rs;
}

}  // namespace fa2b

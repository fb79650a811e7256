// SPDX-License-Identifier: Apache-2.0
#include "runner/sweep_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/env_overrides.h"
#include "core/copy_bw.h"
#include "core/gpu_peaks.h"
#include "core/stats.h"
#include "core/tool_block.h"
#include "io/jsonl_writer.h"
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

// The device block's measured copy bandwidth: the median of what the processes that ran the
// cases measured (one worker, or one per device and restart), or why there is none.
void record_copy_bw(ResultSet& rs) {
  std::vector<double> measured;
  for (const CaseResult& r : rs.cases) {
    if (std::isfinite(r.copy_bw_gbs)) measured.push_back(r.copy_bw_gbs);
  }
  if (measured.empty()) {
    rs.device["copy_bw_absent"] = rs.target == "cpu"
                                      ? "the cpu target has no device memory to probe"
                                      : "no case finished with a copy-bandwidth measurement";
    return;
  }
  rs.device["copy_bw_gbs"] = summarize(std::move(measured)).median;
  rs.device["copy_bw_source"] = "measured: " + copy_bw_method();
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

std::vector<ModelCase> model_cases_for_target(const std::vector<ModelCase>& cases,
                                              const std::string& target) {
  std::vector<ModelCase> out = cases;
  if (target != "cpu") return out;
  for (ModelCase& c : out) {
    const std::string cpu = cpu_counterpart(c.backend);
    if (!cpu.empty()) c.backend = cpu;
  }
  return out;
}

std::optional<std::pair<std::size_t, std::size_t>> find_duplicate_case(
    const std::vector<Case>& cases) {
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto [it, fresh] = first.emplace(cases[i].sweep + "\n" + cases[i].id(), i);
    if (!fresh) return std::make_pair(it->second, i);
  }
  return std::nullopt;
}

ResultSet run_sweep(const ConfigSource& config, const std::vector<Case>& cases,
                    const SweepTarget& target, CaseExecutor& executor,
                    const SweepOptions& options) {
  ResultSet rs;
  rs.tool = tool_block(active_overrides());
  if (const std::string note = overrides_note(rs.tool); !note.empty()) {
    fmt::print(stderr, "{}\n", note);
  }
  rs.host = host_block();
  // The device's vendor peaks (or why there are none), beside what the device reports.
  rs.device = with_device_peaks(target.device_block);
  rs.target = target.target;
  rs.config_path = config.path;
  rs.config_sha256 = config.sha256;
  rs.config_echo = config.echo;
  if (options.shard) {
    rs.shard_index = options.shard->index;
    rs.shard_count = options.shard->count;
  }

  std::vector<std::optional<CaseResult>> results(cases.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (i < options.finished.size() && options.finished[i]) {
      results[i] = options.finished[i];
    } else {
      todo.push_back(i);
    }
  }

  std::unique_ptr<JsonlWriter> jsonl;
  if (!options.jsonl_path.empty()) jsonl = std::make_unique<JsonlWriter>(options.jsonl_path);

  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = todo.size();
  const bool several = executor.slots() > 1;
  std::size_t started = 0, done = 0;
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  CaseEvents events;
  events.started = [&](std::size_t i, int slot) {
    ++started;
    if (!options.progress) return;
    const double elapsed = elapsed_s();
    const std::string eta =
        done == 0
            ? "?"
            : format_duration(elapsed / static_cast<double>(done) * static_cast<double>(n - done));
    const std::string where = several ? fmt::format(" [worker {}]", slot) : std::string();
    fmt::print(stderr, "[{}/{}]{} {} {}  (elapsed {}, eta {})\n", started, n, where,
               cases[i].backend, cases[i].shape_key(), format_duration(elapsed), eta);
  };
  events.finished = [&](std::size_t i, CaseResult r) {
    ++done;
    if (options.repro && r.repro.empty()) r.repro = options.repro(r);
    if (options.progress) {
      if (several) {
        fmt::print(stderr, "        {} {}: {}\n", cases[i].backend, cases[i].shape_key(),
                   one_line(r));
      } else {
        fmt::print(stderr, "        {}\n", one_line(r));
      }
    }
    if (jsonl) jsonl->append(r);
    results[i] = std::move(r);
  };
  events.stop = options.stop_requested;
  executor.run(cases, todo, events);

  for (auto& r : results) {
    if (r) {
      // A finished case resumed from a line written before results carried it.
      if (options.repro && r->repro.empty()) r->repro = options.repro(*r);
      rs.cases.push_back(std::move(*r));
    } else {
      rs.interrupted = true;
    }
  }
  rs.wall_s = elapsed_s();
  record_copy_bw(rs);
  return rs;
}

ResultSet run_sweep(const ConfigSource& config, const std::vector<Case>& cases, Platform& platform,
                    const SweepOptions& options) {
  auto executor = make_in_process_executor(platform);
  return run_sweep(config, cases, SweepTarget{platform.target(), platform.device_block()},
                   *executor, options);
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
#include "app/sweep.h"

#include <fmt/format.h>

#include <filesystem>

#include "app/clock_lock.h"
#include "app/exit_codes.h"
#include "app/load_config_or_report.h"
#include "app/out_dir.h"
#include "app/parse_size.h"
#include "app/signals.h"
#include "app/sweep_resume.h"
#include "app/sweep_setup.h"
#include "backends/env_overrides.h"
#include "checks/checks.h"
#include "checks/result_gate.h"
#include "core/backend_catalog.h"
#include "core/case_regex.h"
#include "io/json_input.h"
#include "io/results_json.h"
#include "report/report.h"
#include "runner/case_filter.h"
#include "runner/repro_command.h"
#include "runner/resume.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b::app {
namespace {

// A --filter/--dump-filter regex (RE2), or nullopt when the flag is empty; `ok` false (the
// reason printed, naming the flag) when the pattern does not compile.
std::optional<CaseRegex> compile_regex(const std::string& flag, const std::string& text, bool& ok) {
  ok = true;
  if (text.empty()) return std::nullopt;
  std::string why;
  auto re = CaseRegex::compile(text, &why);
  if (!re) {
    fmt::print(stderr, "fa2bench: {} {}: not a valid regular expression ({})\n", flag,
               clip_echo(text), why);
    ok = false;
  }
  return re;
}

std::string absolute_or_empty(const std::string& path) {
  if (path.empty()) return {};
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

// A sweep that stopped before writing reports (the reason printed): only its exit code.
SweepOutcome stopped(int exit_code) {
  SweepOutcome outcome;
  outcome.exit_code = exit_code;
  return outcome;
}

// What the outcome keeps until the command has printed it; destroyed in the order the
// command's locals were (the clocks first, the execution and its work folder last).
struct Held {
  std::unique_ptr<SweepExecution> execution;
  std::unique_ptr<OutDirLock> out_lock;
  std::unique_ptr<SweepClockLock> clock_lock;
};

}  // namespace

SweepOutcome run_sweep(SweepArgs a, const ConfigRewrite& rewrite, const ModelStepPrinter& steps,
                       bool* reports_written) {
  if (reports_written) *reports_written = false;
  std::optional<SweepManifest> prior;
  if (a.overwrite && !a.resume.empty()) {
    fmt::print(stderr, "fa2bench: --overwrite starts a new sweep; --resume continues one\n");
    return stopped(kExitUsage);
  }
  if (!apply_resume(a, prior)) return stopped(kExitUsage);
  if (a.out.empty()) a.out = "out";

  std::int64_t budget = 0;
  if (!a.memory_budget.empty()) {
    const auto b = parse_size(a.memory_budget);
    if (!b) {
      fmt::print(stderr, "fa2bench: --memory-budget {}: expected a size like 80GiB or 512MiB\n",
                 clip_echo(a.memory_budget));
      return stopped(kExitUsage);
    }
    budget = *b;
  }
  bool ok = true;
  const std::optional<CaseRegex> filter = compile_regex("--filter", a.filter, ok);
  if (!ok) return stopped(kExitUsage);
  DumpOptions dump;
  dump.dir = a.dump;
  dump.filter_text = a.dump_filter;
  dump.filter = compile_regex("--dump-filter", a.dump_filter, ok);
  if (!ok) return stopped(kExitUsage);
  if (!a.dump_filter.empty() && a.dump.empty()) {
    fmt::print(stderr, "fa2bench: --dump-filter needs --dump DIR\n");
    return stopped(kExitUsage);
  }
  std::optional<Shard> shard;
  if (!a.shard.empty()) {
    shard = parse_shard(a.shard);
    if (!shard) {
      fmt::print(stderr, "fa2bench: --shard {}: expected I/N with 0 <= I < N, e.g. --shard 0/4\n",
                 a.shard);
      return stopped(kExitUsage);
    }
  }
  std::vector<std::string> set = a.set;
  if (!a.inputs.empty()) {
    if (!parse_input_dist(a.inputs)) {
      fmt::print(stderr, "fa2bench: --inputs {}: expected normal, uniform, large or nan\n",
                 a.inputs);
      return stopped(kExitUsage);
    }
    set.push_back("measure.inputs=\"" + a.inputs + "\"");  // every sweep's measure, too
  }

  auto config = load_config_or_report(a.config, ConfigOverrides{set, a.backends});
  if (!config) return stopped(kExitUsage);
  if (rewrite) {
    const int rc = rewrite(*config);
    if (rc != kExitOk) return stopped(rc);
  }
  if (!config->model_cases.empty()) {
    SweepOutcome outcome;
    outcome.model = run_model_sweep(a, *config, budget, steps, outcome.exit_code);
    return outcome;
  }
  if (prior && prior->config_sha256 != config->sha256) {
    fmt::print(stderr,
               "fa2bench: --resume {}: the config changed since that sweep started (sha256 {} "
               "then, {} now: {}{}); finished cases would not be comparable. Undo the change, "
               "or start a new sweep with another --out\n",
               a.resume, prior->config_sha256.substr(0, 12), config->sha256.substr(0, 12),
               config->path,
               set.empty() && a.backends.empty() ? "" : " with --set/--backends/--inputs");
    return stopped(kExitUsage);
  }

  int exit_code = kExitOk;
  auto ex = set_up_execution(a, budget, dump, exit_code);
  if (!ex) return stopped(exit_code);
  const std::string& target = ex->target.target;
  if (prior && !prior->target.empty() && prior->target != target) {
    fmt::print(stderr,
               "fa2bench: --resume {}: that sweep ran on the {} target, this one would run "
               "on the {} target\n",
               a.resume, prior->target, target);
    return stopped(kExitUsage);
  }

  std::vector<Case> cases = cases_for_target(config->cases, target);
  for (Case& c : cases) c.measure.profile_once = a.profile_once;
  if (const auto dup = find_duplicate_case(cases)) {
    const Case& first = cases[dup->first];
    const Case& second = cases[dup->second];
    fmt::print(stderr,
               "fa2bench: {}: sweep \"{}\" would run case {} twice on the {} target: as backend "
               "\"{}\" and as backend \"{}\" (the one runs as the other there). List only one "
               "of them (e.g. --backends)\n",
               config->path, first.sweep, first.id(), target, first.role, second.role);
    return stopped(kExitUsage);
  }
  if (filter) {
    std::vector<Case> kept;
    for (const Case& c : cases)
      if (filter_keeps(*filter, c)) kept.push_back(c);
    cases = std::move(kept);
    if (cases.empty()) {
      fmt::print(stderr, "fa2bench: --filter {} matches none of the config's cases\n",
                 clip_echo(a.filter));
      return stopped(kExitUsage);
    }
  }
  if (shard) {
    cases = shard_cases(cases, *shard);
    if (cases.empty())
      fmt::print(stderr, "fa2bench: --shard {}: this shard has no cases\n", a.shard);
  }

  const std::filesystem::path out(a.out);
  std::error_code ec;
  int claim_exit = kExitOk;
  auto lock =
      claim_out_dir(a.out, prior.has_value(), a.overwrite, {a.junit, a.summary_md}, claim_exit);
  if (!lock) return stopped(claim_exit);
  if (!ex->create_work_dir()) return stopped(kExitRuntime);
  const std::string jsonl = (out / "results.jsonl").string();
  SweepOptions options;
  options.jsonl_path = jsonl;
  options.progress = !a.quiet;
  options.shard = shard;
  options.stop_requested = [] { return interrupt_requested(); };
  if (prior) {
    int resume_exit = kExitOk;
    if (!load_finished_cases(jsonl, cases, a.resume, options.finished, resume_exit))
      return stopped(resume_exit);
  } else {
    std::filesystem::remove(jsonl, ec);
  }
  std::size_t already = 0;
  for (const auto& r : options.finished) already += r ? 1 : 0;

  SweepManifest manifest;
  manifest.config_path = config->path;
  manifest.config_file = absolute_or_empty(a.config);
  manifest.config_sha256 = config->sha256;
  manifest.set = a.set;
  manifest.backends = a.backends;
  manifest.inputs = a.inputs;
  manifest.filter = a.filter;
  manifest.shard = shard;
  manifest.requested_target = a.target;
  manifest.target = target;
  manifest.memory_budget = a.memory_budget;
  manifest.case_timeout_s = a.case_timeout;
  manifest.isolated = ex->isolated;
  manifest.dump_dir = absolute_or_empty(a.dump);
  manifest.dump_filter = a.dump_filter;
  manifest.profile_once = a.profile_once;
  manifest.overrides = active_overrides();
  for (const Case& c : cases) manifest.case_ids.push_back(c.id());
  options.repro = [&manifest, &a](const CaseResult& r) {
    return repro_command(manifest, a.lock_clocks_mhz, r);
  };
  try {
    write_manifest(manifest, (out / "sweep.json").string());
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return stopped(kExitRuntime);
  }

  if (!a.quiet) {
    fmt::print(stderr, "fa2bench: {} case(s) from {} on the {} target{}{}; results in {}\n",
               cases.size(), config->path, target,
               ex->isolated ? fmt::format(", isolated in worker processes ({} worker{}, each "
                                          "replaced after a crash, timeout or device error)",
                                          ex->workers, ex->workers == 1 ? "" : "s")
                            : std::string(),
               shard ? fmt::format(", shard {}", a.shard) : std::string(), a.out);
    if (prior) {
      fmt::print(stderr, "fa2bench: resuming {}: {} case(s) already finished, {} to run\n",
                 a.resume, already, cases.size() - already);
    }
  }

  install_interrupt_handlers();
  auto clock_lock =
      std::make_unique<SweepClockLock>(a.lock_clocks_mhz, target, ex->target.device_block, a.quiet);
  // The runner's run_sweep (runner/sweep_runner.h), not this one.
  ResultSet rs = fa2b::run_sweep(source_of(*config), cases, ex->target, *ex->executor, options);
  rs.clocks = clock_lock->record();
  // Interrupted: a signal kept cases from running (one arriving during the last case, which
  // then finished, leaves a complete sweep).
  const bool interrupted = rs.interrupted;
  rs.filter = a.filter;
  rs.profile_once = a.profile_once;
  const std::vector<GateProblem> problems = judge_result_set(rs, *config);

  write_results_json(rs, (out / "results.json").string());
  if (reports_written) *reports_written = true;
  write_results_csv(rs, (out / "results.csv").string());
  write_checks_csv(rs, (out / "checks.csv").string());
  write_summary_md(rs, (out / "summary.md").string(), a.baseline);
  if (!a.junit.empty()) write_junit(rs, a.junit);
  if (!a.summary_md.empty()) write_summary_md(rs, a.summary_md, a.baseline);
  remove_interrupt_handlers();

  AttentionSweepOutcome outcome;
  outcome.out = a.out;
  outcome.interrupted = interrupted;
  outcome.planned_cases = cases.size();
  outcome.workers_started = ex->isolated ? ex->executor->workers_started() : -1;
  std::string why;
  if (!interrupted && ex->platform && ex->platform->broken(&why)) outcome.device_error = why;
  outcome.problems = problems;
  const int exit_code_now = interrupted            ? static_cast<int>(kExitInterrupted)
                            : outcome.device_error ? static_cast<int>(kExitRuntime)
                                                   : verdict_exit_code(rs.checks);
  outcome.results = std::move(rs);
  outcome.finished_before = std::move(options.finished);
  outcome.held =
      std::make_shared<Held>(Held{std::move(ex), std::move(lock), std::move(clock_lock)});
  SweepOutcome result;
  result.exit_code = exit_code_now;
  result.attention = std::move(outcome);
  return result;
}

}  // namespace fa2b::app

// SPDX-License-Identifier: Apache-2.0
#include "cli/sweep_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "checks/checks.h"
#include "checks/config_echo.h"
#include "checks/result_gate.h"
#include "cli/clock_lock.h"
#include "cli/commands.h"
#include "cli/load_config_or_report.h"
#include "cli/model_commands.h"
#include "cli/numeric_flags.h"
#include "cli/out_dir.h"
#include "cli/signals.h"
#include "cli/sweep_resume.h"
#include "cli/sweep_setup.h"
#include "cli/tables.h"
#include "cli/wall_summary.h"
#include "core/backend_catalog.h"
#include "core/case_regex.h"
#include "io/atomic_file.h"
#include "io/json_input.h"
#include "io/results_json.h"
#include "report/report.h"
#include "runner/case_filter.h"
#include "runner/repro_command.h"
#include "runner/resume.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

// A week: longer is a typo, and seconds beyond ~9e15 overflow the milliseconds of the deadline.
constexpr double kMaxCaseTimeoutSeconds = 7 * 24 * 3600;

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

}  // namespace

int run_sweep_command(SweepArgs a, const ConfigRewrite& rewrite, bool* reports_written) {
  if (reports_written) *reports_written = false;
  std::optional<SweepManifest> prior;
  if (a.overwrite && !a.resume.empty()) {
    fmt::print(stderr, "fa2bench: --overwrite starts a new sweep; --resume continues one\n");
    return kExitUsage;
  }
  if (!apply_resume(a, prior)) return kExitUsage;
  if (a.out.empty()) a.out = "out";

  std::int64_t budget = 0;
  if (!a.memory_budget.empty()) {
    const auto b = parse_size(a.memory_budget);
    if (!b) {
      fmt::print(stderr, "fa2bench: --memory-budget {}: expected a size like 80GiB or 512MiB\n",
                 clip_echo(a.memory_budget));
      return kExitUsage;
    }
    budget = *b;
  }
  bool ok = true;
  const std::optional<CaseRegex> filter = compile_regex("--filter", a.filter, ok);
  if (!ok) return kExitUsage;
  DumpOptions dump;
  dump.dir = a.dump;
  dump.filter_text = a.dump_filter;
  dump.filter = compile_regex("--dump-filter", a.dump_filter, ok);
  if (!ok) return kExitUsage;
  if (!a.dump_filter.empty() && a.dump.empty()) {
    fmt::print(stderr, "fa2bench: --dump-filter needs --dump DIR\n");
    return kExitUsage;
  }
  std::optional<Shard> shard;
  if (!a.shard.empty()) {
    shard = parse_shard(a.shard);
    if (!shard) {
      fmt::print(stderr, "fa2bench: --shard {}: expected I/N with 0 <= I < N, e.g. --shard 0/4\n",
                 a.shard);
      return kExitUsage;
    }
  }
  std::vector<std::string> set = a.set;
  if (!a.inputs.empty()) {
    if (!parse_input_dist(a.inputs)) {
      fmt::print(stderr, "fa2bench: --inputs {}: expected normal, uniform, large or nan\n",
                 a.inputs);
      return kExitUsage;
    }
    set.push_back("measure.inputs=\"" + a.inputs + "\"");  // every sweep's measure, too
  }

  auto config = load_config_or_report(a.config, ConfigOverrides{set, a.backends});
  if (!config) return kExitUsage;
  if (rewrite) {
    const int rc = rewrite(*config);
    if (rc != kExitOk) return rc;
  }
  if (!config->model_cases.empty()) return run_model_sweep(a, *config, budget);
  if (prior && prior->config_sha256 != config->sha256) {
    fmt::print(stderr,
               "fa2bench: --resume {}: the config changed since that sweep started (sha256 {} "
               "then, {} now: {}{}); finished cases would not be comparable. Undo the change, "
               "or start a new sweep with another --out\n",
               a.resume, prior->config_sha256.substr(0, 12), config->sha256.substr(0, 12),
               config->path,
               set.empty() && a.backends.empty() ? "" : " with --set/--backends/--inputs");
    return kExitUsage;
  }

  int exit_code = kExitOk;
  const auto ex = set_up_execution(a, budget, dump, exit_code);
  if (!ex) return exit_code;
  const std::string& target = ex->target.target;
  if (prior && !prior->target.empty() && prior->target != target) {
    fmt::print(stderr,
               "fa2bench: --resume {}: that sweep ran on the {} target, this one would run "
               "on the {} target\n",
               a.resume, prior->target, target);
    return kExitUsage;
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
    return kExitUsage;
  }
  if (filter) {
    std::vector<Case> kept;
    for (const Case& c : cases)
      if (filter_keeps(*filter, c)) kept.push_back(c);
    cases = std::move(kept);
    if (cases.empty()) {
      fmt::print(stderr, "fa2bench: --filter {} matches none of the config's cases\n",
                 clip_echo(a.filter));
      return kExitUsage;
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
  const auto lock =
      claim_out_dir(a.out, prior.has_value(), a.overwrite, {a.junit, a.summary_md}, claim_exit);
  if (!lock) return claim_exit;
  if (!ex->create_work_dir()) return kExitRuntime;
  const std::string jsonl = (out / "results.jsonl").string();
  SweepOptions options;
  options.jsonl_path = jsonl;
  options.progress = !a.quiet;
  options.shard = shard;
  options.stop_requested = [] { return interrupt_requested(); };
  if (prior) {
    try {
      JsonlContents earlier = read_results_jsonl(jsonl);
      for (const std::string& w : earlier.warnings)
        fmt::print(stderr, "fa2bench: warning: {}\n", w);
      options.finished = match_finished(cases, earlier.results);
      // Matched by id alone, a line written with another seed, inputs or sample counts (a
      // results.jsonl copied in from another run) would mix two measurements in one set.
      for (std::size_t i = 0; i < cases.size(); ++i) {
        if (!options.finished[i]) continue;
        const std::string difference =
            measure_difference(options.finished[i]->c.measure, cases[i].measure, "in the config");
        if (difference.empty()) continue;
        fmt::print(stderr,
                   "fa2bench: --resume {}: results.jsonl holds case {} measured with other "
                   "settings than the config's ({}); it does not belong to this sweep. Start a "
                   "new sweep with another --out\n",
                   a.resume, cases[i].id(), difference);
        return kExitUsage;
      }
      std::string text;
      for (const std::string& line : earlier.lines) text += line + "\n";
      write_text_file_atomic(jsonl, text);  // without the incomplete line, ready to append
    } catch (const OutputError& e) {        // e.g. a full disk: the OS error, a runtime failure
      fmt::print(stderr, "fa2bench: --resume {}: {}\n", a.resume, e.what());
      return kExitRuntime;
    } catch (const std::exception& e) {
      fmt::print(stderr, "fa2bench: --resume {}: {}\n", a.resume, e.what());
      return kExitUsage;
    }
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
  for (const Case& c : cases) manifest.case_ids.push_back(c.id());
  options.repro = [&manifest, &a](const CaseResult& r) {
    return repro_command(manifest, a.lock_clocks_mhz, r);
  };
  try {
    write_manifest(manifest, (out / "sweep.json").string());
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitRuntime;
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
  const SweepClockLock clock_lock(a.lock_clocks_mhz, target, ex->target.device_block, a.quiet);
  ResultSet rs = run_sweep(source_of(*config), cases, ex->target, *ex->executor, options);
  rs.clocks = clock_lock.record();
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

  print_case_table(rs.cases);
  print_verdict_table(rs.checks);
  fmt::print("\nwrote {}/results.json, results.csv, summary.md, results.jsonl\n", a.out);
  fmt::print("{}\n", wall_summary_line(rs, options.finished,
                                       ex->isolated ? ex->executor->workers_started() : -1));

  if (interrupted) {
    fmt::print(stderr,
               "fa2bench: interrupted after {} of {} case(s); the reports say \"interrupted\": "
               "true. Continue with: fa2bench sweep --resume {}\n",
               rs.cases.size(), cases.size(), a.out);
    return kExitInterrupted;
  }
  std::string why;
  if (ex->platform && ex->platform->broken(&why)) {
    fmt::print(stderr, "fa2bench: the sweep hit an unrecoverable device error: {}\n", why);
    return kExitRuntime;
  }
  print_gate_problems(problems);
  return verdict_exit_code(rs.checks);
}

void add_target_options(CLI::App* cmd, std::string& target, int& device) {
  cmd->add_option("--target", target,
                  "auto: the GPU when there is one, else the CPU target; cuda; cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--device", device, "CUDA device index")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

void add_isolate_flags(CLI::App* cmd, int& isolate) {
  cmd->add_flag_callback(
      "--isolate", [&isolate] { isolate = 1; },
      "Run the cases in a worker process apart from this one, replaced after a crash, a "
      "timeout or a sticky device error (default on the cuda target)");
  cmd->add_flag_callback(
      "--no-isolate", [&isolate] { isolate = 0; },
      "Run every case in this process (default on the cpu target)");
}

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArgs>();
  args->out.clear();  // "out" unless --out or --resume say otherwise
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a sweep: every case on the GPU (or the CPU target), verified against a float64\n"
      "reference, timed with CUDA events; then the config's checks. Writes results.json,\n"
      "results.csv, summary.md and results.jsonl (case by case) to --out.\n"
      "Without --config the built-in quickstart sweep runs. Exit 1 when a check fails, or\n"
      "when any case ends in error/timeout (unless the config says \"allow_case_errors\":\n"
      "true) or an ok case has no usable median, even if no check selects it.\n\n"
      "Examples:\n"
      "  fa2bench sweep --config configs/seed_notebook.json --out results/run1\n"
      "  fa2bench sweep --config configs/seed_article.json --backends fa2 --set grid.T=[4096]\n"
      "  fa2bench sweep --resume results/run1      (continue an interrupted sweep)\n"
      "  fa2bench sweep --target cpu --quiet");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); default: built-in quickstart")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out,-o", args->out, "Directory for the reports (default: out)");
  cmd->add_option(
         "--backends", args->backends,
         fmt::format("Replace every sweep's backends ({})", fmt::join(known_backend_names(), ", ")))
      ->delimiter(',');
  cmd->add_option(
      "--set", args->set,
      "Override a config value: grid.T=[1024,2048], measure.max_samples=5 (repeatable)");
  add_target_options(cmd, args->target, args->device);
  cmd->add_option("--devices", args->devices,
                  "Run on several GPUs at once, one worker process per device: all, or 0,1,...");
  cmd->add_option("--filter", args->filter, "Run only cases whose id matches this regex");
  cmd->add_option("--shard", args->shard,
                  "Run only the cases whose index (after --filter) is I mod N: I/N, 0-based");
  cmd->add_option("--resume", args->resume,
                  "Continue the sweep whose --out was DIR: keep its finished cases, run the rest "
                  "with its config and measuring options (refused if one given differs)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Start a new sweep in an --out that holds an earlier one: its files move to "
                "--out/previous-<time>/ first");
  add_isolate_flags(cmd, args->isolate);
  cmd->add_option("--case-timeout", args->case_timeout,
                  "Kill a case still running after this many seconds and record status timeout "
                  "(0: none; implies --isolate)")
      ->check(finite_in(0, kMaxCaseTimeoutSeconds));
  cmd->add_option("--cpu-workers", args->cpu_workers,
                  "Testing aid: N isolated CPU workers at once (--target cpu)")
      // CLI11 leaves a hidden option's name out of its message: the check says it.
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return CLI::Range(0, 256)(text).empty()
                       ? std::string()
                       : "--cpu-workers " + clip_echo(text, 40) + ": expected 0 to 256";
          },
          "INT in [0, 256]"))
      ->group("");
  cmd->add_option("--inputs", args->inputs,
                  "Input distribution for every case: normal, uniform, large or nan")
      ->check(CLI::IsMember({"normal", "uniform", "large", "nan"}));
  cmd->add_option("--dump", args->dump,
                  "Write Q, K, V, O and the reference rows of the cases --dump-filter selects as "
                  ".npy files below DIR (at most 1 GiB per case)");
  cmd->add_option("--dump-filter", args->dump_filter,
                  "Which cases --dump writes: a regex on the case id (default: all)");
  cmd->add_option("--junit", args->junit, "Also write the check verdicts as JUnit XML here");
  cmd->add_option("--summary-md", args->summary_md, "Also write the Markdown summary here");
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Treat allocations beyond this size as out of memory (e.g. 24GiB), to emulate "
                  "a smaller card. Units: b, kB/MB/GB/TB/PB/EB (powers of 1000), KiB/MiB/GiB/... "
                  "(1024), case-insensitive, the b optional")
      ->type_name("SIZE");
  cmd->add_option("--baseline", args->baseline,
                  "Backend the summary's speedups and memory reductions are relative to")
      ->capture_default_str();
  cmd->add_flag("--profile-once", args->profile_once,
                "Run each selected case once for a profiler (ncu, nsys): no warm-ups, no "
                "verification, one timed sample; the results say \"profile_once\": true");
  cmd->add_option("--lock-clocks", args->lock_clocks_mhz,
                  "Lock the GPU's SM clock at MHZ through NVML for the sweep (needs root or an "
                  "administrator's grant; given back at the end); where not permitted the sweep "
                  "runs at the GPU's own clocks. results.json's \"clocks\" says which")
      ->type_name("MHZ")
      ->check(CLI::Range(100, 5000));
  cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  cmd->callback([args, cmd, &exit_code] {
    args->case_timeout_given = cmd->count("--case-timeout") > 0;
    exit_code = run_sweep_command(*args);
  });
}

}  // namespace fa2b

#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "checks/checks.h"
#include "cli/commands.h"
#include "cli/load_config_or_report.h"
#include "cli/tables.h"
#include "report/report.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

std::unique_ptr<Platform> choose_platform(const SweepArgs& a, std::int64_t budget, int& exit_code) {
  if (a.target == "cpu") {
    auto p = make_host_platform();
    p->tracker().set_budget(budget);
    return p;
  }
  std::string why;
  auto gpu = make_cuda_platform(a.device, budget, &why);
  if (gpu) return gpu;
  if (a.target == "cuda") {
    fmt::print(stderr, "fa2bench: --target cuda but {}\n", why);
    exit_code = kExitRuntime;
    return nullptr;
  }
  fmt::print(stderr, "fa2bench: {}; running on the CPU target (cpu-naive, cpu-flash)\n", why);
  auto p = make_host_platform();
  p->tracker().set_budget(budget);
  return p;
}

int run_sweep_command(const SweepArgs& a) {
  std::int64_t budget = 0;
  if (!a.memory_budget.empty()) {
    const auto b = parse_size(a.memory_budget);
    if (!b) {
      fmt::print(stderr, "fa2bench: --memory-budget {}: expected a size like 80GiB or 512MiB\n",
                 a.memory_budget);
      return kExitUsage;
    }
    budget = *b;
  }
  std::optional<std::regex> filter;
  if (!a.filter.empty()) {
    try {
      filter.emplace(a.filter);
    } catch (const std::regex_error& e) {
      fmt::print(stderr, "fa2bench: --filter {}: not a valid regular expression ({})\n", a.filter,
                 e.what());
      return kExitUsage;
    }
  }
  const auto config = load_config_or_report(a.config, ConfigOverrides{a.set, a.backends});
  if (!config) return kExitUsage;

  int exit_code = kExitOk;
  std::unique_ptr<Platform> platform = choose_platform(a, budget, exit_code);
  if (!platform) return exit_code;

  std::vector<Case> cases = cases_for_target(config->cases, platform->target());
  if (filter) {
    std::vector<Case> kept;
    for (const Case& c : cases)
      if (std::regex_search(c.id(), *filter) || std::regex_search(c.role + "/" + c.shape_key(), *filter))
        kept.push_back(c);
    cases = std::move(kept);
    if (cases.empty()) {
      fmt::print(stderr, "fa2bench: --filter {} matches none of the config's cases\n", a.filter);
      return kExitUsage;
    }
  }

  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    fmt::print(stderr, "fa2bench: cannot create --out {}: {}\n", a.out, ec.message());
    return kExitRuntime;
  }
  const std::string jsonl = (std::filesystem::path(a.out) / "results.jsonl").string();
  std::filesystem::remove(jsonl, ec);
  if (!a.quiet) {
    fmt::print(stderr, "fa2bench: {} case(s) from {} on the {} target; results in {}\n",
               cases.size(), config->path, platform->target(), a.out);
  }

  ResultSet rs = run_sweep(*config, cases, *platform, SweepOptions{jsonl, !a.quiet});
  rs.checks = evaluate_checks(config->checks, rs.cases);

  const std::filesystem::path out(a.out);
  write_results_json(rs, (out / "results.json").string());
  write_results_csv(rs, (out / "results.csv").string());
  write_summary_md(rs, (out / "summary.md").string(), a.baseline);
  if (!a.junit.empty()) write_junit(rs, a.junit);
  if (!a.summary_md.empty()) write_summary_md(rs, a.summary_md, a.baseline);

  print_case_table(rs.cases);
  print_verdict_table(rs.checks);
  fmt::print("\nwrote {}/results.json, results.csv, summary.md, results.jsonl\n", a.out);

  std::string why;
  if (platform->broken(&why)) {
    fmt::print(stderr, "fa2bench: the sweep hit an unrecoverable device error: {}\n", why);
    return kExitRuntime;
  }
  return verdict_exit_code(rs.checks);
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a sweep: every case on the GPU (or the CPU target), verified against a float64\n"
      "reference, timed with CUDA events; then the config's checks. Writes results.json,\n"
      "results.csv, summary.md and results.jsonl (case by case) to --out.\n"
      "Without --config the built-in quickstart sweep runs.\n\n"
      "Examples:\n"
      "  fa2bench sweep --config configs/seed_notebook.json --out results/run1\n"
      "  fa2bench sweep --config configs/seed_article.json --backends fa2 --set grid.T=[4096]\n"
      "  fa2bench sweep --target cpu --quiet");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); default: built-in quickstart")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out,-o", args->out, "Directory for the reports")->capture_default_str();
  cmd->add_option("--backends", args->backends,
                  "Replace every sweep's backends (naive, fa2, cpu-naive, cpu-flash)")
      ->delimiter(',');
  cmd->add_option("--set", args->set,
                  "Override a config value: grid.T=[1024,2048], measure.max_samples=5 (repeatable)");
  cmd->add_option("--target", args->target,
                  "auto: the GPU when there is one, else the CPU target; cuda; cpu")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}))
      ->capture_default_str();
  cmd->add_option("--device", args->device, "CUDA device index")->capture_default_str();
  cmd->add_option("--filter", args->filter, "Run only cases whose id matches this regex");
  cmd->add_option("--junit", args->junit, "Also write the check verdicts as JUnit XML here");
  cmd->add_option("--summary-md", args->summary_md, "Also write the Markdown summary here");
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Treat allocations beyond this size as out of memory (e.g. 24GiB), to emulate "
                  "a smaller card");
  cmd->add_option("--baseline", args->baseline,
                  "Backend the summary's speedups and memory reductions are relative to")
      ->capture_default_str();
  cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  cmd->callback([args, &exit_code] { exit_code = run_sweep_command(*args); });
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// fa2bench merge A.json B.json ... -o ALL.json: combine shard results into one results file.
#include <fmt/format.h>

#include <memory>

#include "app/exit_codes.h"
#include "app/merge.h"
#include "cli/commands.h"
#include "cli/tables.h"

namespace fa2b {
namespace {

int run_merge_command(const app::MergeArgs& a) {
  const app::MergeRun run = app::run_merge(a);
  if (run.status != kExitOk) return run.status;
  const MergeOutcome& m = run.merged;
  fmt::print("merged {} files: {} cases ({} duplicates dropped) -> {}\n", run.files,
             m.merged.cases.size(), m.duplicates.size(), a.out);
  if (m.checks_evaluated) print_verdict_table(m.merged.checks);
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < m.gate_problems.size() && i < kShown; ++i)
    fmt::print(stderr, "fa2bench: {}\n", m.gate_problems[i]);
  if (m.gate_problems.size() > kShown)
    fmt::print(stderr, "fa2bench: ... and {} more problems\n", m.gate_problems.size() - kShown);
  // A partial shard set fails even without a config echo to find the missing cases by.
  if (!m.missing_shards.empty() && !a.allow_partial) return kExitCheckFailed;
  return verdict_exit_code(m.merged.checks);
}

}  // namespace

void add_merge_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<app::MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge the results files of one config's shards (sweep --shard I/N) into one results\n"
      "file: refuses files of different configs or schema majors, reports duplicate case ids\n"
      "(the first is kept), and re-evaluates the config's checks on the merged cases.\n"
      "Exit code from the checks (0 pass, 1 fail), 2 when the files cannot be merged.\n"
      "Every file's config echo is verified against its recorded sha256 as `check` does: a\n"
      "file without one, or with an edited one, is refused (exit 2) unless --config names the\n"
      "config to judge by.\n"
      "A partial shard set (e.g. shard 0/2 alone), an interrupted shard, cases missing from\n"
      "the config's expansion or in error/timeout exit 1, naming what is missing.\n\n"
      "Example:  fa2bench merge out/shard-*/results.json -o out/all/results.json");
  cmd->add_option("results", args->inputs, "results.json files of the shards")
      ->required()
      ->expected(1, -1);
  cmd->add_option("-o,--out", args->out, "Write the merged results.json here")->required();
  cmd->add_flag("--strict", args->strict, "A duplicate case id is an error (exit 2)");
  cmd->add_flag("--allow-partial", args->allow_partial,
                "Missing shards (and the cases they hold) do not fail the merge");
  cmd->add_option("--config,-c", args->config,
                  "Judge by this config instead of the files' echoes (files written without one)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--csv", args->csv, "Also write the merged results as CSV here");
  cmd->add_option("--summary-md", args->summary_md, "Also write a Markdown summary here");
  cmd->add_option("--junit", args->junit, "Also write the check verdicts as JUnit XML here");
  cmd->callback([args, &exit_code] { exit_code = run_merge_command(*args); });
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune`'s flags (the command itself is cli/tune.cpp): the config's fa2 (or fa3)
// cases, one per fa2-dev (fa3-dev) variant, through the ordinary sweep, then ranked per shape
// (docs/tuning.md).
#include <memory>

#include "cli/commands.h"
#include "cli/numeric_flags.h"
#include "cli/tune.h"

namespace fa2b {

void add_tune_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Rank the tile/pipeline variants of our fa2 (or, with --backend fa3, fa3) forward: each\n"
      "fa2 case of a config (fp16/bf16, its forward) becomes one fa2-dev case per variant\n"
      "(0 = the shipped kernel), run as an ordinary sweep\n"
      "(tracked memory, verification against the float64 reference, timing, isolation) with\n"
      "its reports in --out; then per shape the variants by median time, their speed-up over\n"
      "variant 0 and the winner, printed and written to --out/tune.md. Variants beyond 0 need\n"
      "a CUDA build with -DFA2BENCH_DEV_KERNELS=ON (exit 2 otherwise). See docs/tuning.md.\n\n"
      "Examples:\n"
      "  fa2bench tune --config configs/perf_fwd.json --out results/h200/tune_perf_fwd "
      "--filter D128\n"
      "  fa2bench tune --backend fa3 --config configs/perf_fwd.json --out results/h200/tune_fa3");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); its fa2 cases are tuned")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option_function<std::string>(
         "--backend,-b",
         [args](const std::string& b) {
           args->role = b;
           args->dev_backend = b + "-dev";
         },
         "Whose variants to rank: fa2 (default; the config's fa2 cases through fa2-dev) or fa3 "
         "(its fa3 cases through fa3-dev, sm_90 only)")
      ->check(CLI::IsMember({"fa2", "fa3"}));
  cmd->add_option("--out,-o", args->out,
                  "Directory for the sweep's reports and tune.md (default: out)");
  cmd->add_option("--set", args->set, "Override a config value (as in sweep; repeatable)");
  cmd->add_option("--filter", args->filter,
                  "Run only the tune cases whose id (fa2-dev/B1-H32-T2048-D128/fp16/causal/v3) "
                  "matches this regex");
  add_target_options(cmd, args->target, args->device);
  add_isolate_flags(cmd, args->isolate);
  cmd->add_option("--case-timeout", args->case_timeout,
                  "Kill a case still running after this many seconds (0: none; implies "
                  "--isolate)")
      ->check(finite_in(0, 7 * 24 * 3600));
  cmd->add_flag("--overwrite", args->overwrite,
                "Move an earlier sweep's files in --out to --out/previous-<time>/ first");
  cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
  cmd->callback([args, &exit_code] { exit_code = run_tune_command(*args); });
}

}  // namespace fa2b

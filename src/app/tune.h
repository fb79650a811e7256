// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune` (docs/tuning.md): a config's fa2 cases expanded into one case per variant of
// a dev-variant backend (fa2-dev), run as an ordinary sweep, then ranked per shape from the
// ordinary results. The pieces are here so that the tests can drive them with a toy backend;
// the tune command (cli/tune_command.cpp) runs them in turn and prints between them.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/sweep.h"
#include "config/config.h"
#include "core/result.h"

namespace fa2b {

struct TuneArgs {
  std::string config;
  std::string out = "out";
  std::vector<std::string> set;
  std::string filter;  // a regex on the expanded case ids, as sweep --filter
  std::string target = "auto";
  int device = 0;
  int isolate = -1;  // as SweepArgs::isolate
  double case_timeout = 0;
  bool overwrite = false;
  bool quiet = false;
  // What is tuned: the config's cases of this backend (as configured: their role), and the
  // dev-variant backend whose variants replace them: fa2/fa2-dev or fa3/fa3-dev from the CLI
  // (--backend); tests use toys.
  std::string role = "fa2";
  std::string dev_backend = "fa2-dev";
};

// The tune config: every case of `config` whose role or backend is `role`, in any mode, as its
// forward (fp32 cases skipped: the kernels take fp16/bf16), each distinct shape once (the
// first case's sweep and measure settings), one sweep per shape over `dev_backend` with the
// grid axis variant = 0 .. variant_count(D) - 1. A shape whose D has no variant (count 0) is
// left out with a line in `notes`. The result is an ordinary config (parse_config reads it),
// so the results echo it and `check`/`merge` read it like any other.
struct TuneExpansion {
  nlohmann::json raw;
  std::size_t shapes = 0;          // shapes in the tune config
  std::size_t max_variants = 0;    // the largest count among them
  std::vector<std::string> notes;  // shapes left out, and why
};
TuneExpansion expand_tune_config(const Config& config, const std::string& role,
                                 const std::string& dev_backend,
                                 const std::function<int(std::int64_t D)>& variant_count);

// One row of the ranking: one variant of one shape.
struct TuneRow {
  std::string shape;  // the case's shape key without the variant tag
  int variant = 0;
  std::string name;  // the variant's name, from the case's backend_info ("" when none)
  std::string status;
  double ms = kNaN;  // median
  double tflops = kNaN;
  double speedup = kNaN;  // variant 0's median / this one's
  double max_abs_err = kNaN;
  std::string verdict;  // "winner", "", "MISMATCH ...", "<status>: <reason>", ...
  bool winner = false;
};

// An ok variant's error may exceed variant 0's by this much before it is a MISMATCH (tilings
// differ only in summation order: a few ulps of O).
inline constexpr double kTuneMismatchAbs = 2e-2;

// The ranking of a tune run's results: the forward cases of dev-variant backends (catalog
// entry `variants`), grouped by (backend, shape) in the order the shapes first appear; within
// a shape the ok and matching variants by median time (the first is the winner), then the
// others by variant. Reads nothing but the ordinary results.
std::vector<TuneRow> rank_tune_results(const ResultSet& rs);

// The tables: all variants and the winners, as Markdown ("# fa2bench tune: <config>" first).
std::string tune_markdown(const std::vector<TuneRow>& rows, const std::string& config_path);
std::string tune_winners_md(const std::vector<TuneRow>& rows);
std::string tune_all_md(const std::vector<TuneRow>& rows);

}  // namespace fa2b

namespace fa2b::app {

// A tune's sweep, as it ran: its outcome for the command to print, and what the ranking after
// it needs.
struct TuneSweep {
  SweepOutcome sweep;            // its exit code is the tune's, when the ranking succeeds
  bool reports_written = false;  // --out/results.json written: there is something to rank
  std::string out;               // --out ("out" when none was given)
  std::string tuned_path;        // the tune config's path, as its results record it
};

// Expands the config into the tune config (expand_tune_config, the variants of
// args.dev_backend) and runs it through app::run_sweep, its reports in --out. Exit 2 (the
// reason printed) when dev_backend has no variants or the config nothing to tune.
TuneSweep run_tune_sweep(const TuneArgs& args);
// The ranking of --out/results.json (rank_tune_results); nullopt, the reason printed, when it
// cannot be read.
std::optional<std::vector<TuneRow>> rank_tune_run(const std::string& out);
// Writes the ranking to --out/tune.md (tune_markdown); false, the reason printed, when it
// cannot.
bool write_tune_md(const std::string& out, const std::vector<TuneRow>& rows,
                   const std::string& tuned_path);

}  // namespace fa2b::app

// SPDX-License-Identifier: Apache-2.0
// fa2bench compare BASE.json NEW.json: per-case ratios and verdicts between two runs, or with
// --pair between two backends on the same shapes.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/numeric_flags.h"
#include "compare/compare.h"
#include "compare/model_compare.h"
#include "io/atomic_file.h"
#include "io/model_results.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

struct CompareArgs {
  std::string base;
  std::string next;
  double threshold = 0.05;
  double alpha = 0.05;
  std::string format = "table";
  std::string out;
  bool fail_on_regression = false;
  std::string normalize;  // "peak" (also for a bare --normalize); empty: not given
  bool allow_missing = false;
  std::string junit;
  std::string summary_md;
  std::vector<std::string> pairs;  // --pair NEW_BACKEND=BASE_BACKEND, as given
};

// What a results document is, for the message when the two files differ.
std::string kind_text(const nlohmann::json& j) {
  if (is_model_results(j))
    return fmt::format("transformer results (kind \"{}\")", kModelResultsKind);
  if (j.is_object() && j.contains("schema") && j["schema"].is_string())
    return fmt::format("attention results (schema \"{}\")", j["schema"].get<std::string>());
  return "neither attention nor transformer results";
}

std::string format_model(const ModelComparison& cmp, const std::string& format) {
  if (format == "md") return model_compare_md_text(cmp);
  if (format == "csv") return model_compare_csv_text(cmp);
  if (format == "json")
    return model_compare_json(cmp).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  return model_compare_table_text(cmp);
}

// Warnings go to stderr too when stdout carries a machine-readable format or a file.
void print_warnings(const CompareArgs& a, const std::vector<std::string>& warnings) {
  if (a.format == "csv" || a.format == "json" || !a.out.empty()) {
    for (const std::string& w : warnings) fmt::print(stderr, "fa2bench: {}\n", w);
  }
}

// The rendering to --out (with a line on stderr) or stdout; throws std::runtime_error when
// --out cannot be written.
void write_text(const CompareArgs& a, const std::string& text) {
  if (a.out.empty()) {
    write_stdout(text);
  } else {
    write_output_file(a.out, text);
    fmt::print(stderr, "fa2bench: wrote {} ({})\n", a.out, a.format);
  }
}

// Two transformer results files: the same exit codes as the attention compare.
int run_model_compare(const CompareArgs& a) {
  if (!a.normalize.empty() || !a.junit.empty() || !a.summary_md.empty()) {
    fmt::print(stderr,
               "fa2bench: --normalize, --junit and --summary-md are not supported for "
               "transformer results ({} and {}) yet\n",
               a.base, a.next);
    return kExitUsage;
  }
  ModelComparison cmp;
  try {
    const ModelResultSet base = load_model_results(a.base);
    const ModelResultSet next = load_model_results(a.next);
    const CompareOptions options{
        a.threshold, false,
        parse_backend_pairs(a.pairs, model_backends(base), a.base, model_backends(next), a.next),
        a.allow_missing};
    cmp = compare_model_results(base, next, options);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  } catch (const CompareError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }
  const std::string text = format_model(cmp, a.format);
  print_warnings(a, cmp.warnings);
  try {
    write_text(a, text);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitRuntime;
  }
  if (cmp.has_regression()) {
    fmt::print(stderr, "fa2bench: {} regression{} ({} slower, {} {}){}{}\n", cmp.counts.regressions,
               cmp.counts.regressions == 1 ? "" : "s", cmp.counts.slower,
               cmp.counts.regressions - cmp.counts.slower,
               cmp.by_pair() ? "not ok where the BASE backend is" : "no longer ok",
               cmp.failures.empty() ? "" : fmt::format(" and {} more failing", cmp.failures.size()),
               a.fail_on_regression ? "" : "; not failing without --fail-on-regression");
    for (const std::string& f : cmp.failures) fmt::print(stderr, "fa2bench: failing: {}\n", f);
    if (a.fail_on_regression) return kExitCheckFailed;
  }
  return kExitOk;
}

int run_compare(const CompareArgs& a) {
  // The kind decides the path: transformer results have their own cases and columns.
  try {
    const nlohmann::json base_doc = read_results_document(a.base);
    const nlohmann::json new_doc = read_results_document(a.next);
    const bool base_model = is_model_results(base_doc);
    if (base_model != is_model_results(new_doc)) {
      fmt::print(stderr,
                 "fa2bench: compare needs two files of one kind: BASE {} is {}, NEW {} is {}\n",
                 a.base, kind_text(base_doc), a.next, kind_text(new_doc));
      return kExitUsage;
    }
    if (base_model) return run_model_compare(a);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }
  ResultSet base, next;
  try {
    base = load_results(a.base);
    next = load_results(a.next);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }
  Comparison cmp;
  try {
    // The pairs are checked against the loaded files, so a typo names the backends they have.
    CompareOptions options{a.threshold, !a.normalize.empty(),
                           parse_backend_pairs(a.pairs, base, a.base, next, a.next),
                           a.allow_missing};
    options.alpha = a.alpha;
    cmp = compare_results(base, a.base, next, a.next, options);
  } catch (const CompareError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }

  std::string text;
  if (a.format == "md") {
    text = compare_md_text(cmp);
  } else if (a.format == "csv") {
    text = compare_csv_text(cmp);
  } else if (a.format == "json") {
    text = compare_json(cmp).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  } else {
    text = compare_table_text(cmp);
  }
  print_warnings(a, cmp.warnings);
  try {
    write_text(a, text);
    if (!a.junit.empty()) write_output_file(a.junit, compare_junit_text(cmp));
    if (!a.summary_md.empty()) write_output_file(a.summary_md, compare_summary_md_text(cmp));
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitRuntime;
  }
  if (cmp.has_regression()) {
    // With --pair a status regression is not a change over time: NEW's backend fails where
    // BASE's works.
    const int status = cmp.counts.regressions - cmp.counts.slower - cmp.counts.unusable;
    fmt::print(stderr, "fa2bench: {} regression{} ({} slower, {} {}{}){}{}\n",
               cmp.counts.regressions, cmp.counts.regressions == 1 ? "" : "s", cmp.counts.slower,
               status, cmp.by_pair() ? "not ok where the BASE backend is" : "no longer ok",
               cmp.counts.unusable == 0
                   ? std::string()
                   : fmt::format(", {} without a usable NEW median", cmp.counts.unusable),
               cmp.failures.empty() ? "" : fmt::format(" and {} more failing", cmp.failures.size()),
               a.fail_on_regression ? "" : "; not failing without --fail-on-regression");
    for (const std::string& f : cmp.failures) fmt::print(stderr, "fa2bench: failing: {}\n", f);
    if (a.fail_on_regression) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two results files case by case (matched by id: backend + shape): NEW/BASE ratios\n"
      "of median time, TFLOP/s and peak memory, and a verdict per case: same (median change\n"
      "within --threshold), faster/slower (beyond it and significant), ambiguous (beyond it,\n"
      "not significant), or the status change (e.g. ok→oom). Significant: where both runs\n"
      "kept at least 9 raw samples (time_ms.samples), a two-sided Mann-Whitney U test with\n"
      "p < --alpha (rule utest); otherwise disjoint p10-p90 intervals (rule threshold). Exit 1 "
      "with --fail-on-regression when a case got slower or stopped\n"
      "being ok, or NEW is unusable: interrupted, no cases, a case only in BASE or a backend\n"
      "missing in NEW (unless --allow-missing), a NEW case in error/timeout, or an ok NEW\n"
      "case without a finite median, memory block or nonfinite count; 2 when a file cannot\n"
      "be used.\n\n"
      "--pair NEW_BACKEND=BASE_BACKEND compares two backends instead of two runs: cases of\n"
      "NEW_BACKEND in NEW are matched with cases of BASE_BACKEND in BASE by shape (B, H, H_kv,\n"
      "T_q, T_k, D, dtype, causal, window, layout); BASE and NEW may be the same file. The\n"
      "geomean rows are per pair and head dim D, plus one over all D per pair.\n\n"
      "Examples:\n"
      "  fa2bench compare baseline/results.json out/results.json --fail-on-regression\n"
      "  fa2bench compare results/h200/peers/perf_fwd/torch_sdpa.json \\\n"
      "    results/h200/perf_fwd/results.json "
      "--pair fa2=torch-flash --pair fa2=torch-cudnn --format md\n\n"
      "Transformer results (kind fa2bench-model-results: a transformer sweep's results.json,\n"
      "scripts/torch_train_step.py) are compared the same way, by case id or with --pair by the\n"
      "shape key (the id after the backend): NEW/BASE ratios of peak bytes, step time and\n"
      "tokens/s, both statuses, and a verdict from the step time against --threshold. Both\n"
      "files must be of one kind (exit 2 otherwise); an ok case without a finite step_ms,\n"
      "peak_bytes or tokens_per_s is refused (exit 2).\n"
      "  fa2bench compare results/h200/peers/seed_training_step/torch_train_step.json \\\n"
      "    results/h200/seed_training_step/results.json --pair fa2=torch-flash");
  cmd->add_option("base", args->base, "BASE results.json (the reference run)")->required();
  cmd->add_option("new", args->next, "NEW results.json (the run being judged)")->required();
  cmd->add_option("--threshold", args->threshold,
                  "Relative change of the median time that counts as noise (default 0.05)")
      ->check(finite_in(0.0, 10.0));
  cmd->add_option("--alpha", args->alpha,
                  "Significance level of the Mann-Whitney U test on the raw samples (default "
                  "0.05, strictly between 0 and 1); used where both runs kept at least 9 samples "
                  "(time_ms.samples)")
      ->check(finite_between(0.0, 1.0));
  cmd->add_option("--format", args->format, "Output format: table, md, csv or json")
      ->check(CLI::IsMember({"table", "md", "csv", "json"}));
  cmd->add_option("--out,-o", args->out, "Write the output to this file instead of stdout");
  cmd->add_flag("--fail-on-regression", args->fail_on_regression,
                "Exit 1 when any case is slower, ok in BASE and not ok in NEW, or NEW is "
                "unusable (see above); every failure is named on stderr");
  cmd->add_flag("--allow-missing", args->allow_missing,
                "Cases only in BASE, backends missing in NEW and cases missing from NEW's "
                "config do not fail --fail-on-regression (an interrupted NEW still does)");
  // An option with an optional value, so that `--normalize` alone keeps meaning what it
  // meant before it took one.
  cmd->add_option("--normalize", args->normalize,
                  "Compare % of the device's dense tensor peak (pct_of_peak_flops, per dtype) "
                  "instead of TFLOP/s, for runs on different GPUs; `peak` is the one mode and "
                  "the default (device.peak_tflops, else the built-in table of GPUs)")
      ->expected(0, 1)
      ->default_str("peak")
      ->check(CLI::IsMember({"peak"}));
  cmd->add_option("--junit", args->junit, "Write one JUnit testcase per matched case here");
  cmd->add_option("--summary-md", args->summary_md,
                  "Write a Markdown job summary here (e.g. $GITHUB_STEP_SUMMARY)");
  cmd->add_option("--pair", args->pairs,
                  "Compare NEW_BACKEND of NEW with BASE_BACKEND of BASE shape by shape "
                  "(repeatable), e.g. --pair fa2=torch-flash")
      ->type_name("NEW_BACKEND=BASE_BACKEND")
      ->allow_extra_args(false);  // one value per --pair: the files after it stay positional
  cmd->callback([args, &exit_code] { exit_code = run_compare(*args); });
}

}  // namespace fa2b

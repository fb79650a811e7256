// SPDX-License-Identifier: Apache-2.0
#include "cli/sweep_printout.h"

#include <fmt/format.h>

#include "cli/tables.h"
#include "cli/wall_summary.h"

namespace fa2b {

void print_sweep_outcome(const app::SweepOutcome& outcome) {
  if (outcome.attention) print_attention_sweep(*outcome.attention);
  if (outcome.model) print_model_sweep(*outcome.model);
}

app::ModelStepPrinter model_step_table() {
  app::ModelStepPrinter printer;
  printer.header = [] {
    fmt::print("{:<8} {:<52} {:>11} {:>11} {:>9} {:>9} {:>9} {:>10}\n", "status", "case", "peak",
               "predicted", "fwd ms", "bwd ms", "opt ms", "tokens/s");
  };
  printer.step = [](const ModelCase& c, const model::ModelResult& r) {
    fmt::print("{:<8} {:<52} {:>11} {:>11} {:>9.2f} {:>9.2f} {:>9.2f} {:>10.0f}\n", r.status,
               c.id(), human_bytes(static_cast<double>(r.peak_bytes)),
               human_bytes(static_cast<double>(r.plan.peak_bytes)), r.forward_ms, r.backward_ms,
               r.optimizer_ms, r.tokens_per_s);
    if (!r.reason.empty()) fmt::print("         {}\n", r.reason);
  };
  return printer;
}

void print_attention_sweep(const app::AttentionSweepOutcome& o) {
  const ResultSet& rs = o.results;
  print_case_table(rs.cases);
  print_verdict_table(rs.checks);
  fmt::print("\nwrote {}/results.json, results.csv, summary.md, results.jsonl\n", o.out);
  fmt::print("{}\n", wall_summary_line(rs, o.finished_before, o.workers_started));

  if (o.interrupted) {
    fmt::print(stderr,
               "fa2bench: interrupted after {} of {} case(s); the reports say \"interrupted\": "
               "true. Continue with: fa2bench sweep --resume {}\n",
               rs.cases.size(), o.planned_cases, o.out);
    return;
  }
  if (o.device_error) {
    fmt::print(stderr, "fa2bench: the sweep hit an unrecoverable device error: {}\n",
               *o.device_error);
    return;
  }
  print_gate_problems(o.problems);
}

void print_model_sweep(const app::ModelSweepOutcome& o) {
  if (!o.verdicts.empty()) print_verdict_table(o.verdicts);
  fmt::print("wrote {}\n", o.results_path);
  if (o.interrupted) {
    fmt::print(stderr,
               "fa2bench: interrupted after {} of {} step(s); results.json says \"interrupted\": "
               "true. Transformer sweeps cannot resume: run the sweep again\n",
               o.steps_run, o.steps_total);
    return;
  }
  print_gate_problems(o.problems);
}

}  // namespace fa2b

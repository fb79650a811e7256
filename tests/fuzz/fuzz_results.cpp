// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the results readers (attention and transformer results) and what the gates
// do with a results file (`check`,
// `compare` and `merge` read results.json files that CI jobs hand them): bytes -> JSON ->
// result_set_from_json. A bad file must come out as ResultsFileError (or a JSON parse error
// for bytes that are not JSON). A file that reads must
//   - write back to JSON that reads again to the same JSON (what the tool writes, it reads),
//   - survive `check`'s path: its echoed config's checks, the shard and filter rules, the
//     result gate, and the CSV, Markdown and JUnit reports.
// Anything else escaping, a crash, a sanitizer report or a hang is a bug. Built like
// fuzz_config.cpp: a libFuzzer binary with clang (-DFA2BENCH_FUZZ=ON), and with any compiler
// into fa2bench_fuzz_results_replay over tests/fuzz/results_corpus/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "checks/result_gate.h"
#include "compare/model_compare.h"
#include "config/config.h"
#include "io/json_input.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "report/report.h"

namespace {

// A broken promise of the reader or writer: report it the way a sanitizer would, and stop.
[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_results: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// What `check` does with a set that loaded, judged by its own echo (the sha256 comparison
// `check` makes first is a string compare, not worth the fuzzer's time).
void judge(fa2b::ResultSet& rs) {
  try {
    (void)fa2b::judge_result_set(rs, fa2b::parse_config(rs.config_echo, "<echo>"));
  } catch (const fa2b::ConfigError&) {
    // `check` stops here with exit 2; `compare` and `merge` audit without a config.
    (void)fa2b::audit_result_set(rs, nullptr, fa2b::GateOptions{false, true});
  }
  (void)fa2b::results_csv_text(rs);
  (void)fa2b::summary_md_text(rs);
  (void)fa2b::junit_text(rs);
}

// A transformer results file: the same gate through the workload view, and `compare`'s path.
void judge_model(const nlohmann::json& raw) {
  fa2b::ModelResultSet rs;
  try {
    rs = fa2b::model_result_set_from_json(raw, "fuzz input");
  } catch (const fa2b::ResultsFileError&) {
    return;
  }
  try {
    std::vector<fa2b::Verdict> verdicts;
    (void)fa2b::judge_result_set(rs, fa2b::parse_config(rs.config_echo, "<echo>"), verdicts);
  } catch (const fa2b::ConfigError&) {
    (void)fa2b::audit_result_set(rs, nullptr, fa2b::GateOptions{false, true});
  }
  try {
    (void)fa2b::compare_model_results(rs, rs, fa2b::CompareOptions{});
  } catch (const fa2b::CompareError&) {
    // an echo that does not verify: `compare` stops with exit 2
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 17)) return 0;  // a few dozen cases; keeps each run quick
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json raw;
  try {
    raw = fa2b::parse_json_input(text, "fuzz input");  // as read_results_document parses
  } catch (const fa2b::JsonInputError&) {
    return 0;
  }
  if (fa2b::is_model_results(raw)) {
    judge_model(raw);
    return 0;
  }
  fa2b::ResultSet rs;
  try {
    rs = fa2b::result_set_from_json(raw);
  } catch (const fa2b::ResultsFileError&) {
    return 0;
  }
  // dump(), not operator==: a NaN the writer keeps as a number compares unequal to itself.
  const std::string written = fa2b::to_json(rs).dump();
  try {
    const std::string again =
        fa2b::to_json(fa2b::result_set_from_json(nlohmann::json::parse(written))).dump();
    if (again != written) bug("a written set reads back differently", written + "\n" + again);
  } catch (const fa2b::ResultsFileError& e) {
    bug("a written set does not read back", std::string(e.what()) + "\n" + written);
  }
  judge(rs);
  return 0;
}

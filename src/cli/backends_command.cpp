// SPDX-License-Identifier: Apache-2.0
// `fa2bench backends`: the backend catalog (core/backend_catalog.h) as a table. `--format md`
// prints the README's backends table, which tests/e2e/readme_backends_table.sh compares with
// README.md so the documentation cannot drift from the catalog.
#include <fmt/format.h>

#include "backends/backend.h"
#include "cli/commands.h"

namespace fa2b {
namespace {

std::string modes_cell(const BackendEntry& e) {
  std::string out;
  for (const Mode m : e.modes) out += (out.empty() ? "" : ", ") + std::string(to_string(m));
  return out;
}

// What the forward allocates for the scores, what it keeps for the backward and what the
// backward adds.
std::string memory_cell(const BackendEntry& e) {
  std::string forward;
  switch (e.scores) {
    case ScoreStorage::streams:
      forward = "streams the scores; keeps O and the LSE";
      break;
    case ScoreStorage::dense:
      forward = "materialises S (fp32) and P; keeps O, the LSE and P";
      break;
    case ScoreStorage::padded_rows:
      forward = "materialises S (fp32) and P, rows padded to 8; keeps O, the LSE and P";
      break;
  }
  return forward + "; backward workspace: " + e.backward_workspace_note;
}

// The inputs beyond a dense batch it runs (forward): variable-length packings, a paged cache,
// head dims of V apart from Q's, head dims that are not a multiple of 8.
std::string inputs_cell(const BackendEntry& e) {
  std::string out = "dense";
  for (std::size_t i = 0; i < e.packings.size(); ++i) {
    out += (i == 0 ? "; varlen " : ", ") + std::string(to_string(e.packings[i]));
  }
  for (std::size_t i = 0; i < e.backward_packings.size(); ++i) {
    out += (i == 0 ? "; varlen backward " : ", ") + std::string(to_string(e.backward_packings[i]));
  }
  if (e.paged_kv) out += "; paged KV";
  if (e.split_head_dims) out += "; D_v ≠ D";
  if (e.pads_head_dim) out += "; D not a multiple of 8 (padded)";
  return out;
}

// What runs a case of this backend on the CPU target.
std::string cpu_cell(const BackendEntry& e) {
  if (e.device == BackendDevice::cpu) return "itself";
  return e.cpu_counterpart.empty() ? "unsupported" : e.cpu_counterpart;
}

void print_markdown() {
  fmt::print("| backend | target | on the CPU target | modes | inputs | memory | what it is |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  for (const BackendEntry& e : backend_catalog()) {
    fmt::print("| `{}` | {} | {} | {} | {} | {} | {} |\n", e.name, to_string(e.device), cpu_cell(e),
               modes_cell(e), inputs_cell(e), memory_cell(e), e.description);
  }
}

void print_text() {
  fmt::print("{:<11} {:<6} {:<13} {:<18} {:<6} {}\n", "backend", "target", "on CPU target", "modes",
             "built", "memory");
  for (const BackendEntry& e : backend_catalog()) {
    fmt::print("{:<11} {:<6} {:<13} {:<18} {:<6} {}\n", e.name, to_string(e.device), cpu_cell(e),
               modes_cell(e), backend_built(e.name) ? "yes" : "no", memory_cell(e));
    fmt::print("  inputs: {}\n", inputs_cell(e));
    fmt::print("  {}\n", e.description);
  }
}

}  // namespace

void add_backends_command(CLI::App& app, int& exit_code) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand(
      "backends",
      "The backends this fa2bench knows: target, what runs in their place on the CPU target, the\n"
      "modes they run, the inputs beyond a dense batch they take (variable-length packings, a\n"
      "paged KV cache), how they hold the scores and what the forward keeps for the backward.");
  cmd->add_option("--format", *format, "text, or md (the README's table)")
      ->check(CLI::IsMember({"text", "md"}))
      ->capture_default_str();
  cmd->callback([format, &exit_code] {
    if (*format == "md") {
      print_markdown();
    } else {
      print_text();
    }
    exit_code = kExitOk;
  });
}

}  // namespace fa2b

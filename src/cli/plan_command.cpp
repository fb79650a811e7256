// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "app/load_config_or_report.h"
#include "backends/predicted_memory.h"
#include "checks/checks.h"
#include "cli/commands.h"
#include "cli/model_commands.h"
#include "cli/tables.h"
#include "core/backend_catalog.h"
#include "core/paged_kv.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "fa2/fa2_tile_choice.h"
#include "io/atomic_file.h"
#include "io/json_input.h"
#include "io/results_json.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

struct PlanArgs {
  std::string config;
  std::string memory;
  std::vector<std::string> set;
  std::vector<std::string> backends;
  std::string cases_json;
  int device = -1;  // --device N: that GPU's multiprocessors and shared memory
  int sms = 0;      // --sms N: a GPU of N multiprocessors (sm_90 shared memory), no GPU needed
};

// The device the predictions are for: --sms N (no GPU needed), --device N, else the first
// local GPU, else a CUDA device of unknown multiprocessors (fa2's split-KV workspace is then
// named as left out). `what` describes it; false (printed) when --device names no GPU.
bool plan_device(const PlanArgs& a, TargetInfo& t, std::string& what) {
  t = TargetInfo{};
  t.cuda = true;
  if (a.sms > 0) {
    t.sms = a.sms;
    t.smem_per_block_optin = kSmemOptinSm90;
    what =
        fmt::format("{} SMs (--sms), {} KiB shared memory per block", a.sms, kSmemOptinSm90 / 1024);
    return true;
  }
  std::string why;
  const auto gpus = list_gpus(&why);
  if (a.device >= 0) {
    if (a.device >= static_cast<int>(gpus.size())) {
      fmt::print(stderr, "fa2bench: --device {}: no such CUDA device ({})\n", a.device,
                 gpus.empty() ? why : fmt::format("{} found", gpus.size()));
      return false;
    }
    t = target_info(gpus[static_cast<std::size_t>(a.device)]);
    what = fmt::format("{} ({} SMs)", gpus[static_cast<std::size_t>(a.device)].name, t.sms);
    return true;
  }
  if (!gpus.empty()) {
    t = target_info(gpus.front());
    what = fmt::format("{} ({} SMs)", gpus.front().name, t.sms);
    return true;
  }
  what =
      "multiprocessors unknown (no GPU; --sms N or --device N makes fa2's split-KV "
      "workspace exact)";
  return true;
}

// The expanded cases as JSON, for tools that run the same grid elsewhere
// (scripts/torch_sdpa_baseline.py; transformer cases, "scope": "transformer", for
// scripts/torch_train_step.py).
void write_cases_json(const Config& config, const std::string& path) {
  nlohmann::json cases = nlohmann::json::array();
  for (const Case& c : config.cases) {
    cases.push_back({{"id", c.id()},
                     {"shape_key", c.shape_key()},
                     {"sweep", c.sweep},
                     {"backend", c.backend},
                     {"role", c.role},
                     {"params", params_json(c)},
                     {"measure", measure_json(c.measure)}});
  }
  for (const ModelCase& c : config.model_cases) {
    cases.push_back({{"id", c.id()},
                     {"shape_key", c.shape_key()},
                     {"scope", "transformer"},
                     {"sweep", c.sweep},
                     {"backend", c.backend},
                     {"role", c.role},
                     {"params", model_params_json(c)},
                     {"measure", measure_json(c.measure)}});
  }
  // config_sha256: the config's canonical hash as results files record it, so a peer's results
  // name the same config as ours (compare warns when two files' configs differ).
  write_text_file_atomic(
      path,
      nlohmann::json{{"config", config.path}, {"config_sha256", config.sha256}, {"cases", cases}}
          .dump(1));
}

// Variable-length batches: their tokens, padding and FLOPs, useful (real tokens) against what a
// padded batch executes. Nothing when every case is dense.
void print_varlen_plan(const std::vector<Case>& cases) {
  if (std::none_of(cases.begin(), cases.end(), [](const Case& c) { return c.varlen(); })) return;
  fmt::print("\n{:<11} {:<48} {:>10} {:>8} {:>8} {:>12} {:>14}\n", "backend", "shape", "tokens",
             "longest", "padding", "useful GFLOP", "executed GFLOP");
  for (const Case& c : cases) {
    if (!c.varlen()) continue;
    fmt::print("{:<11} {:<48} {:>10} {:>8} {:>7.2f}x {:>12.1f} {:>14.1f}\n", c.backend,
               c.shape_key(), total_tokens(c), c.T_q, padding_ratio(c), case_flops(c) / 1e9,
               executed_flops(c) / 1e9);
  }
  fmt::print(
      "Variable-length batches: GFLOP above and TFLOP/s in results count useful FLOPs (each\n"
      "sequence at its own length); padding = B * longest / tokens; executed = what the kernels\n"
      "compute (a padded batch: the B x longest shape, padding included; packed: useful).\n");
}

// Paged KV caches: their pages, the pools that replace the contiguous K and V in "inputs" and
// "predicted", and the page table. Nothing when every case is contiguous.
void print_paged_plan(const std::vector<Case>& cases) {
  if (std::none_of(cases.begin(), cases.end(), [](const Case& c) { return c.paged(); })) return;
  fmt::print("\n{:<11} {:<48} {:>9} {:>8} {:>11} {:>11} {:>13}\n", "backend", "shape", "page",
             "pages", "K+V pools", "page table", "K+V contig.");
  for (const Case& c : cases) {
    if (!c.paged()) continue;
    const std::int64_t contiguous = 2 * c.B * c.H_kv * c.T_k * c.D * dtype_bytes(c.dtype);
    fmt::print("{:<11} {:<48} {:>9} {:>8} {:>11} {:>11} {:>13}\n", c.backend, c.shape_key(),
               c.page_size, num_pages(c), human_bytes(static_cast<double>(2 * page_pool_bytes(c))),
               human_bytes(static_cast<double>(page_table_bytes(c))),
               human_bytes(static_cast<double>(contiguous)));
  }
  fmt::print(
      "Paged KV caches: K and V live in pools of B * ceil(T_k / page) pages of [page, H_kv, D]\n"
      "(the last page of a sequence partly used) plus an int32 page table [B, pages per\n"
      "sequence]; inputs and predicted count the pools and the table instead of contiguous K, "
      "V.\n");
}

int run_plan(const PlanArgs& a) {
  const auto config = load_config_or_report(a.config, ConfigOverrides{a.set, a.backends});
  if (!config) return kExitUsage;
  if (!a.cases_json.empty()) write_cases_json(*config, a.cases_json);

  std::int64_t memory = 0;
  std::string memory_from;
  if (!a.memory.empty()) {
    const auto m = parse_size(a.memory);
    if (!m) {
      fmt::print(stderr, "fa2bench: --memory {}: expected a size like 80GiB\n",
                 clip_echo(a.memory));
      return kExitUsage;
    }
    memory = *m;
    memory_from = "--memory";
  } else {
    std::string why;
    const auto gpus = list_gpus(&why);
    if (!gpus.empty()) {
      memory = gpus.front().memory_bytes;
      memory_from = gpus.front().name;
    } else {
      memory = std::int64_t{80} << 30;
      memory_from = "default, no GPU found";
    }
  }

  if (!config->model_cases.empty()) return print_model_plan(*config, memory, memory_from);
  TargetInfo device;
  std::string device_text;
  if (!plan_device(a, device, device_text)) return kExitUsage;
  fmt::print("plan for {} ({} cases), memory {} ({}), device {}\n", config->path,
             config->cases.size(), human_bytes(static_cast<double>(memory)), memory_from,
             device_text);
  std::vector<std::string> excluded;
  bool training = false;
  for (const Case& c : config->cases) training = training || runs_backward(c.mode);
  fmt::print("{:<11} {:<48} {:>10} {:>10} {:>11} {:>11} {:>11} {:>11} {:>6}\n", "backend", "shape",
             "GFLOP", "inputs", "S (dtype)", "flash m,l,O", "saved", "predicted", "fits");
  for (const Case& c : config->cases) {
    const MemoryStats m = predicted_memory_on(c, device);
    for (const std::string& e : m.predicted_excludes)
      if (std::find(excluded.begin(), excluded.end(), e) == excluded.end()) excluded.push_back(e);
    // The saved column is empty for forward cases: nothing is kept for a backward.
    const std::string saved =
        runs_backward(c.mode) ? human_bytes(static_cast<double>(m.saved_bytes)) : "-";
    fmt::print("{:<11} {:<48} {:>10.1f} {:>10} {:>11} {:>11} {:>11} {:>11} {:>6}\n", c.backend,
               c.shape_key(), case_flops(c) / 1e9,
               human_bytes(static_cast<double>(io_bytes(c) + grad_io_bytes(c))),
               human_bytes(static_cast<double>(score_matrix_bytes(c, dtype_bytes(c.dtype)))),
               human_bytes(static_cast<double>(flash_state_bytes(c))), saved,
               human_bytes(static_cast<double>(m.predicted_bytes)) +
                   (m.predicted_excludes.empty() ? "" : "*"),
               m.predicted_bytes <= memory ? "yes" : "NO");
  }
  for (const std::string& e : excluded) {
    fmt::print("* predicted leaves out the {}{}\n", e,
               e == kFa2SplitWorkspaceExcluded
                   ? " of fa2's decode path, which depends on the device's multiprocessors: "
                     "--sms N or --device N predicts it"
                   : " (cuDNN's plans size theirs only once built; tracked, not predicted)");
  }
  print_varlen_plan(config->cases);
  print_paged_plan(config->cases);
  // The memory model of each backend is its catalog entry's (core/backend_catalog.cpp).
  const std::string materialising = catalog_names_prose(materialises_scores);
  fmt::print(
      "\nFLOPs: forward 2*B*H*T_q*T_k*(D + D_v) (4*B*H*T_q*T_k*D where D_v = D), halved when\n"
      "causal; a sliding window (/wl, /wr) counts 2*B*H*(D + D_v) per\n"
      "visible (query row, key) pair. S: the T_q x T_k score matrix\n"
      "of every (batch, head) at the input dtype. predicted: tracked peak (inputs, outputs,\n"
      "LSE; {} add S in fp32 and P in the input dtype).\n",
      materialising);
  if (training) {
    fmt::print(
        "Training modes (/bwd, /fwd_bwd): FLOPs are 2.5x (bwd) or 3.5x (fwd_bwd) the forward's;\n"
        "inputs add dO, dQ, dK, dV. saved: what the forward keeps for the backward, the fp32 LSE\n"
        "(O is an output anyway, not counted) plus P in the input dtype for {}.\n"
        "predicted is the training peak: inputs and gradients, S and P where materialised, and\n"
        "the backward's workspace:\n",
        materialising);
    std::vector<std::string> shown;
    for (const Case& c : config->cases) {
      const BackendEntry* e = find_backend_entry(c.backend);
      if (!e || !runs_backward(c.mode) ||
          std::find(shown.begin(), shown.end(), e->name) != shown.end())
        continue;
      shown.push_back(e->name);
      fmt::print("  {}: {}\n", e->name, e->backward_workspace_note);
    }
  }
  const std::vector<Verdict> verdicts = evaluate_plan_checks(config->checks, config->cases);
  print_verdict_table(verdicts);
  return verdict_exit_code(verdicts);
}

}  // namespace

void add_plan_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "The shape algebra of a config without running anything: per case FLOPs, input bytes,\n"
      "the score matrix a materialising backend needs, flash's running state, the predicted\n"
      "peak and whether it fits in --memory; then the config's `plan` checks.\n\n"
      "Example:  fa2bench plan --config configs/seed_article.json --memory 80GiB");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); default: built-in quickstart")
      ->check(CLI::ExistingFile);
  cmd->add_option("--memory", args->memory,
                  "Memory to fit in (default: the local GPU's memory, else 80GiB); units as "
                  "sweep --memory-budget")
      ->type_name("SIZE");
  cmd->add_option("--set", args->set, "Override a config value (as in sweep)");
  cmd->add_option(
         "--backends", args->backends,
         fmt::format("Replace every sweep's backends ({})", fmt::join(known_backend_names(), ", ")))
      ->delimiter(',');
  cmd->add_option("--device", args->device,
                  "Predict for this CUDA device's multiprocessors and shared memory (fa2's "
                  "split-KV workspace); default: the first GPU found");
  cmd->add_option("--sms", args->sms,
                  "Predict for a GPU of this many multiprocessors (sm_90 shared memory), without "
                  "a GPU: 132 for an H100 SXM or H200, 114 for an H100 PCIe, 108 for an A100")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--cases-json", args->cases_json,
                  "Also write the expanded cases (params, measure settings) as JSON here");
  cmd->callback([args, &exit_code] { exit_code = run_plan(*args); });
}

}  // namespace fa2b

// `fa2bench tune`: times every compiled fa2 tile candidate on each fa2 case of a config and
// reports the fastest, the measurement behind the tile table of kernels/fa2/fa2_traits.h
// (docs/tuning.md). The candidates exist only in a build with -DFA2BENCH_DEV_KERNELS=ON.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/load_config_or_report.h"
#include "core/shape_algebra.h"
#include "core/stats.h"

#if FA2BENCH_WITH_CUDA
#include <cuda_runtime.h>

#include "backends/cuda/cuda_backends.h"
#include "common/numeric.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "runner/platform.h"
#endif

namespace fa2b {
namespace {

struct TuneArgs {
  std::string config;
  std::string out;
  std::vector<std::string> set;
  std::string filter;
  int device = 0;
};

#if FA2BENCH_WITH_CUDA

struct TuneRow {
  std::string case_id;
  int variant = 0;
  std::string name;
  double ms = std::nan("");
  double tflops = std::nan("");
  double max_diff = std::nan("");  // max |O - O(shipped)| over the whole output
  std::string note;                // why there is no time (launch error, mismatch)
  bool winner = false;
};

std::string fmt_num(double v, int prec) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v, prec);
}

std::string table_md(const std::vector<TuneRow>& rows) {
  std::string s =
      "| case | variant | ms | TFLOP/s | vs shipped | max abs diff | winner |\n"
      "|---|---|--:|--:|--:|--:|:-:|\n";
  double shipped_ms = std::nan("");
  for (const TuneRow& r : rows) {
    if (r.variant == 0) shipped_ms = r.ms;
    const double speedup = shipped_ms / r.ms;
    s += fmt::format("| {} | {} {} | {} | {} | {} | {}{} | {} |\n", r.case_id, r.variant, r.name,
                     fmt_num(r.ms, 4), fmt_num(r.tflops, 1), fmt_num(speedup, 3),
                     r.max_diff >= 0 ? fmt::format("{:.1e}", r.max_diff) : std::string("-"),
                     r.note.empty() ? "" : " " + r.note, r.winner ? "**yes**" : "");
  }
  return s;
}

float to_float(std::uint16_t bits, DType dt) {
  return dt == DType::bf16 ? bf16_to_float(bits) : fp16_to_float(bits);
}

// Times variant `variant` of case `c` with the case's measure settings; fills ms / tflops.
void time_variant(Platform& platform, const Case& c, const AttnParams& p, int variant,
                  TuneRow& row) {
  const MeasureSettings& m = c.measure;
  auto* stream = static_cast<cudaStream_t>(platform.stream());
  const auto launch = [&] {
    const cudaError_t err = fa2_fwd_dev_variant(p, variant, stream);
    if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err));
  };
  for (int i = 0; i < m.warmup; ++i) launch();
  platform.check_after_run("warm-up");
  std::vector<double> samples;
  const auto start = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < m.max_samples) {
    samples.push_back(platform.time_ms(launch, m.l2_flush));
    if (static_cast<int>(samples.size()) < m.min_samples) continue;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (relative_spread(summarize(samples)) <= m.target_rel_spread || elapsed >= m.max_time_s) {
      break;
    }
  }
  row.ms = summarize(samples).median;
  row.tflops = case_flops(c) / (row.ms * 1e-3) / 1e12;
}

std::vector<TuneRow> tune_case(Platform& platform, const Case& c) {
  AttnParams p = shape_params(c);
  const std::int64_t q_elems = c.B * c.H * c.T_q * c.D;
  const std::int64_t kv_elems = c.B * c.H_kv * c.T_k * c.D;
  const std::size_t eb = static_cast<std::size_t>(dtype_bytes(c.dtype));
  void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *lse = nullptr;
  const auto release = [&] {
    for (void* ptr : {q, k, v, o, lse}) (void)cudaFree(ptr);
  };
  if (cudaMalloc(&q, q_elems * eb) != cudaSuccess || cudaMalloc(&k, kv_elems * eb) != cudaSuccess ||
      cudaMalloc(&v, kv_elems * eb) != cudaSuccess || cudaMalloc(&o, q_elems * eb) != cudaSuccess ||
      cudaMalloc(&lse, c.B * c.H * c.T_q * sizeof(float)) != cudaSuccess) {
    (void)cudaGetLastError();
    release();
    throw std::runtime_error("cannot allocate the inputs of " + c.id());
  }
  const auto desc = [&](std::int64_t heads, std::int64_t seq) {
    return TensorDesc{static_cast<int>(c.B), static_cast<int>(heads), static_cast<int>(seq),
                      static_cast<int>(c.D), tensor_strides(c.layout, heads, seq, c.D)};
  };
  const std::uint64_t seed = c.measure.seed;
  platform.fill(q, desc(c.H, c.T_q), c.dtype, seed, InputTensor::q, c.measure.inputs);
  platform.fill(k, desc(c.H_kv, c.T_k), c.dtype, seed, InputTensor::k, c.measure.inputs);
  platform.fill(v, desc(c.H_kv, c.T_k), c.dtype, seed, InputTensor::v, c.measure.inputs);
  p.q = q, p.k = k, p.v = v, p.o = o, p.lse = static_cast<float*>(lse);
  p.scale = 1.0f / std::sqrt(static_cast<float>(c.D));
  auto* stream = static_cast<cudaStream_t>(platform.stream());

  std::vector<std::uint16_t> ref(static_cast<std::size_t>(q_elems)), got(ref.size());
  std::vector<TuneRow> rows;
  const int count = fa2_fwd_dev_variant_count(p.D);
  for (int variant = 0; variant < count; ++variant) {
    TuneRow row;
    row.case_id = c.shape_key();
    row.variant = variant;
    row.name = fa2_fwd_dev_variant_name(p.D, variant);
    platform.poison(o, q_elems * eb);
    const cudaError_t err = fa2_fwd_dev_variant(p, variant, stream);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      row.note = fmt::format("(launch: {})", cudaGetErrorString(err));
      rows.push_back(row);
      continue;
    }
    platform.check_after_run(row.name.c_str());
    platform.copy_to_host(variant == 0 ? ref.data() : got.data(), o, q_elems * eb);
    double diff = 0;
    if (variant > 0) {
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = std::abs(static_cast<double>(to_float(got[i], c.dtype)) -
                                  static_cast<double>(to_float(ref[i], c.dtype)));
        diff = std::isnan(d) ? INFINITY : std::max(diff, d);
      }
    }
    row.max_diff = diff;
    // Tilings differ only in summation order: a few ulps of O. Anything larger is a bug.
    if (!(diff <= 2e-2)) {
      row.note = "(MISMATCH: not timed)";
      rows.push_back(row);
      continue;
    }
    time_variant(platform, c, p, variant, row);
    rows.push_back(row);
  }
  release();
  auto best = rows.end();
  for (auto it = rows.begin(); it != rows.end(); ++it) {
    if (!std::isnan(it->ms) && (best == rows.end() || it->ms < best->ms)) best = it;
  }
  if (best != rows.end()) best->winner = true;
  return rows;
}

int run_tune(const TuneArgs& a) {
  if (fa2_fwd_dev_variant_count(128) == 0) {
    fmt::print(stderr,
               "fa2bench tune: this build has no fa2 tuning variants; configure with "
               "-DFA2BENCH_DEV_KERNELS=ON and rebuild (see docs/tuning.md)\n");
    return kExitUsage;
  }
  const auto config = load_config_or_report(a.config, ConfigOverrides{a.set, {}});
  if (!config) return kExitUsage;
  std::vector<Case> cases;
  for (const Case& c : config->cases) {
    const bool fa2 = c.role == "fa2" || c.backend == "fa2";
    if (!fa2 || c.dtype == DType::fp32) continue;
    if (!a.filter.empty() && c.id().find(a.filter) == std::string::npos) continue;
    if (std::none_of(cases.begin(), cases.end(),
                     [&](const Case& x) { return x.shape_key() == c.shape_key(); })) {
      cases.push_back(c);
    }
  }
  if (cases.empty()) {
    fmt::print(stderr, "fa2bench tune: {} has no fp16/bf16 fa2 case{}\n", config->path,
               a.filter.empty() ? "" : " matching --filter");
    return kExitUsage;
  }
  std::string why;
  std::unique_ptr<Platform> platform = make_cuda_platform(a.device, 0, &why);
  if (!platform) {
    fmt::print(stderr, "fa2bench tune: no usable CUDA device: {}\n", why);
    return kExitRuntime;
  }
  std::vector<TuneRow> all;
  std::string winners = "| case | winner | ms | TFLOP/s | vs shipped |\n|---|---|--:|--:|--:|\n";
  for (const Case& c : cases) {
    std::string dummy;
    if (!fa2_fwd_supported(shape_params(c), &dummy)) {
      fmt::print(stderr, "fa2bench tune: skipping {}: {}\n", c.shape_key(), dummy);
      continue;
    }
    const std::vector<TuneRow> rows = tune_case(*platform, c);
    for (const TuneRow& r : rows) {
      fmt::print("{:<40} {:>2} {:<28} {:>9} ms {:>7} TFLOP/s  diff {}{}{}\n", r.case_id, r.variant,
                 r.name, fmt_num(r.ms, 4), fmt_num(r.tflops, 1),
                 r.max_diff >= 0 ? fmt::format("{:.1e}", r.max_diff) : std::string("-"),
                 r.note.empty() ? "" : " " + r.note, r.winner ? "  <- winner" : "");
      if (r.winner) {
        winners +=
            fmt::format("| {} | {} {} | {} | {} | {} |\n", r.case_id, r.variant, r.name,
                        fmt_num(r.ms, 4), fmt_num(r.tflops, 1), fmt_num(rows.front().ms / r.ms, 3));
      }
    }
    std::fflush(stdout);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  fmt::print("\nWinners:\n{}", winners);
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    if (!f) {
      fmt::print(stderr, "fa2bench tune: cannot write {}\n", a.out);
      return kExitRuntime;
    }
    f << "# fa2bench tune: " << config->path << "\n\n## Winners\n\n"
      << winners << "\n## All variants\n\n"
      << table_md(all);
    fmt::print("wrote {}\n", a.out);
  }
  return kExitOk;
}

#else  // !FA2BENCH_WITH_CUDA

int run_tune(const TuneArgs&) {
  fmt::print(stderr,
             "fa2bench tune: this build has no CUDA target and no fa2 tuning variants; build "
             "with CUDA and -DFA2BENCH_DEV_KERNELS=ON (see docs/tuning.md)\n");
  return kExitUsage;
}

#endif

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Time every compiled fa2 tile candidate on each fa2 case of a config (fp16/bf16) and\n"
      "report the fastest; each candidate's output is compared with the shipped kernel's.\n"
      "Needs a build with -DFA2BENCH_DEV_KERNELS=ON (exit 2 otherwise). See docs/tuning.md.\n\n"
      "Example:\n"
      "  fa2bench tune --config configs/perf_fwd.json --out results/h200/tune_perf_fwd.md");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON); its fa2 cases are tuned")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out,-o", args->out, "Also write the tables (markdown) to this file");
  cmd->add_option("--set", args->set, "Override a config value (as in sweep)");
  cmd->add_option("--filter", args->filter, "Only cases whose id contains this text");
  cmd->add_option("--device", args->device, "CUDA device index")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->callback([args, &exit_code] { exit_code = run_tune(*args); });
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// What a sweep produces: per-case measurements, check verdicts, and the context block.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/case.h"

namespace fa2b {

enum class Status { ok, unsupported, oom, error, timeout };
std::string_view to_string(Status);
std::optional<Status> parse_status(std::string_view);

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct TimeStats {
  double median = kNaN, mean = kNaN, min = kNaN, max = kNaN, p10 = kNaN, p90 = kNaN, stdev = kNaN;
  int n = 0;
  double first_ms = kNaN;  // the very first launch (cold: module load, caches)
  // The samples the statistics used, in the order taken: the first measure.keep_samples.
  std::vector<double> samples;
  // Indices (in the order taken, among the samples the statistics used) of samples taken while
  // the GPU was throttled; only indices below kMaxKeptSamples.
  std::vector<int> throttled_at;
  // measure.drop_throttled: throttled samples left out of the statistics; -1 when not
  // recorded, and then dropped_throttled_absent says why (when drop_throttled asked for it).
  int dropped_throttled = -1;
  std::string dropped_throttled_absent;
  // measure.drop_throttled: samples taken again, after the GPU cooled down (idled until no
  // throttle reason was left, at most kCooldownLimitSeconds: cooldown_s), to replace throttled
  // ones; -1 when no sample was throttled (nothing to re-take) or drop_throttled is off.
  int retaken_throttled = -1;
  double cooldown_s = kNaN;
  // measure.timing "graph": the launches one graph replay holds (a sample is the replay's time
  // over it); 0 for the other methods.
  int graph_launches = 0;
  // measure.timing "cold": the input sets the samples rotate among (the case's own included)
  // and the bytes the extra ones took (tracked, but left out of memory.peak_bytes); 0 otherwise.
  int cold_copies = 0;
  std::int64_t cold_copy_bytes = 0;
};

struct MemoryStats {
  std::int64_t peak_bytes = 0;       // tracked peak during the case, inputs included
  std::int64_t workspace_bytes = 0;  // peak beyond Q, K, V, O, LSE
  std::int64_t predicted_bytes = 0;  // shape algebra's prediction of peak_bytes
  std::int64_t saved_bytes = 0;      // shape algebra: what the forward keeps for the backward
  std::int64_t requested_bytes = 0;  // for status "oom": the allocation that failed
  // What predicted_bytes leaves out although the case tracks it (results'
  // memory.predicted_bytes_excludes): "cudnn workspace" (cuDNN's plans size theirs only once
  // built), "fa2 split-KV workspace" where the device's multiprocessors are unknown. Empty:
  // the prediction is the tracked peak of an ok case, byte for byte.
  std::vector<std::string> predicted_excludes;
  // False when a loaded results file had no "memory" block: the zeros above are then unknown,
  // not measured, and no check or gate may read them as 0.
  bool recorded = true;
};

// One tensor's error against the float64 reference.
struct ErrorStats {
  double max_abs_err = kNaN, mean_abs_err = kNaN, rel_l2_err = kNaN;
};

// The gradients a training-mode case checks, in the order results list them.
enum class Grad { dq, dk, dv };
inline constexpr Grad kGrads[] = {Grad::dq, Grad::dk, Grad::dv};
std::string_view to_string(Grad);

struct Accuracy {
  bool checked = false;
  double max_abs_err = kNaN, mean_abs_err = kNaN, rel_l2_err = kNaN;
  std::int64_t nonfinite = 0;     // non-finite elements in the whole output
  std::int64_t rows_checked = 0;  // query rows compared with the float64 reference
  // False when a loaded results file had no accuracy.nonfinite: unknown, never 0.
  bool nonfinite_recorded = true;
  // Training modes: dQ on the same query rows, dK and dV on key_rows_checked key rows.
  bool grads_checked = false;
  ErrorStats grad[3];               // indexed by Grad
  std::int64_t grad_nonfinite = 0;  // non-finite elements in the whole of dQ, dK and dV
  std::int64_t key_rows_checked = 0;
  const ErrorStats& of(Grad g) const { return grad[static_cast<int>(g)]; }
  ErrorStats& of(Grad g) { return grad[static_cast<int>(g)]; }
};

// Wall time of a case's phases in the runner, milliseconds: setup (allocation, input
// generation, prepare, poisoning), verify (the first run, the float64 check, --dump), timing
// (warm-ups and timed samples), total (all of run_case, freeing included; more than the sum).
// total is NaN, and results carry no wall_ms, for cases the runner did not run (unsupported
// before allocation, or results made without a run); phases not reached stay 0.
struct WallTimes {
  double setup = 0, verify = 0, timing = 0, total = kNaN;
};

struct CaseResult {
  Case c;
  std::string target;     // "cuda" or "cpu"
  int device_index = -1;  // the CUDA device the case ran on (several with --devices); -1: none
  Status status = Status::ok;
  std::string reason;  // why unsupported / oom / error
  TimeStats time;
  double flops = 0;      // by flash-attention's convention
  double tflops = kNaN;  // flops / median time
  double gbps = kNaN;    // minimal bytes (inputs once, outputs once) / median time
  // tflops and gbps as percentages of the device's vendor peaks (core/gpu_peaks.h); NaN where
  // the device or dtype has none.
  double pct_of_peak_flops = kNaN, pct_of_peak_bw = kNaN;
  // The same as fractions (core/peak_fractions.h): results' `mfu` (model FLOPs utilisation)
  // and `bw_frac`; NaN where unknown.
  double mfu = kNaN, bw_frac = kNaN;
  // The device-to-device copy bandwidth the running process measured when it started (GB/s;
  // the sweep lifts it into the device block) and gbps as a percentage of it; NaN where none.
  double copy_bw_gbs = kNaN, pct_of_copy_bw = kNaN;
  double prepare_ms = kNaN;  // wall time of backend.prepare() (workspace, plan building)
  WallTimes wall_ms;
  std::string backend_info;  // free-form, from Backend::info() after prepare(); "" when none
  // The command line that re-runs this case alone (runner/repro_command.h), set by the sweep
  // that ran it; "" where none was recorded (results made otherwise, older files).
  std::string repro;
  MemoryStats memory;
  Accuracy accuracy;
  // The device's state over the timed samples (core/gpu_state.h), as written to results;
  // {"absent": why} without readings; null for cases that did not time anything.
  nlohmann::json gpu_state;
};

// deferred: a check of a shard (`sweep --shard I/N`) that selects cases of other shards; it is
// shown and counted but judged only by `merge`, so it never fails a shard's exit code.
// skipped: the check's premise does not hold on this device (a ratio over pairs where both
// ran, with fewer than min_pairs such pairs; a `where: fits/exceeds` selection left empty); the
// detail says why. Shown and counted, never a failure; a gate problem of a case it selects
// (a crash, a missing case) still turns it into `error`.
enum class VerdictKind { pass, fail, error, deferred, skipped };
std::string_view to_string(VerdictKind);

struct Verdict {
  std::string name;
  std::string kind;  // check kind: threshold, ratio, growth, status, plan, accuracy_rule
  VerdictKind verdict = VerdictKind::error;
  double measured = kNaN;
  std::string threshold;  // human-readable bound, e.g. "< 0.001"
  std::string detail;     // one line: what was compared, or why it could not be
};

inline constexpr const char* kResultsSchema = "fa2bench/results/1";

// The config a sweep ran, as its results record it: what the runner needs of a config, so that
// the runner does not depend on the config layer (config/config.h: source_of()).
struct ConfigSource {
  std::string path;
  std::string sha256;
  nlohmann::json echo;  // the config after overrides
};

struct ResultSet {
  std::string schema = kResultsSchema;
  nlohmann::json tool;    // version, git, build
  nlohmann::json host;    // hostname, cpu threads, os
  nlohmann::json device;  // device block (GPU or CPU)
  std::string target;     // "cuda" or "cpu"
  std::string config_path;
  std::string config_sha256;
  nlohmann::json config_echo;
  std::vector<CaseResult> cases;
  std::vector<Verdict> checks;
  bool interrupted = false;
  bool profile_once = false;  // `sweep --profile-once`: untimed, unverified single runs
  double wall_s = 0;
  // `sweep --shard I/N`: this set holds the cases with index % N == I (count 0: not sharded).
  int shard_index = 0, shard_count = 0;
  // `sweep --filter REGEX` as given (empty: none): the set holds only the cases it matched,
  // which the gates need to know to tell a filtered run from an incomplete one.
  std::string filter;
  // Whether the sweep ran with the SM clock locked (`sweep --lock-clocks`; app/clock_lock.h):
  // {"locked": bool, ...}; null: not recorded (results written before the field existed).
  nlohmann::json clocks;
};

}  // namespace fa2b

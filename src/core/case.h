// SPDX-License-Identifier: Apache-2.0
// A single benchmark case: one backend on one attention shape. Pure host data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa2b {

enum class DType { fp16, bf16, fp32 };
enum class Layout { bhsd, bshd };
// fwd: the forward alone; bwd: the backward alone (the forward runs once, untimed, to produce
// what the backward reads); fwd_bwd: one training step of the attention, both passes timed.
enum class Mode { fwd, bwd, fwd_bwd };
enum class InputDist { normal, uniform, large, nan };
// How a case's output is checked against the float64 reference (measure.verify). sample: the
// sampled query rows (measure.verify_rows) and, in the training modes, sampled key rows;
// full: every query row and every key row; none: no check at all (accuracy.checked false, and a
// check on an accuracy metric of such a case is an error, never a pass).
enum class VerifyMode { sample, full, none };
// How a batch of sequences of different lengths (Case::lengths) is laid out. padded: every
// sequence padded to the longest (B x max(lengths) tokens, a key-padding mask), the way a
// framework without a variable-length API runs; packed: the tokens concatenated
// ((total_tokens, H, D), cu_seqlens offsets), flash-attention's varlen API.
enum class Packing { padded, packed };
// Where K and V live. contiguous: one [B, H_kv, T_k, D] tensor each (in the case's layout);
// paged: a pool of pages of page_size rows, [num_pages, page_size, H_kv, D] (flash-attention's
// block_table layout), each (batch, logical page) mapped to a physical page through an int32
// page table [B, ceil(T_k / page_size)] that is a seeded random permutation of the pages
// (core/paged_kv.h), so that a kernel cannot rely on contiguity.
enum class KvLayout { contiguous, paged };

std::string_view to_string(DType);
std::string_view to_string(Layout);
std::string_view to_string(Mode);
// True for the modes that run the backward (bwd, fwd_bwd).
inline bool runs_backward(Mode m) {
  return m != Mode::fwd;
}
std::string_view to_string(InputDist);
std::optional<DType> parse_dtype(std::string_view);
std::optional<Layout> parse_layout(std::string_view);
std::optional<Mode> parse_mode(std::string_view);
std::optional<InputDist> parse_input_dist(std::string_view);
std::string_view to_string(VerifyMode);
std::optional<VerifyMode> parse_verify_mode(std::string_view);
// measure.timing (docs/methods.md "Timing methods"): events around each launch after an L2 flush
// kernel; graph, the launch captured N times in one CUDA graph and replayed (per-launch time =
// replay / N); cold, no flush kernel but a rotation among input copies that together exceed
// twice the last-level cache.
enum class TimingMethod { events, graph, cold };
std::string_view to_string(TimingMethod);
std::optional<TimingMethod> parse_timing_method(std::string_view);
// graph: the launches one replay holds are chosen so a replay takes about kGraphReplayMs, at
// most kMaxGraphLaunches. cold: at most kMaxColdCopies input sets (the case's own included).
inline constexpr double kGraphReplayMs = 1.0;
inline constexpr int kMaxGraphLaunches = 1000;
inline constexpr int kMaxColdCopies = 256;
std::string_view to_string(Packing);
std::optional<Packing> parse_packing(std::string_view);
std::string_view to_string(KvLayout);
std::optional<KvLayout> parse_kv_layout(std::string_view);
// Page sizes a paged case takes: powers of two from kMinPageSize to kMaxPageSize tokens (1, as
// FlashInfer allows, up to 256); kDefaultPageSize when a paged case names none.
inline constexpr std::int64_t kMinPageSize = 1, kMaxPageSize = 256, kDefaultPageSize = 64;
int dtype_bytes(DType);

// Raw samples a case can keep in results (the first ones, in the order taken): enough for a
// rank test between two runs, bounded so a long case does not swell the file.
inline constexpr int kMaxKeptSamples = 1000;
// Bounds of measure.sustained_s and of the calls it may take (a kernel of microseconds).
inline constexpr double kMaxSustainedSeconds = 600.0;
inline constexpr long long kMaxSustainedCalls = 1000000;
// Bound of measure.settle_s (runner/settle.h).
inline constexpr double kMaxSettleSeconds = 60.0;

// How a case is measured. Defaults come from the config's "measure" block; a sweep may
// override them.
struct MeasureSettings {
  int warmup = 3;
  int min_samples = 10;
  int max_samples = 100;
  double target_rel_spread = 0.02;  // (p90 - p10) / median
  double max_time_s = 5.0;          // per case, timed samples only
  std::uint64_t seed = 42;
  bool l2_flush = true;
  int verify_rows = 256;  // float64 reference rows per case (all rows when fewer)
  VerifyMode verify = VerifyMode::sample;
  InputDist inputs = InputDist::normal;
  TimingMethod timing = TimingMethod::events;
  // How many of the timed samples results keep (time_ms.samples); 0 keeps none. The config
  // takes true (kMaxKeptSamples), false (0) or a count up to kMaxKeptSamples.
  int keep_samples = kMaxKeptSamples;
  // Samples taken while the GPU reported a throttle reason other than idle are left out of the
  // statistics (and counted) instead of only flagged.
  bool drop_throttled = false;
  // Seconds of back-to-back calls after the timed samples (no L2 flush, no event per call), over
  // which the GPU's energy counter gives energy per call and the GPU reaches its sustained
  // state (a power cap shows here, not in short samples). 0 leaves the phase out.
  double sustained_s = 0.0;
  // Before the warm-up, wait up to this many seconds while the GPU still reports a throttle
  // reason (a power cap, thermal) left by the case before (runner/settle.h). 0: no wait.
  double settle_s = 0.0;
  // `sweep --profile-once` (not a config key): no warm-ups, no verification, one timed sample,
  // so a profiler (ncu, nsys) sees each case's kernel exactly once.
  bool profile_once = false;
};

// A sliding window (flash-attention's window_size, bottom-right aligned like our causal mask):
// query row i of T_q sees key j when j >= i + diag - left (if left >= 0) and j <= i + diag +
// right (if right >= 0), diag = T_k - T_q. -1 leaves a side unbounded; {-1, -1} is no window.
// With causal (which is {-1, 0}) the two intersect; config expansion stores a causal case's
// right bound as -1 (0 and -1 mean the same there) and refuses a right bound above 0.
struct SlidingWindow {
  std::int64_t left = -1, right = -1;
  bool bounded() const { return left >= 0 || right >= 0; }
  friend bool operator==(const SlidingWindow& a, const SlidingWindow& b) {
    return a.left == b.left && a.right == b.right;
  }
  friend bool operator!=(const SlidingWindow& a, const SlidingWindow& b) { return !(a == b); }
};

// Where a variable-length batch's lengths came from: a list written out, or B lengths drawn from
// a seeded distribution (core/seq_lengths.h draws them). Kept beside the lengths so that the
// case's id names the distribution rather than B numbers.
enum class LengthDist { list, uniform, lognormal };
struct LengthSource {
  LengthDist dist = LengthDist::list;
  // uniform: integers min..max, each equally likely; lognormal: exp(N(mean, sigma)) rounded to
  // the nearest integer and clamped to min..max (mean and sigma of the length's logarithm, as
  // numpy's lognormal takes them).
  std::int64_t min = 0, max = 0;
  double mean = 0, sigma = 0;
  std::uint64_t seed = 0;
  friend bool operator==(const LengthSource& a, const LengthSource& b) {
    return a.dist == b.dist && a.min == b.min && a.max == b.max && a.mean == b.mean &&
           a.sigma == b.sigma && a.seed == b.seed;
  }
};
std::string_view to_string(LengthDist);

struct Case {
  std::string sweep;    // name of the sweep that produced the case
  std::string backend;  // backend that runs it (e.g. "cpu-flash")
  std::string role;     // backend named in the config (e.g. "fa2"); equals backend unless mapped
  std::int64_t B = 1, H = 1, H_kv = 1, T_q = 1, T_k = 1, D = 64;
  // The head dim of V and O (and dO, dV) where it differs from D, the head dim of Q and K
  // (D_qk = 192 / D_v = 128 in DeepSeek-style prefill); 0: the same as D. Read it as Dv().
  std::int64_t D_v = 0;
  std::int64_t Dv() const { return D_v > 0 ? D_v : D; }
  bool split_head_dims() const { return Dv() != D; }
  DType dtype = DType::fp16;
  bool causal = false;
  SlidingWindow window;
  Layout layout = Layout::bhsd;
  Mode mode = Mode::fwd;
  // A variable-length batch: sequence b has lengths[b] query and key tokens (self-attention),
  // 0 included; B == lengths.size() and T_q == T_k == the longest. Empty: every sequence is
  // T_q x T_k (a dense batch), and packing and lengths_source mean nothing.
  std::vector<std::int64_t> lengths;
  LengthSource lengths_source;
  // A packed batch's tensors are token-major, (total_tokens, H, D): layout is bshd.
  Packing packing = Packing::padded;
  bool varlen() const { return !lengths.empty(); }
  // A paged KV cache (dense batches only): tokens per page; 0 for a contiguous one.
  KvLayout kv_layout = KvLayout::contiguous;
  std::int64_t page_size = 0;
  bool paged() const { return kv_layout == KvLayout::paged; }
  // Which kernel variant a dev-variant backend runs (catalog entry `variants`, e.g. fa2-dev):
  // 0 is the shipped kernel, 1.. the tuning candidates (`fa2bench tune`). Always 0 for others.
  int variant = 0;
  MeasureSettings measure;

  // Stable identity used to match cases across result files, e.g.
  // "fa2/B1-H32-T2048-D128/fp16/causal"; T_q != T_k, H_kv != H, D_v != D ("-D192-Dv128"), a window
  // ("/wl128-wr0": each bounded side), bshd and a mode other than fwd add their own tags (so
  // forward ids stay those of results written before modes and windows), and so does a variant
  // other than 0 ("/v3", last). A variable-length batch replaces -T<n> with its lengths' tag
  // (-L=uniform512-8192s1, -L=list-<hash of the lengths>; core/seq_lengths.h) and adds /padded or
  // /packed after the mask (packed leaves out the /bshd it implies). A paged KV cache adds
  // /paged<page_size> after the mask and window.
  std::string id() const;
  // The id without the backend ("B1-H32-T2048-D128/fp16/causal"; with a variant's tag).
  std::string shape_key() const;
};

// Element strides of one tensor (B, H, T, D) for a layout; the innermost dim is contiguous.
struct Strides {
  std::int64_t b, h, t;
};
Strides tensor_strides(Layout, std::int64_t heads, std::int64_t seq, std::int64_t dim);

}  // namespace fa2b

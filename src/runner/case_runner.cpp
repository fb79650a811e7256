// SPDX-License-Identifier: Apache-2.0
#include "runner/case_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "backends/predicted_memory.h"
#include "backends/shape_params.h"
#include "common/numeric.h"
#include "core/gpu_peaks.h"
#include "core/gpu_state.h"
#include "core/paged_kv.h"
#include "core/peak_fractions.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "core/stats.h"
#include "core/throttled_samples.h"
#include "runner/case_dump.h"
#include "runner/case_verify.h"
#include "runner/settle.h"
#include "runtime/nvtx_range.h"

namespace fa2b {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The case's tensors, owned through the platform's tracker. The training modes add dO (like
// O) and the gradients dQ, dK, dV (like Q, K, V). A paged case's k and v are its page pools
// (kd and vd still describe the logical tensors) and page_table its int32 table. Q and K are
// D wide; V and O (so dO and dV) c.Dv() wide, which differs in split-head-dim cases.
struct CaseTensors {
  TrackedBuffer q, k, v, o, lse, page_table;
  TrackedBuffer d_o, dq, dk, dv;
  TensorDesc qd, kd, vd, od;
};

// A packed batch's tensors are one batch of all its tokens (core/seq_lengths.h's TokenLayout).
TensorDesc describe(const Case& c, std::int64_t heads, const TokenLayout& tokens,
                    std::int64_t width) {
  return {static_cast<int>(tokens.batches), static_cast<int>(heads), static_cast<int>(tokens.rows),
          static_cast<int>(width), tensor_strides(c.layout, heads, tokens.rows, width)};
}

std::size_t tensor_bytes(const Case& c, const TensorDesc& t) {
  return static_cast<std::size_t>(t.B) * t.heads * t.seq * t.D * dtype_bytes(c.dtype);
}

CaseTensors allocate(const Case& c, MemoryTracker& tracker) {
  CaseTensors t;
  t.qd = describe(c, c.H, query_layout(c), c.D);
  t.kd = describe(c, c.H_kv, key_layout(c), c.D);
  t.vd = describe(c, c.H_kv, key_layout(c), c.Dv());
  t.od = describe(c, c.H, query_layout(c), c.Dv());
  t.q = TrackedBuffer(tracker, tensor_bytes(c, t.qd), "Q");
  if (c.paged()) {
    const auto pool = static_cast<std::size_t>(page_pool_bytes(c));
    t.k = TrackedBuffer(tracker, pool, "K pages");
    t.v = TrackedBuffer(tracker, pool, "V pages");
    t.page_table =
        TrackedBuffer(tracker, static_cast<std::size_t>(page_table_bytes(c)), "page table");
  } else {
    t.k = TrackedBuffer(tracker, tensor_bytes(c, t.kd), "K");
    t.v = TrackedBuffer(tracker, tensor_bytes(c, t.vd), "V");
  }
  t.o = TrackedBuffer(tracker, tensor_bytes(c, t.od), "O");
  t.lse = TrackedBuffer(tracker, static_cast<std::size_t>(query_rows(c) * c.H) * 4, "LSE");
  if (runs_backward(c.mode)) {
    t.d_o = TrackedBuffer(tracker, tensor_bytes(c, t.od), "dO");
    t.dq = TrackedBuffer(tracker, tensor_bytes(c, t.qd), "dQ");
    t.dk = TrackedBuffer(tracker, tensor_bytes(c, t.kd), "dK");
    t.dv = TrackedBuffer(tracker, tensor_bytes(c, t.vd), "dV");
  }
  return t;
}

AttnBwdParams bwd_params_for(const AttnParams& p, const CaseTensors& t) {
  AttnBwdParams b;
  b.fwd = p;
  b.d_o = t.d_o.get();
  b.d_q = t.dq.get();
  b.d_k = t.dk.get();
  b.d_v = t.dv.get();
  return b;
}

AttnParams params_for(const Case& c, const CaseTensors& t) {
  AttnParams p = shape_params(c);
  p.q = t.q.get();
  p.k = t.k.get();
  p.v = t.v.get();
  p.o = t.o.get();
  p.lse = t.lse.as<float>();
  if (c.paged()) p.block_table = t.page_table.as<int>();
  return p;
}

// K and V of a paged case: the seeded page table goes to the platform, and the platform fills
// the pools through it with the values of the contiguous case, bit for bit (on the device for
// the cuda target: a host staging of the 128 GiB caches of decode.json took minutes).
void fill_paged_kv(const Case& c, const CaseTensors& t, Platform& platform, InputDist dist) {
  const std::vector<std::int32_t> table = page_table(c);
  platform.copy_from_host(t.page_table.get(), table.data(), table.size() * sizeof(std::int32_t));
  for (const auto& [which, pool] :
       {std::pair{InputTensor::k, t.k.get()}, std::pair{InputTensor::v, t.v.get()}}) {
    platform.fill_paged(pool, t.k.bytes(), t.kd, static_cast<int>(c.page_size),
                        t.page_table.as<std::int32_t>(), c.dtype, c.measure.seed, which, dist);
  }
}

// The timed region of the case's mode: the forward, the backward alone (its forward ran
// before), or both.
std::function<void()> timed_region(const Case& c, Backend& backend, const AttnParams& p,
                                   const AttnBwdParams& bp, Platform& platform) {
  switch (c.mode) {
    case Mode::fwd:
      break;
    case Mode::bwd:
      return [&backend, &bp, &platform] { backend.run_backward(bp, platform.stream()); };
    case Mode::fwd_bwd:
      return [&backend, &p, &bp, &platform] {
        backend.run(p, platform.stream());
        backend.run_backward(bp, platform.stream());
      };
  }
  return [&backend, &p, &platform] { backend.run(p, platform.stream()); };
}

// measure.timing "cold": the extra input sets the timed samples rotate among (Q, K, V and, in
// the training modes, dO; a paged case's K and V pools, read through the case's own page
// table), filled exactly as the case's own so every launch computes the same outputs. Outputs
// (O, LSE, gradients) are shared. The launches are built over `params`/`bwd`, whose addresses
// stay put (reserved up front).
struct ColdInputs {
  std::vector<TrackedBuffer> buffers;
  std::vector<AttnParams> params;
  std::vector<AttnBwdParams> bwd;
  std::vector<std::function<void()>> launches;  // [0]: the case's own inputs
  std::int64_t extra_bytes = 0;
};

std::size_t input_bytes(const Case& c, const CaseTensors& t) {
  return t.q.bytes() + t.k.bytes() + t.v.bytes() + (runs_backward(c.mode) ? t.d_o.bytes() : 0);
}

// How many input sets (the case's own included) make the samples between two uses of one set
// read more than twice the cache: at least 2, at most kMaxColdCopies.
int cold_copy_count(std::size_t per_set, std::int64_t cache) {
  const double need = 2.0 * static_cast<double>(std::max<std::int64_t>(cache, 1)) /
                      static_cast<double>(std::max<std::size_t>(per_set, 1));
  return static_cast<int>(std::clamp<double>(std::ceil(need) + 1, 2, kMaxColdCopies));
}

void make_cold_inputs(const Case& c, const CaseTensors& t, Backend& backend, const AttnParams& p,
                      const AttnBwdParams& bp, Platform& platform, const std::function<void()>& own,
                      ColdInputs& cold) {
  const int copies = cold_copy_count(input_bytes(c, t), platform.cache_bytes());
  const bool backward = runs_backward(c.mode);
  const InputDist dist = c.measure.inputs;
  const std::uint64_t seed = c.measure.seed;
  MemoryTracker& tracker = platform.tracker();
  cold.params.reserve(static_cast<std::size_t>(copies));
  cold.bwd.reserve(static_cast<std::size_t>(copies));
  cold.launches.reserve(static_cast<std::size_t>(copies));
  cold.launches.push_back(own);
  const std::int64_t before = tracker.current_bytes();
  try {
    for (int i = 1; i < copies; ++i) {
      TrackedBuffer q(tracker, t.q.bytes(), "Q (cold copy)");
      TrackedBuffer k(tracker, t.k.bytes(), "K (cold copy)");
      TrackedBuffer v(tracker, t.v.bytes(), "V (cold copy)");
      TrackedBuffer d_o;
      platform.fill(q.get(), t.qd, c.dtype, seed, InputTensor::q, dist);
      if (c.paged()) {
        for (const auto& [which, pool] :
             {std::pair{InputTensor::k, k.get()}, std::pair{InputTensor::v, v.get()}}) {
          platform.fill_paged(pool, k.bytes(), t.kd, static_cast<int>(c.page_size),
                              t.page_table.as<std::int32_t>(), c.dtype, seed, which, dist);
        }
      } else {
        platform.fill(k.get(), t.kd, c.dtype, seed, InputTensor::k, dist);
        platform.fill(v.get(), t.vd, c.dtype, seed, InputTensor::v, dist);
      }
      AttnParams pi = p;
      pi.q = q.get();
      pi.k = k.get();
      pi.v = v.get();
      AttnBwdParams bi = bp;
      if (backward) {
        d_o = TrackedBuffer(tracker, t.d_o.bytes(), "dO (cold copy)");
        platform.fill(d_o.get(), t.od, c.dtype, seed, InputTensor::d_o, dist);
        bi.d_o = d_o.get();
      }
      bi.fwd = pi;
      cold.params.push_back(pi);
      cold.bwd.push_back(bi);
      cold.launches.push_back(
          timed_region(c, backend, cold.params.back(), cold.bwd.back(), platform));
      cold.buffers.push_back(std::move(q));
      cold.buffers.push_back(std::move(k));
      cold.buffers.push_back(std::move(v));
      if (backward) cold.buffers.push_back(std::move(d_o));
    }
  } catch (const OutOfMemory& e) {
    throw std::runtime_error(fmt::format(
        "cold timing: {} copies of the inputs ({} bytes each) to exceed twice the {}-byte cache "
        "did not fit ({}); time this case with measure.timing \"events\"",
        copies - 1, input_bytes(c, t), platform.cache_bytes(), e.what()));
  }
  platform.check_after_run("cold-timing input copies");
  cold.extra_bytes = tracker.current_bytes() - before;
}

// The per-launch time of one timed sample, by measure.timing.
using SampleFn = std::function<double()>;

void sample_timings(const Case& c, const std::function<void()>& launch, const ColdInputs* cold,
                    Platform& platform, CaseResult& r) {
  const MeasureSettings& m = c.measure;
  GpuStateProbe* probe = platform.gpu_state_probe();
  std::optional<SettleOutcome> settled;
  if (m.settle_s > 0 && !m.profile_once && probe != nullptr) {
    settled = settle_gpu(*probe, m.settle_s, [](double s) {
      std::this_thread::sleep_for(std::chrono::duration<double>(s));
    });
  }
  const int warmup = m.profile_once ? 0 : m.warmup;  // --profile-once: the one run profiled
  for (int i = 0; i < warmup; ++i) platform.time_ms(launch, false);
  platform.check_after_run("warm-up");

  // events: one launch between two events after the flush kernel. graph: one replay of N
  // captured launches after the flush kernel, over N. cold: one launch on the next input set,
  // no flush kernel (the rotation is what makes the caches cold).
  SampleFn sample = [&] { return platform.time_ms(launch, m.l2_flush); };
  struct GraphRelease {  // the captured graph goes on every path out
    Platform* p = nullptr;
    ~GraphRelease() {
      if (p) p->release_graph();
    }
  } graph_release;
  if (m.timing == TimingMethod::graph) {
    int n = 1;
    if (!m.profile_once) {  // --profile-once: the profiled launch once, in a graph of one
      const double one = platform.time_ms(launch, false);
      n = one > 0 ? static_cast<int>(
                        std::clamp<double>(std::ceil(kGraphReplayMs / one), 1, kMaxGraphLaunches))
                  : kMaxGraphLaunches;
    }
    graph_release.p = &platform;
    platform.capture_graph(launch, n);
    if (!m.profile_once) platform.time_graph_ms(false);  // one untimed replay
    platform.check_after_run("graph capture");
    r.time.graph_launches = n;
    sample = [&platform, &m, n] { return platform.time_graph_ms(m.l2_flush) / n; };
  } else if (m.timing == TimingMethod::cold && cold != nullptr) {
    r.time.cold_copies = static_cast<int>(cold->launches.size());
    r.time.cold_copy_bytes = cold->extra_bytes;
    sample = [&platform, cold, next = std::size_t{0}]() mutable {
      next = (next + 1) % cold->launches.size();  // set 0 ran last (the warm-up)
      return platform.time_ms(cold->launches[next], false);
    };
  }

  std::vector<double> samples;
  const GpuReading state_start = probe ? probe->read() : GpuReading{};
  std::vector<GpuReading> state_after;
  const auto start = std::chrono::steady_clock::now();
  const int max_samples = m.profile_once ? 1 : m.max_samples;
  while (static_cast<int>(samples.size()) < max_samples) {
    {
      const NvtxRange range(kNvtxEnabled ? fmt::format("{} #{}", c.id(), samples.size())
                                         : std::string());
      samples.push_back(sample());
    }
    if (probe) state_after.push_back(probe->read_sample());
    const int n = static_cast<int>(samples.size());
    if (n >= m.min_samples) {
      // The spread of the samples the statistics will use: with drop_throttled, a throttled
      // sample must not stop (or prolong) the sampling.
      const std::vector<double> used =
          m.drop_throttled ? select_samples(samples, state_after, true).used : samples;
      if (!used.empty() && relative_spread(summarize(used)) <= m.target_rel_spread) break;
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= m.max_time_s) break;
    }
  }
  platform.check_after_run("timed samples");
  // measure.drop_throttled: the throttled samples are taken again after a cool-down (the GPU
  // idles until no throttle reason is left), one replacement per throttled sample within another
  // max_time_s; a replacement taken under a throttle reason is left out like the first. Where
  // the case itself drives the card to its cap, the replacements throttle again and the
  // selection keeps them all (select_samples): the cap is then the state the case runs in.
  int retaken = -1;
  double cooldown_s = kNaN;
  if (m.drop_throttled && probe && !m.profile_once && state_after.size() == samples.size()) {
    const auto throttled =
        static_cast<int>(std::count_if(state_after.begin(), state_after.end(), is_throttled));
    if (throttled > 0) {
      const SettleOutcome cool = settle_gpu(
          *probe, std::max(m.settle_s, kCooldownLimitSeconds),
          [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); });
      cooldown_s = cool.waited_s;
      retaken = 0;
      const auto again = std::chrono::steady_clock::now();
      while (retaken < throttled &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count() <
                 m.max_time_s) {
        samples.push_back(sample());
        state_after.push_back(probe->read_sample());
        ++retaken;
      }
      platform.check_after_run("re-taken samples");
    }
  }
  if (probe && !state_after.empty()) {
    // The per-sample readings are light (GpuStateProbe::read_sample): the end of the loop, whose
    // memory clock, temperature and energy the results report, is read in full once.
    const GpuReading end = probe->read();
    GpuReading& last = state_after.back();
    last.mem_mhz = end.mem_mhz;
    last.temp_c = end.temp_c;
    last.energy_j = end.energy_j;
  }
  r.gpu_state = probe ? gpu_state_json(state_start, state_after, r.flops)
                      : gpu_state_absent_json(platform.gpu_state_absent());
  if (settled) r.gpu_state["settle"] = settle_json(*settled);
  SampleSelection sel = select_samples(samples, state_after, m.drop_throttled);
  const TimeStats before = r.time;  // first_ms and the timing method's bookkeeping
  r.time = summarize(sel.used);
  r.time.first_ms = before.first_ms;
  r.time.graph_launches = before.graph_launches;
  r.time.cold_copies = before.cold_copies;
  r.time.cold_copy_bytes = before.cold_copy_bytes;
  const std::size_t keep = std::min<std::size_t>(
      sel.used.size(), static_cast<std::size_t>(std::clamp(m.keep_samples, 0, kMaxKeptSamples)));
  r.time.samples.assign(sel.used.begin(), sel.used.begin() + static_cast<std::ptrdiff_t>(keep));
  for (int i : sel.throttled_at) {
    if (i < kMaxKeptSamples) r.time.throttled_at.push_back(i);
  }
  if (m.drop_throttled) {
    r.time.retaken_throttled = retaken;
    r.time.cooldown_s = cooldown_s;
    if (sel.known) {
      r.time.dropped_throttled = sel.dropped;
    } else {
      r.time.dropped_throttled_absent =
          probe ? "the device did not report throttle reasons for every sample"
                : platform.gpu_state_absent();
    }
  }
}

// measure.sustained_s of back-to-back calls, timed as one span between two readings: energy per
// call without the flushes and gaps of the samples, and the state the GPU settles in under
// sustained load. Only where there is a probe (the block says why not otherwise).
void sample_sustained(const Case& c, const std::function<void()>& launch, Platform& platform,
                      CaseResult& r) {
  const MeasureSettings& m = c.measure;
  GpuStateProbe* probe = platform.gpu_state_probe();
  if (m.sustained_s <= 0 || m.profile_once || probe == nullptr || !(r.time.median > 0)) return;
  const long long calls = std::clamp<long long>(
      static_cast<long long>(std::ceil(m.sustained_s * 1000.0 / r.time.median)), 1,
      kMaxSustainedCalls);
  const std::function<void()> loop = [&launch, calls] {
    for (long long i = 0; i < calls; ++i) launch();
  };
  const GpuReading before = probe->read();
  const double ms = platform.time_ms(loop, false);
  const GpuReading after = probe->read();
  platform.check_after_run("sustained calls");
  r.gpu_state["sustained"] = gpu_sustained_json(before, after, calls, ms, r.flops);
}

// The first run (its time is time_ms.first), the float64 check of its output (and gradients),
// and --dump: the result's accuracy and wall_ms.verify.
void verify_and_dump(const Case& c, const CaseTensors& t, const std::function<void()>& launch,
                     const DumpRequest* dump, Platform& platform, CaseResult& r) {
  const auto start = Clock::now();
  r.time.first_ms = platform.time_ms(launch, false);
  platform.check_after_run("first run");
  VerifyTensors vt;
  vt.q = t.q.get();
  vt.k = t.k.get();
  vt.v = t.v.get();
  vt.o = t.o.get();
  vt.d_o = t.d_o.get();
  vt.dq = t.dq.get();
  vt.dk = t.dk.get();
  vt.dv = t.dv.get();
  vt.page_table = t.page_table.as<std::int32_t>();
  vt.qd = t.qd;
  vt.kd = t.kd;
  vt.vd = t.vd;
  vt.od = t.od;
  VerifyData vd;
  r.accuracy = verify_output(c, vt, platform, vd, dump != nullptr);
  if (runs_backward(c.mode)) verify_gradients(c, vt, vd.rows, platform, r.accuracy);
  if (dump) {
    const DumpTensors dt{t.q.get(), t.k.get(), t.v.get(), t.o.get(),         t.qd,
                         t.kd,      t.vd,      t.od,      t.page_table.get()};
    std::string warning;
    try {
      warning = dump_case(dump->dir, dump->max_bytes, c, dt, vd.rows, vd.ref, vd.ref_lse, platform);
    } catch (const std::runtime_error& e) {
      warning = std::string("--dump: ") + e.what();
    }
    if (!warning.empty()) fmt::print(stderr, "fa2bench: warning: {}\n", warning);
  }
  r.wall_ms.verify = ms_since(start);
}

}  // namespace

CaseResult run_case(const Case& c, Backend& backend, Platform& platform, const DumpRequest* dump) {
  CaseResult r;
  r.c = c;
  r.target = platform.target();
  if (r.target == "cuda") r.device_index = platform.device_block().value("index", -1);
  r.flops = case_flops(c);
  r.memory = predicted_memory_on(c, platform.info());

  const NvtxRange case_range(kNvtxEnabled ? c.id() : std::string());
  std::string why;
  if (platform.broken(&why)) {
    r.status = Status::error;
    r.reason = "not run: the device is in an error state after an earlier case (" + why + ")";
    return r;
  }
  const Support varlen = catalog_varlen_support(c, c.backend);
  const Support paged = varlen.ok ? catalog_paged_support(c, c.backend) : varlen;
  const Support dims = paged.ok ? catalog_head_dims_support(c, c.backend) : paged;
  const Support support = dims.ok ? backend.supports(c, platform.info()) : dims;
  if (!support.ok) {
    r.status = Status::unsupported;
    r.reason = support.reason;
    return r;
  }

  if (c.measure.timing == TimingMethod::graph && !platform.graph_support(&why)) {
    r.status = Status::unsupported;
    r.reason = why;
    return r;
  }
  if (c.measure.timing == TimingMethod::cold && !backend.rotates_inputs(&why)) {
    r.status = Status::unsupported;
    r.reason = "cold timing: " + why;
    return r;
  }

  const auto case_start = Clock::now();
  MemoryTracker& tracker = platform.tracker();
  tracker.reset_peak();
  const std::int64_t base = tracker.current_bytes();
  try {
    CaseTensors t = allocate(c, tracker);
    const std::int64_t io = tracker.current_bytes() - base;
    const AttnParams p = params_for(c, t);
    const InputDist dist = c.measure.inputs;
    platform.fill(t.q.get(), t.qd, c.dtype, c.measure.seed, InputTensor::q, dist);
    if (c.paged()) {
      fill_paged_kv(c, t, platform, dist);
    } else {
      platform.fill(t.k.get(), t.kd, c.dtype, c.measure.seed, InputTensor::k, dist);
      platform.fill(t.v.get(), t.vd, c.dtype, c.measure.seed, InputTensor::v, dist);
    }
    const bool backward = runs_backward(c.mode);
    if (backward) platform.fill(t.d_o.get(), t.od, c.dtype, c.measure.seed, InputTensor::d_o, dist);
    const AttnBwdParams bp = bwd_params_for(p, t);

    struct Release {  // release() runs on every path out, exceptions included
      Backend& b;
      ~Release() { b.release(); }
    } release{backend};
    const auto prepare_start = std::chrono::steady_clock::now();
    backend.prepare(c, p, tracker);
    r.prepare_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - prepare_start)
            .count();
    r.backend_info = backend.info();

    platform.poison(t.o.get(), t.o.bytes());
    platform.poison(t.lse.get(), t.lse.bytes());
    if (backward) {  // gradients left unwritten stay NaN and are counted
      platform.poison(t.dq.get(), t.dq.bytes());
      platform.poison(t.dk.get(), t.dk.bytes());
      platform.poison(t.dv.get(), t.dv.bytes());
    }
    if (c.mode == Mode::bwd) {  // the forward the backward reads, outside every timed region
      backend.run(p, platform.stream());
      platform.check_after_run("forward before the backward");
    }
    r.wall_ms.setup = ms_since(case_start);
    const std::function<void()> launch = timed_region(c, backend, p, bp, platform);
    // --profile-once: the profiled run is the one timed sample; nothing else runs the kernel.
    if (!c.measure.profile_once) verify_and_dump(c, t, launch, dump, platform, r);
    const auto timing_start = Clock::now();
    // measure.timing "cold": the input copies come after the verification, and the case's
    // peak is the larger of the peak before them and the peak without them during the timing.
    const std::int64_t peak_before_cold = tracker.peak_bytes();
    ColdInputs cold;
    const bool rotate = c.measure.timing == TimingMethod::cold;
    if (rotate) make_cold_inputs(c, t, backend, p, bp, platform, launch, cold);
    sample_timings(c, launch, rotate ? &cold : nullptr, platform, r);
    sample_sustained(c, launch, platform, r);
    r.wall_ms.timing = ms_since(timing_start);
    r.memory.peak_bytes =
        (rotate ? std::max(peak_before_cold, tracker.peak_bytes() - cold.extra_bytes)
                : tracker.peak_bytes()) -
        base;
    r.memory.workspace_bytes = r.memory.peak_bytes - io;
    r.tflops = r.flops / (r.time.median * 1e-3) / 1e12;
    r.gbps = static_cast<double>(min_traffic_bytes(c)) / (r.time.median * 1e-3) / 1e9;
    // NaN where the device has no peak in the table (the CPU target, an unknown GPU, fp32).
    const nlohmann::json device = with_device_peaks(platform.device_block());
    r.mfu = model_flops_utilisation(r.tflops, device, c.dtype);
    r.bw_frac = bandwidth_fraction(r.gbps, device);
    r.pct_of_peak_flops = 100 * r.mfu;
    r.pct_of_peak_bw = 100 * r.bw_frac;
    r.copy_bw_gbs = platform.copy_bw_gbs();
    r.pct_of_copy_bw = 100 * r.gbps / r.copy_bw_gbs;
  } catch (const OutOfMemory& e) {
    r.status = Status::oom;
    r.reason = e.what();
    r.memory.requested_bytes = e.requested();
    r.memory.peak_bytes = tracker.peak_bytes() - base;
  } catch (const UnsupportedCase& e) {
    r.status = Status::unsupported;
    r.reason = e.what();
    r.memory = predicted_memory_on(c, platform.info());
  } catch (const std::exception& e) {
    r.status = Status::error;
    r.reason = e.what();
  }
  r.wall_ms.total = ms_since(case_start);
  return r;
}

}  // namespace fa2b

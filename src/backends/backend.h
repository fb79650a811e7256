// SPDX-License-Identifier: Apache-2.0
// One interface for every backend, GPU or CPU. The runner owns the inputs and outputs; a
// backend owns its workspace (allocated through the tracker in prepare) and the timed region.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/attn_params.h"
#include "core/backend_catalog.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"
#include "runtime/target_info.h"

namespace fa2b {

struct Support {
  bool ok = true;
  std::string reason;
  static Support yes() { return {true, {}}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

// Thrown by prepare() when a case turns out unsupported only once plans are built (a library
// refusing the shape); the runner records it as status "unsupported" with what() as reason.
class UnsupportedCase : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A case's mode decides which entry points the runner calls (c.mode):
//   fwd      prepare, then run() timed
//   bwd      prepare, run() once untimed, then run_backward() timed (the forward's saved state
//            and O, LSE stay valid between backward calls: the backward must not change them)
//   fwd_bwd  prepare, then run() + run_backward() timed together
// In the training modes run() also saves what the backward needs (naive: P) in buffers that
// prepare() allocated through the tracker, with the backward's own workspace.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual bool on_device() const = 0;
  // Answers for c.mode too: a backend without a backward says so for bwd and fwd_bwd
  // (forward_only() below).
  virtual Support supports(const Case& c, const TargetInfo& t) const = 0;
  // Allocate workspace, build plans. Called once per case, outside the timed region. In the
  // training modes (c.mode) also the forward's saved state and the backward's workspace.
  virtual void prepare(const Case&, const AttnParams&, MemoryTracker&) {}
  // Free-form, one line: what prepare() chose for this case (cudnn: the engine and its knobs).
  // Read by the runner after prepare() into the case's backend_info; "" when there is nothing.
  virtual std::string info() const { return {}; }
  // The forward. `stream` is a cudaStream_t for device backends, null for CPU ones.
  virtual void run(const AttnParams& p, void* stream) = 0;
  // The backward of the last run() on the same tensors: reads p.fwd.{q,k,v,o,lse}, p.d_o and
  // what run() saved; overwrites every element of p.d_q, p.d_k, p.d_v. Only called for cases
  // whose supports() said yes in a training mode; the default throws std::logic_error.
  virtual void run_backward(const AttnBwdParams& p, void* stream);
  // Free what prepare() allocated.
  virtual void release() {}
  // measure.timing "cold": whether run() may be handed other input pointers (copies of the
  // prepared inputs, same shape) at no cost beyond the launch; false with the reason otherwise.
  virtual bool rotates_inputs(std::string* /*why*/) const { return true; }
  // A dev-variant backend (catalog entry `variants`): how many variants this build can run for
  // head dim D, 0 .. count-1 (variant 0, the shipped kernel, always among them). 0 for every
  // other backend, and for one not runnable in this build.
  virtual int variant_count(std::int64_t /*D*/) const { return 0; }
};

// supports() of a backend that has no backward yet: yes for fwd, and for bwd / fwd_bwd
// "backward not implemented yet for <backend>".
Support forward_only(const Case& c, std::string_view backend);
// supports() for c.mode as the backend's catalog entry lists its modes: yes for a listed mode,
// else what forward_only() says.
Support catalog_mode_support(const Case& c, std::string_view backend);

// Whether the backend's catalog entry runs the case's variable-length batch: yes for a dense
// case; for a varlen one no in a training mode (variable-length backward is not built) and for
// a packing its entry does not list. The runner asks this before supports().
Support catalog_varlen_support(const Case& c, std::string_view backend);

// Whether the backend's catalog entry reads a paged KV cache: yes for a contiguous case; for a
// paged one no in a training mode (a paged cache is an inference layout: no backward is built)
// and for a backend whose entry does not set paged_kv. The runner asks this before supports().
Support catalog_paged_support(const Case& c, std::string_view backend);

// Whether the backend's catalog entry takes a head dim of V and O other than D (Case::D_v):
// yes when they are equal; for a split case no for a backend whose entry does not set
// split_head_dims. The runner asks this before supports().
Support catalog_head_dims_support(const Case& c, std::string_view backend);

// supports() of a backend that masks causally but has no sliding window: yes for a case without
// one, else "<backend> has no sliding window (window [16, 16] asked): <why>".
Support no_window_support(const Case& c, std::string_view backend, std::string_view why);

// The names, devices and CPU counterparts of the backends are the catalog's
// (core/backend_catalog.h): known_backend_names(), is_device_backend(), cpu_counterpart().

// nullptr when the name is unknown or the backend is not compiled into this build.
std::unique_ptr<Backend> make_backend(std::string_view name);
// Whether this build has a factory for the name (the CUDA backends only in CUDA builds).
bool backend_built(std::string_view name);

// Adds a backend to this process: its catalog entry and its factory, before any config is
// parsed. The product adds none; test binaries add toy backends (tests/unit) and deliberately
// broken ones (fa2bench_faulty) to exercise the runner. Throws std::invalid_argument when the
// catalog refuses the entry (core/backend_catalog.h).
using BackendFactory = std::unique_ptr<Backend> (*)();
void register_backend(BackendEntry entry, BackendFactory factory);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// The backend catalog: every fact about a backend that does not need its code. Config
// validation, the shape algebra, `plan`, `--help` and `fa2bench backends` (which prints the
// README's backends table) read it; src/backends/registry.cpp binds a factory to each name. It
// lives in core so that parsing a config or predicting memory never depends on the backends
// themselves.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"

namespace fa2b {

enum class BackendDevice { cuda, cpu };

// How a backend's forward holds the T_q x T_k scores, which decides what it allocates and what
// it keeps for the backward.
enum class ScoreStorage {
  // Never materialised: tiles in registers or shared memory. Keeps only O and the LSE for the
  // backward, which recomputes P from Q, K and the LSE.
  streams,
  // S in float32 and P in the input dtype, one [B, H, T_q, T_k] buffer each; P is kept for the
  // backward, whose dP and dS reuse S's buffer (CPU) or sit beside it (CUDA).
  dense,
  // As dense, with each row padded to a multiple of 8 elements (16-byte aligned rows) and each
  // matrix rounded up to 256 bytes: how the CUDA naive kernels allocate.
  padded_rows,
};

struct BackendEntry {
  std::string name;
  BackendDevice device = BackendDevice::cpu;
  // The CPU backend that stands in for this one on the CPU target ("fa2" -> "cpu-flash"); empty
  // when there is none (the case is then unsupported there).
  std::string cpu_counterpart;
  ScoreStorage scores = ScoreStorage::streams;
  // Tracked workspace the forward allocates for every case beyond the scores (standard: the
  // cuBLAS workspace).
  std::int64_t forward_workspace_bytes = 0;
  // Tracked workspace the backward needs beyond the forward's buffers, for a case in a training
  // mode. Never null.
  std::int64_t (*backward_workspace_bytes)(const Case&) = nullptr;
  // That formula in words, for `plan` and `fa2bench backends`.
  std::string backward_workspace_note;
  // The modes its supports() can say yes to; fwd always among them.
  std::vector<Mode> modes;
  // The packings of a variable-length batch (Case::lengths) it runs, forward only; empty: none,
  // and the runner records such a case `unsupported` without asking the backend.
  std::vector<Packing> packings;
  // The packings whose backward it runs too (bwd, fwd_bwd); a subset of `packings`. Empty: a
  // variable-length batch runs forward only, and the runner records a training-mode one
  // `unsupported` without asking the backend.
  std::vector<Packing> backward_packings;
  // Why it does not run the other packings, when there is more to say than that (appended to
  // the unsupported reason).
  std::string varlen_note;
  // Reads K and V of a paged KV cache through its page table (Case::kv_layout paged, forward
  // only); false: the runner records such a case `unsupported` without asking the backend.
  bool paged_kv = false;
  // Takes a head dim of V and O other than Q's and K's (Case::D_v, forward and backward);
  // false: the runner records such a case `unsupported` without asking the backend.
  bool split_head_dims = false;
  // Runs a head dim that is not a multiple of 8 padded to the next multiple of 8: zero-padded
  // copies of Q, K, V and O (in the training modes dO, dQ, dK and dV too), tracked, filled and
  // read back inside the timed call (src/backends/cuda/head_dim_padding.h); FLOPs count the
  // real D. False: such a D is refused (by the backend's own rules).
  bool pads_head_dim = false;
  // One line for `fa2bench backends` and the README table.
  std::string description;
  // A dev-variant backend: its cases take the parameter `variant` (core/case.h; 0 is the
  // shipped kernel), which a config may give only to such a backend. `fa2bench tune` expands
  // cases into one per variant (Backend::variant_count says how many this build has).
  bool variants = false;
  // How many variants head dim D has (0 .. count-1), when the catalog can know it without the
  // backend's code; a config's larger variant is then refused. Null when only the built
  // backend knows (fa2-dev: the build options decide), which then says `unsupported`.
  int (*variant_count)(std::int64_t D) = nullptr;
};

std::string_view to_string(BackendDevice);
std::string_view to_string(ScoreStorage);
bool materialises_scores(ScoreStorage);
bool materialises_scores(const BackendEntry&);
bool supports_mode(const BackendEntry&, Mode);
bool supports_packing(const BackendEntry&, Packing);
// Whether the named backend is a dev-variant backend (false for an unknown name).
bool takes_variants(std::string_view name);

// The built-in backends in their canonical order (the order of every list printed from it),
// then any added with add_backend_entry. A deque: adding an entry moves none of the others.
const std::deque<BackendEntry>& backend_catalog();
// nullptr when the name is not in the catalog.
const BackendEntry* find_backend_entry(std::string_view name);
// Adds a backend to this process's catalog, before any config is parsed: test binaries add
// toy and deliberately broken backends. Throws std::invalid_argument on an empty or taken
// name, a missing backward_workspace_bytes or a mode list without fwd.
void add_backend_entry(BackendEntry entry);

// The names of backend_catalog(), in its order.
const std::vector<std::string>& known_backend_names();
bool is_device_backend(std::string_view name);
// The entry's cpu_counterpart; empty for an unknown name.
std::string cpu_counterpart(std::string_view name);
// "naive, standard and cpu-naive": the catalog's names whose entries pass `keep`, for prose.
std::string catalog_names_prose(bool (*keep)(const BackendEntry&));

}  // namespace fa2b

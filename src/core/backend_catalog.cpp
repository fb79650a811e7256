// SPDX-License-Identifier: Apache-2.0
#include "core/backend_catalog.h"

#include <algorithm>
#include <stdexcept>

#include "core/shape_algebra.h"

namespace fa2b {
namespace {

// A function, not a namespace-scope constant: test binaries add catalog entries from static
// initialisers, which may run before this file's constants are constructed.
std::vector<Mode> all_modes() {
  return {Mode::fwd, Mode::bwd, Mode::fwd_bwd};
}

// The backward workspaces, per backend (beyond the forward's buffers; kernels/*/..._bwd.h).

// fa2: its float32 dQ accumulator, as wide as the tile that runs D, and the row sums,
// 4*B*H*T_q*(D_tile + 1) (kernels/fa2/fa2_bwd_workspace.h, which core may not include: its
// tiles are the multiples of 32, Fa2HeadDims; test_fa2_tile_choice.cpp holds the two equal).
std::int64_t fa2_backward_workspace(const Case& c) {
  const std::int64_t tile_d = (head_dim_padded_to_8(c) + 31) / 32 * 32;
  return 4 * c.B * c.H * c.T_q * (tile_d + 1);
}
// fa3: its float32 dQ accumulator, then LSE·log2(e) and the row sums in rows padded to whole
// 64-query blocks, 4*B*H*(T_q*D + 2*pitch) (kernels/fa3/fa3_bwd.h, fa3_bwd_stat_pitch).
std::int64_t fa3_backward_workspace(const Case& c) {
  const std::int64_t pitch = (c.T_q + 63) / 64 * 64;
  return 4 * c.B * c.H * (c.T_q * head_dim_padded_to_8(c) + 2 * pitch);
}
// The CUDA naive backward keeps dP (float32) and dS (input dtype) beside the forward's S and P,
// padded as its S and P are (kernels/naive/naive_bwd.h).
std::int64_t naive_backward_workspace(const Case& c) {
  return stored_score_matrix_bytes(c, ScoreStorage::padded_rows, 4) +
         stored_score_matrix_bytes(c, ScoreStorage::padded_rows, dtype_bytes(c.dtype));
}
// standard: dP and dS as naive's, each allocation rounded to 256 bytes, plus float32 dK/dV
// accumulators under grouped-query attention (kernels/standard/standard_bwd.h).
std::int64_t standard_backward_workspace(const Case& c) {
  std::int64_t bytes = aligned_256(score_matrix_bytes(c, 4)) +
                       aligned_256(score_matrix_bytes(c, dtype_bytes(c.dtype)));
  if (c.H != c.H_kv) bytes += 2 * aligned_256(4 * c.B * c.H_kv * c.T_k * c.D);
  return bytes;
}
// cudnn: the float32 dQ accumulator [B, H, T_q, D] and row sums [B, H, T_q] that
// cudnn-frontend keeps in its workspace, which the backend allocates (4*B*H*T_q*(D + 1),
// backends/cuda/cudnn/sdpa_bwd_rules.h). The backward plan's own workspace is known only once
// cuDNN has built the plan: tracked, not predicted (like the forward plan's).
std::int64_t cudnn_backward_workspace(const Case& c) {
  return 4 * c.B * c.H * c.T_q * (c.D + 1);
}

BackendEntry entry(std::string name, BackendDevice device, std::string cpu, ScoreStorage scores,
                   std::int64_t (*backward)(const Case&), std::string backward_note,
                   std::vector<Mode> modes, std::string description) {
  BackendEntry e;
  e.name = std::move(name);
  e.device = device;
  e.cpu_counterpart = std::move(cpu);
  e.scores = scores;
  e.backward_workspace_bytes = backward;
  e.backward_workspace_note = std::move(backward_note);
  e.modes = std::move(modes);
  e.description = std::move(description);
  return e;
}

std::deque<BackendEntry> built_in_entries() {
  using D = BackendDevice;
  using S = ScoreStorage;
  std::deque<BackendEntry> e;
  e.push_back(entry("naive", D::cuda, "cpu-naive", S::padded_rows, naive_backward_workspace,
                    "dP (fp32) and dS beside S and P, rows padded as theirs", all_modes(),
                    "standard attention in our own kernels: S = scale·QKᵀ materialised in "
                    "float32, a masked row softmax producing P in the input dtype, then O = PV "
                    "(tensor-core GEMM tiles); its backward materialises dP and dS the same way"));
  e.back().packings = {Packing::padded};  // a key-padding mask in its softmax
  e.back().pads_head_dim = true;
  e.push_back(entry("fa2", D::cuda, "cpu-flash", S::streams, fa2_backward_workspace,
                    "fp32 dQ accumulator (rows as wide as the tile running D) and row sums, "
                    "4*B*H*T_q*(D_tile+1)",
                    all_modes(),
                    "our FlashAttention-2: one CTA per (query tile, batch, head), K/V tiles "
                    "streamed through shared memory with `cp.async`, scores and the online "
                    "softmax state in registers, tensor cores through `mma.sync` m16n8k16 and "
                    "`ldmatrix`; writes the logsumexp, from which its backward recomputes P"));
  e.back().packings = {Packing::padded, Packing::packed};
  // Its backward's varlen instantiation: each CTA its sequence's key block (fa2_bwd_kernel.cuh).
  e.back().backward_packings = e.back().packings;
  // Its decode kernels (split-KV, GQA packing) read pages; every paged forward runs in them.
  e.back().paged_kv = true;
  e.back().pads_head_dim = true;
  e.push_back(entry("standard", D::cuda, "cpu-naive", S::dense, standard_backward_workspace,
                    "dP (fp32) and dS beside S and P; fp32 dK, dV accumulators when H_kv < H",
                    all_modes(),
                    "what PyTorch's MATH backend does, done well: S = scale·QKᵀ by cuBLAS in "
                    "float32, one masked softmax kernel writing P and the LSE, then O = PV by "
                    "cuBLAS; S, P and the cuBLAS workspace are tracked"));
  e.back().forward_workspace_bytes = kStandardCublasWorkspaceBytes;
  e.back().packings = {Packing::padded};  // a key-padding mask in its softmax
  e.push_back(entry("cudnn", D::cuda, "", S::streams, cudnn_backward_workspace,
                    "fp32 dQ accumulator and row sums, 4*B*H*T_q*(D+1); the cuDNN plans' own "
                    "workspaces are tracked, not predicted",
                    all_modes(),
                    "cuDNN's fused flash attention through the backend graph API: the forward "
                    "with the logsumexp, and the backward graph cudnn-frontend's SDPA backward "
                    "lowers to (P recomputed from the logsumexp, dQ through an fp32 "
                    "accumulator); `libcudnn.so.9` loaded at run time"));
  // Forward only (the catalog's rule for every packing): padded through cudnn-frontend's padding
  // mask, packed through ragged-offset tensors on Q, K, V, O and the Stats
  // (src/backends/cuda/cudnn/sdpa_graph.h).
  e.back().packings = {Packing::padded, Packing::packed};
  e.push_back(entry("cpu-naive", D::cpu, "", S::dense, row_sums_bytes,
                    "row sums, 4*B*H*T_q (dP and dS reuse S's buffer)", all_modes(),
                    "standard attention on the host, S and P materialised through the tracker"));
  e.back().packings = {Packing::padded, Packing::packed};
  e.back().backward_packings = e.back().packings;  // sequence by sequence, each P kept
  e.back().paged_kv = true;
  e.back().split_head_dims = true;
  e.push_back(
      entry("cpu-flash", D::cpu, "", S::streams, row_sums_bytes, "row sums, 4*B*H*T_q", all_modes(),
            "the FlashAttention-2 algorithm on the host: tiles, online softmax, O(T·D) "
            "extra memory; OpenMP threads (FA2BENCH_CPU_THREADS); fp16/bf16 storage emulated with "
            "round-to-nearest-even"));
  e.back().packings = {Packing::padded, Packing::packed};
  e.back().backward_packings = e.back().packings;  // sequence by sequence
  e.back().paged_kv = true;
  e.back().split_head_dims = true;
  e.push_back(entry("fa2-dev", D::cuda, "", S::streams, fa2_backward_workspace,
                    "none (forward only)", {Mode::fwd},
                    "the fa2 forward with a tile/pipeline variant as the case's `variant`: 0 is "
                    "the shipped dispatch (as `fa2`), 1.. the tuning candidates of "
                    "`kernels/fa2/inst/fa2_fwd_dev_variants.cu`, which need a build with "
                    "-DFA2BENCH_DEV_KERNELS=ON; what `fa2bench tune` runs"));
  e.back().variants = true;
  e.push_back(entry("fa3", D::cuda, "cpu-flash", S::streams, fa3_backward_workspace,
                    "fp32 dQ accumulator, LSE and row sums in 64-row blocks, "
                    "4*B*H*(T_q*D + 2*ceil64(T_q))",
                    all_modes(),
                    "our Hopper attention (sm_90 GPUs only): the FlashAttention-2 algorithm on "
                    "warpgroup MMA (`wgmma`, sm_90a), one warpgroup per 64 query (forward) or "
                    "key (backward) rows, tiles in the 128-byte swizzled layout wgmma reads, P "
                    "and dS fed to the next GEMM from registers (at D = 256 the backward splits "
                    "the head dim over two warpgroups instead); fp16/bf16, D = 64, 128, 256"));
  // Packed batches through maps of all the tokens (kernels/fa3/fa3_fwd_kernel.cuh); a padded
  // batch would need a per-sequence key bound in the kernel it does not have.
  e.back().packings = {Packing::packed};
  e.back().varlen_note = "padded batches run on fa2";
  e.back().pads_head_dim = true;
  e.push_back(entry("fa3-dev", D::cuda, "", S::streams, fa2_backward_workspace,
                    "none (forward only)", {Mode::fwd},
                    "the fa3 forward with a tile/pipeline variant as the case's `variant`: 0 is "
                    "the shipped dispatch (as `fa3`), 1.. the tuning candidates of "
                    "`kernels/fa3/fa3_dev_tiles.h`, which need a build with "
                    "-DFA2BENCH_DEV_KERNELS=ON; what `fa2bench tune --backend fa3` runs"));
  e.back().variants = true;
  return e;
}

std::deque<BackendEntry>& catalog() {
  static std::deque<BackendEntry> entries = built_in_entries();
  return entries;
}

std::vector<std::string>& names() {
  static std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const BackendEntry& e : catalog()) out.push_back(e.name);
    return out;
  }();
  return list;
}

}  // namespace

std::string_view to_string(BackendDevice d) {
  return d == BackendDevice::cuda ? "cuda" : "cpu";
}

std::string_view to_string(ScoreStorage s) {
  switch (s) {
    case ScoreStorage::streams:
      return "streams";
    case ScoreStorage::dense:
      return "materialises";
    case ScoreStorage::padded_rows:
      return "materialises (rows padded)";
  }
  return "streams";
}

bool materialises_scores(ScoreStorage s) {
  return s != ScoreStorage::streams;
}

bool materialises_scores(const BackendEntry& e) {
  return materialises_scores(e.scores);
}

bool supports_mode(const BackendEntry& e, Mode m) {
  return std::find(e.modes.begin(), e.modes.end(), m) != e.modes.end();
}

bool supports_packing(const BackendEntry& e, Packing p) {
  return std::find(e.packings.begin(), e.packings.end(), p) != e.packings.end();
}

bool takes_variants(std::string_view name) {
  const BackendEntry* e = find_backend_entry(name);
  return e && e->variants;
}

const std::deque<BackendEntry>& backend_catalog() {
  return catalog();
}

const BackendEntry* find_backend_entry(std::string_view name) {
  for (const BackendEntry& e : catalog())
    if (e.name == name) return &e;
  return nullptr;
}

void add_backend_entry(BackendEntry entry) {
  if (entry.name.empty()) throw std::invalid_argument("a backend needs a name");
  if (find_backend_entry(entry.name))
    throw std::invalid_argument("backend \"" + entry.name + "\" is already in the catalog");
  if (!entry.backward_workspace_bytes)
    throw std::invalid_argument("backend \"" + entry.name +
                                "\" needs a backward workspace formula");
  if (!supports_mode(entry, Mode::fwd))
    throw std::invalid_argument("backend \"" + entry.name + "\" must support mode fwd");
  if (entry.variant_count && !entry.variants)
    throw std::invalid_argument("backend \"" + entry.name +
                                "\" has a variant count but does not take variants");
  names();  // built from the built-ins before the new entry is added
  names().push_back(entry.name);
  catalog().push_back(std::move(entry));
}

const std::vector<std::string>& known_backend_names() {
  return names();
}

bool is_device_backend(std::string_view name) {
  const BackendEntry* e = find_backend_entry(name);
  return e && e->device == BackendDevice::cuda;
}

std::string cpu_counterpart(std::string_view name) {
  const BackendEntry* e = find_backend_entry(name);
  return e ? e->cpu_counterpart : std::string();
}

std::string catalog_names_prose(bool (*keep)(const BackendEntry&)) {
  std::vector<std::string> kept;
  for (const BackendEntry& e : catalog())
    if (keep(e)) kept.push_back(e.name);
  std::string out;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += i + 1 == kept.size() ? " and " : ", ";
    out += kept[i];
  }
  return out;
}

}  // namespace fa2b

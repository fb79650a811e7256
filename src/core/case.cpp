// SPDX-License-Identifier: Apache-2.0
#include "core/case.h"

#include <fmt/format.h>

#include "core/seq_lengths.h"

namespace fa2b {

std::string_view to_string(DType d) {
  switch (d) {
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::fp32:
      return "fp32";
  }
  return "?";
}
std::string_view to_string(Layout l) {
  return l == Layout::bhsd ? "bhsd" : "bshd";
}
std::string_view to_string(Mode m) {
  switch (m) {
    case Mode::fwd:
      return "fwd";
    case Mode::bwd:
      return "bwd";
    case Mode::fwd_bwd:
      return "fwd_bwd";
  }
  return "?";
}
std::string_view to_string(InputDist d) {
  switch (d) {
    case InputDist::normal:
      return "normal";
    case InputDist::uniform:
      return "uniform";
    case InputDist::large:
      return "large";
    case InputDist::nan:
      return "nan";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp16") return DType::fp16;
  if (s == "bf16") return DType::bf16;
  if (s == "fp32") return DType::fp32;
  return std::nullopt;
}
std::optional<Layout> parse_layout(std::string_view s) {
  if (s == "bhsd") return Layout::bhsd;
  if (s == "bshd") return Layout::bshd;
  return std::nullopt;
}
std::optional<Mode> parse_mode(std::string_view s) {
  for (Mode m : {Mode::fwd, Mode::bwd, Mode::fwd_bwd})
    if (to_string(m) == s) return m;
  return std::nullopt;
}
std::optional<InputDist> parse_input_dist(std::string_view s) {
  if (s == "normal") return InputDist::normal;
  if (s == "uniform") return InputDist::uniform;
  if (s == "large") return InputDist::large;
  if (s == "nan") return InputDist::nan;
  return std::nullopt;
}
std::string_view to_string(VerifyMode v) {
  switch (v) {
    case VerifyMode::sample:
      return "sample";
    case VerifyMode::full:
      return "full";
    case VerifyMode::none:
      return "none";
  }
  return "?";
}
std::optional<VerifyMode> parse_verify_mode(std::string_view s) {
  for (VerifyMode v : {VerifyMode::sample, VerifyMode::full, VerifyMode::none})
    if (to_string(v) == s) return v;
  return std::nullopt;
}
std::string_view to_string(TimingMethod t) {
  switch (t) {
    case TimingMethod::events:
      return "events";
    case TimingMethod::graph:
      return "graph";
    case TimingMethod::cold:
      return "cold";
  }
  return "?";
}
std::optional<TimingMethod> parse_timing_method(std::string_view s) {
  for (TimingMethod t : {TimingMethod::events, TimingMethod::graph, TimingMethod::cold})
    if (to_string(t) == s) return t;
  return std::nullopt;
}
std::string_view to_string(Packing p) {
  return p == Packing::padded ? "padded" : "packed";
}
std::optional<Packing> parse_packing(std::string_view s) {
  if (s == "padded") return Packing::padded;
  if (s == "packed") return Packing::packed;
  return std::nullopt;
}
std::string_view to_string(KvLayout k) {
  return k == KvLayout::contiguous ? "contiguous" : "paged";
}
std::optional<KvLayout> parse_kv_layout(std::string_view s) {
  if (s == "contiguous") return KvLayout::contiguous;
  if (s == "paged") return KvLayout::paged;
  return std::nullopt;
}
int dtype_bytes(DType d) {
  return d == DType::fp32 ? 4 : 2;
}

std::string Case::shape_key() const {
  std::string s = fmt::format("B{}-H{}", B, H);
  if (H_kv != H) s += fmt::format("-Hkv{}", H_kv);
  if (varlen()) {
    s += fmt::format("-L={}", lengths_tag(*this));
  } else if (T_q == T_k) {
    s += fmt::format("-T{}", T_q);
  } else {
    s += fmt::format("-Tq{}-Tk{}", T_q, T_k);
  }
  s += fmt::format("-D{}", D);
  if (split_head_dims()) s += fmt::format("-Dv{}", Dv());
  s += fmt::format("/{}/{}", to_string(dtype), causal ? "causal" : "full");
  if (window.left >= 0 && window.right >= 0) {
    s += fmt::format("/wl{}-wr{}", window.left, window.right);
  } else if (window.left >= 0) {
    s += fmt::format("/wl{}", window.left);
  } else if (window.right >= 0) {
    s += fmt::format("/wr{}", window.right);
  }
  if (paged()) s += fmt::format("/paged{}", page_size);
  if (varlen()) s += fmt::format("/{}", to_string(packing));
  const bool packed = varlen() && packing == Packing::packed;
  if (layout != Layout::bhsd && !packed) s += fmt::format("/{}", to_string(layout));
  if (mode != Mode::fwd) s += fmt::format("/{}", to_string(mode));
  if (variant != 0) s += fmt::format("/v{}", variant);
  return s;
}

std::string Case::id() const {
  return fmt::format("{}/{}", backend, shape_key());
}

Strides tensor_strides(Layout layout, std::int64_t heads, std::int64_t seq, std::int64_t dim) {
  if (layout == Layout::bhsd) return {heads * seq * dim, seq * dim, dim};
  return {seq * heads * dim, dim, heads * dim};
}

}  // namespace fa2b

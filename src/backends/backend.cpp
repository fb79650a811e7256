// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/attention_mask.h"

namespace fa2b {

void Backend::run_backward(const AttnBwdParams&, void*) {
  throw std::logic_error(fmt::format("{}: run_backward() called, but it has no backward", name()));
}

Support forward_only(const Case& c, std::string_view backend) {
  if (!runs_backward(c.mode)) return Support::yes();
  return Support::no(
      fmt::format("backward not implemented yet for {} (mode {})", backend, to_string(c.mode)));
}

Support catalog_mode_support(const Case& c, std::string_view backend) {
  const BackendEntry* e = find_backend_entry(backend);
  if (e && supports_mode(*e, c.mode)) return Support::yes();
  return forward_only(c, backend);
}

Support catalog_varlen_support(const Case& c, std::string_view backend) {
  if (!c.varlen()) return Support::yes();
  const BackendEntry* e = find_backend_entry(backend);
  if (!e || !supports_packing(*e, c.packing)) {
    std::string why =
        fmt::format("{} does not run {} variable-length batches", backend, to_string(c.packing));
    if (e && !e->packings.empty()) {  // e.g. naive: padded with a key-padding mask only
      why += fmt::format(", only {} ones", to_string(e->packings.front()));
    }
    if (e && !e->varlen_note.empty()) why += ": " + e->varlen_note;
    return Support::no(why);
  }
  if (!runs_backward(c.mode) || std::find(e->backward_packings.begin(), e->backward_packings.end(),
                                          c.packing) != e->backward_packings.end()) {
    return Support::yes();
  }
  return Support::no(fmt::format(
      "{} variable-length batches run forward only on {}: it has no variable-length backward for "
      "them (mode {})",
      to_string(c.packing), backend, to_string(c.mode)));
}

Support catalog_paged_support(const Case& c, std::string_view backend) {
  if (!c.paged()) return Support::yes();
  if (runs_backward(c.mode)) {
    return Support::no(fmt::format(
        "paged KV layout runs forward only: a paged cache is an inference layout and no "
        "backward reads one (mode {})",
        to_string(c.mode)));
  }
  const BackendEntry* e = find_backend_entry(backend);
  if (e && e->paged_kv) return Support::yes();
  return Support::no(fmt::format("paged KV layout: not built for {} yet", backend));
}

Support catalog_head_dims_support(const Case& c, std::string_view backend) {
  if (!c.split_head_dims()) return Support::yes();
  const BackendEntry* e = find_backend_entry(backend);
  if (e && e->split_head_dims) return Support::yes();
  return Support::no(fmt::format("D_v = {} with D = {}: {} takes one head dim for Q, K, V and O",
                                 c.Dv(), c.D, backend));
}

Support no_window_support(const Case& c, std::string_view backend, std::string_view why) {
  if (!c.window.bounded()) return Support::yes();
  return Support::no(fmt::format("{} has no sliding window (window {} asked): {}", backend,
                                 window_text(c.window), why));
}

}  // namespace fa2b

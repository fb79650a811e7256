// SPDX-License-Identifier: Apache-2.0
// Head-dim lists: a kernel family names the head dims it is compiled for once, as a
// HeadDimList, and its runtime dispatch (dispatch_head_dim), support test (head_dim_listed) and
// support message (head_dims_text) derive from that list. The machinery is shared by every
// family; fa3's lists sit with its tile tables (Fa3HeadDims in fa3/fa3_traits.h, Fa3BwdHeadDims
// in fa3/fa3_bwd_traits.h).
//
// Fa2HeadDims, the head dims the fa2 kernels (forward and backward) are compiled for, is the one
// place they are named: the runtime dispatch, the support message, the tests' parameter lists
// and the instantiation units (kernels/fa2/inst/gen_units.py reads the Fa2HeadDims line; CI runs
// it with --check) all derive from it. Adding a head dim: add it here, give it a Fa2Traits entry
// (fa2/fa2_traits.h), run kernels/fa2/inst/gen_units.py.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

namespace fa2b {

template <int... kDims>
struct HeadDimList {
  static constexpr int kCount = sizeof...(kDims);
  static constexpr int kValues[kCount] = {kDims...};
};

// Whether a list names d.
template <int... kDims>
constexpr bool head_dim_listed(HeadDimList<kDims...>, int d) {
  return ((d == kDims) || ...);
}

// "32, 64, ..., 256", for support messages.
template <int... kDims>
std::string head_dims_text(HeadDimList<kDims...>) {
  std::string text;
  for (int v : {kDims...}) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return text;
}

// Calls f(std::integral_constant<int, D>{}) for the listed D equal to `d`; `d` must be listed
// (callers check the family's *_head_dim_supported first; an unlisted d takes the last entry).
template <typename F, int kFirst, int... kRest>
decltype(auto) dispatch_head_dim(HeadDimList<kFirst, kRest...>, int d, F&& f) {
  if constexpr (sizeof...(kRest) == 0) {
    (void)d;
    return f(std::integral_constant<int, kFirst>{});
  } else {
    if (d == kFirst) return f(std::integral_constant<int, kFirst>{});
    return dispatch_head_dim(HeadDimList<kRest...>{}, d, std::forward<F>(f));
  }
}

// ---- fa2's list ----

using Fa2HeadDims = HeadDimList<32, 64, 96, 128, 160, 192, 224, 256>;

constexpr bool fa2_head_dim_supported(int d) {
  return head_dim_listed(Fa2HeadDims{}, d);
}

inline std::string fa2_head_dims_text() {
  return head_dims_text(Fa2HeadDims{});
}

template <typename F>
decltype(auto) fa2_dispatch_head_dim(int d, F&& f) {
  return dispatch_head_dim(Fa2HeadDims{}, d, std::forward<F>(f));
}

}  // namespace fa2b

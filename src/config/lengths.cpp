// SPDX-License-Identifier: Apache-2.0
// The "lengths" axis (a variable-length batch: a list of lengths, or a seeded distribution of
// B lengths) and the checks that tie it to the rest of a case (B, T, packing, layout).
#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

#include "config/config_internal.h"
#include "core/seq_lengths.h"

namespace fa2b::config_detail {
namespace {

// The kernels index tokens with 32-bit integers (cu_seqlens are int32, as in flash-attention).
constexpr std::int64_t kMaxTokens = INT32_MAX;
// The most sequences of one variable-length batch. A distribution draws B lengths (8 bytes
// each, plus the offsets and per-sequence arrays every layer keeps), so B is bounded before
// anything is drawn: B = 3e9 was a std::bad_alloc, 2e8 took 14 s and 4.8 GB to validate.
// 2^20 is far beyond a real batch (flash-attention's varlen batches are thousands).
constexpr std::int64_t kMaxSequences = std::int64_t{1} << 20;

const char* const kDistNames[] = {"uniform", "lognormal"};

std::optional<std::int64_t> get_length(const json& v, const std::string& pointer, Errors& errors) {
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0) {
    errors.add(pointer, "length " + show(v) +
                            " is negative; a sequence has 0 or more tokens (0: an empty "
                            "sequence inside the batch)");
    return std::nullopt;
  }
  const auto n = get_int_at_least(v, 0, pointer, errors);
  if (!n) return std::nullopt;
  if (*n > kMaxTokens) {
    errors.add(pointer, "length " + std::to_string(*n) + " is beyond " +
                            std::to_string(kMaxTokens) +
                            " tokens, what 32-bit sequence offsets (cu_seqlens) address");
    return std::nullopt;
  }
  return n;
}

std::optional<json> check_list(const json& v, const std::string& pointer, Errors& errors) {
  if (v.empty()) {
    errors.add(pointer,
               "empty list of lengths; give one length per sequence of the batch (B = the "
               "list's size)");
    return std::nullopt;
  }
  const std::size_t before = errors.size();
  json out = json::array();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto n = get_length(v[i], ptr(pointer, i), errors);
    if (n) out.push_back(*n);
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

std::optional<double> get_finite(const json& v, const std::string& pointer, Errors& errors) {
  const auto x = get_number(v, pointer, errors);
  if (x && !std::isfinite(*x)) {
    errors.add(pointer, "expected a finite number, got " + show(v));
    return std::nullopt;
  }
  return x;
}

std::optional<json> check_dist(const json& v, const std::string& pointer, Errors& errors) {
  if (!v.contains("dist")) {
    errors.add(pointer,
               "missing \"dist\": give \"uniform\" (min, max, seed) or \"lognormal\" (mean, "
               "sigma, min, max, seed)");
    return std::nullopt;
  }
  const json& d = v["dist"];
  const std::vector<std::string> dists(std::begin(kDistNames), std::end(kDistNames));
  if (!d.is_string() ||
      std::find(dists.begin(), dists.end(), d.get<std::string>()) == dists.end()) {
    std::string msg = "unknown length distribution " + show(d);
    if (d.is_string()) {
      const std::string near = did_you_mean(d.get<std::string>(), dists);
      if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
    }
    errors.add(ptr(pointer, "dist"), msg + "; allowed: " + join(dists));
    return std::nullopt;
  }
  const bool lognormal = d == "lognormal";
  std::vector<std::string> keys = {"dist", "min", "max", "seed"};
  if (lognormal) keys.insert(keys.end(), {"mean", "sigma"});
  const std::size_t before = errors.size();
  check_keys(v, pointer, keys, "length distribution key", errors);
  for (const auto& k : keys) {
    if (!v.contains(k))
      errors.add(pointer,
                 "missing \"" + k + "\" of the " + d.get<std::string>() + " length distribution");
  }
  if (errors.size() != before) return std::nullopt;
  json out = {{"dist", d}};
  const auto lo = get_length(v["min"], ptr(pointer, "min"), errors);
  const auto hi = get_length(v["max"], ptr(pointer, "max"), errors);
  const auto seed = get_int_at_least(v["seed"], 0, ptr(pointer, "seed"), errors);
  if (lo && hi && *lo > *hi) {
    errors.add(ptr(pointer, "min"),
               "min " + std::to_string(*lo) + " is greater than max " + std::to_string(*hi));
  }
  if (hi && *hi == 0) {
    errors.add(ptr(pointer, "max"), "max 0 leaves every sequence empty: the batch has no tokens");
  }
  out["min"] = lo.value_or(0);
  out["max"] = hi.value_or(0);
  out["seed"] = seed.value_or(0);
  if (lognormal) {
    const auto mean = get_finite(v["mean"], ptr(pointer, "mean"), errors);
    const auto sigma = get_finite(v["sigma"], ptr(pointer, "sigma"), errors);
    if (sigma && *sigma < 0) {
      errors.add(ptr(pointer, "sigma"), "sigma " + show(v["sigma"]) + " is negative");
    }
    out["mean"] = mean.value_or(0.0);
    out["sigma"] = sigma.value_or(0.0);
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

}  // namespace

std::optional<json> check_lengths(const json& v, const std::string& pointer, Errors& errors) {
  if (v.is_array()) return check_list(v, pointer, errors);
  if (v.is_object()) return check_dist(v, pointer, errors);
  errors.add(pointer,
             "expected the lengths of one batch ([17, 1, 4097]: B = 3) or a distribution "
             "({\"dist\": \"uniform\", \"min\": 512, \"max\": 8192, \"seed\": 1}), got " +
                 show(v));
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> finish_varlen(Case& c, const VarlenAxes& given) {
  std::vector<std::pair<std::string, std::string>> problems;
  const auto refuse = [&](const std::string& pointer, std::string msg) {
    problems.emplace_back(pointer, std::move(msg));
  };
  if (!given.lengths) {
    if (given.packing) {
      refuse(*given.packing,
             "packing applies to a variable-length batch; give \"lengths\" too (a list of "
             "lengths or a distribution)");
    }
    return problems;
  }
  const std::string& lp = *given.lengths;
  const LengthSource& s = c.lengths_source;
  if (s.dist == LengthDist::list) {
    const auto n = static_cast<std::int64_t>(c.lengths.size());
    if (given.grid_B && c.B != n) {
      refuse(*given.grid_B, "B = " + std::to_string(c.B) + " contradicts the " + std::to_string(n) +
                                " lengths given (a list of lengths sets B); leave B out");
      return problems;
    }
    c.B = n;
  } else {
    const std::string& bp = given.B ? *given.B : lp;
    if (c.B > kMaxSequences) {
      refuse(bp, "B = " + std::to_string(c.B) + " sequences is more than the " +
                     std::to_string(kMaxSequences) +
                     " a variable-length batch may hold (its lengths are drawn one per sequence)");
      return problems;
    }
    if (s.min > 0 && c.B > kMaxTokens / s.min) {
      refuse(bp, "B = " + std::to_string(c.B) +
                     " sequences of at least min = " + std::to_string(s.min) +
                     " tokens add up to more than " + std::to_string(kMaxTokens) +
                     " tokens, what 32-bit sequence offsets (cu_seqlens) address");
      return problems;
    }
    c.lengths = draw_lengths(s, c.B);
  }
  // With lengths, T (or T_q = T_k) is only a bound the lengths must stay within.
  if (given.T) {
    if (c.T_q != c.T_k) {
      refuse(*given.T,
             "lengths are self-attention lengths (each sequence's query and key "
             "lengths equal), but T_q = " +
                 std::to_string(c.T_q) + " and T_k = " + std::to_string(c.T_k) +
                 " differ; give T, or leave it out");
      return problems;
    }
    const std::int64_t cap = c.T_q;
    if (s.dist != LengthDist::list && s.max > cap) {
      refuse(ptr(lp, "max"), "a length up to max = " + std::to_string(s.max) +
                                 " may be longer than T = " + std::to_string(cap) +
                                 " (with lengths, T is the longest a sequence may be)");
      return problems;
    }
    for (std::size_t i = 0; i < c.lengths.size(); ++i) {
      if (c.lengths[i] > cap) {
        refuse(lp, "length " + std::to_string(c.lengths[i]) + " (sequence " + std::to_string(i) +
                       ") is longer than T = " + std::to_string(cap) +
                       " (with lengths, T is the longest a sequence may be)");
        return problems;
      }
    }
  }
  const std::int64_t longest = *std::max_element(c.lengths.begin(), c.lengths.end());
  if (longest == 0) {
    refuse(lp, "every length is 0: the batch has no tokens");
    return problems;
  }
  std::int64_t tokens = 0;
  for (const std::int64_t n : c.lengths) {
    if (__builtin_add_overflow(tokens, n, &tokens) || tokens > kMaxTokens) {
      refuse(lp, "the batch's tokens add up to more than " + std::to_string(kMaxTokens) +
                     ", what 32-bit sequence offsets (cu_seqlens) address");
      return problems;
    }
  }
  c.T_q = c.T_k = longest;
  if (c.packing == Packing::packed) {
    if (given.layout && c.layout == Layout::bhsd) {
      refuse(*given.layout,
             "a packed batch is token-major, (total_tokens, H, D): bshd's layout; give layout "
             "bshd or leave it out");
      return problems;
    }
    c.layout = Layout::bshd;
  }
  return problems;
}

}  // namespace fa2b::config_detail

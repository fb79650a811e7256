// SPDX-License-Identifier: Apache-2.0
#include "core/seq_lengths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fa2b {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // In [0, 1), 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

std::int64_t clamp_round(double x, std::int64_t lo, std::int64_t hi) {
  if (!(x > static_cast<double>(lo))) return lo;  // NaN too
  if (x >= static_cast<double>(hi)) return hi;
  return std::clamp(static_cast<std::int64_t>(std::llround(x)), lo, hi);
}

}  // namespace

std::string_view to_string(LengthDist d) {
  switch (d) {
    case LengthDist::list:
      return "list";
    case LengthDist::uniform:
      return "uniform";
    case LengthDist::lognormal:
      return "lognormal";
  }
  return "?";
}

std::vector<std::int64_t> draw_lengths(const LengthSource& s, std::int64_t count) {
  std::vector<std::int64_t> out;
  if (s.dist == LengthDist::list || count <= 0) return out;
  out.reserve(static_cast<std::size_t>(count));
  SplitMix64 rng(s.seed);
  const double span = static_cast<double>(s.max - s.min) + 1.0;
  for (std::int64_t i = 0; i < count; ++i) {
    if (s.dist == LengthDist::uniform) {
      out.push_back(
          clamp_round(std::floor(static_cast<double>(s.min) + rng.unit() * span), s.min, s.max));
    } else {
      // Box-Muller; 1 - unit() is in (0, 1], so the logarithm is finite.
      const double u1 = 1.0 - rng.unit(), u2 = rng.unit();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
      out.push_back(clamp_round(std::exp(s.mean + s.sigma * z), s.min, s.max));
    }
  }
  return out;
}

std::string lengths_tag(const Case& c) {
  const LengthSource& s = c.lengths_source;
  switch (s.dist) {
    case LengthDist::uniform:
      return fmt::format("uniform{}-{}s{}", s.min, s.max, s.seed);
    case LengthDist::lognormal:
      return fmt::format("lognormal{}x{}-{}-{}s{}", s.mean, s.sigma, s.min, s.max, s.seed);
    case LengthDist::list:
      break;
  }
  // FNV-1a over the lengths as written ("17,1,4097,"), so the tag is the same on every machine.
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::int64_t n : c.lengths) {
    for (const char ch : std::to_string(n) + ",") {
      h ^= static_cast<unsigned char>(ch);
      h *= 0x100000001b3ull;
    }
  }
  return fmt::format("list-{:08x}", static_cast<std::uint32_t>(h ^ (h >> 32)));
}

std::int64_t total_tokens(const Case& c) {
  if (!c.varlen()) return c.B * c.T_q;
  return std::accumulate(c.lengths.begin(), c.lengths.end(), std::int64_t{0});
}

std::int64_t query_rows(const Case& c) {
  return c.varlen() && c.packing == Packing::packed ? total_tokens(c) : c.B * c.T_q;
}

std::int64_t key_rows(const Case& c) {
  return c.varlen() && c.packing == Packing::packed ? total_tokens(c) : c.B * c.T_k;
}

double padding_ratio(const Case& c) {
  const std::int64_t tokens = total_tokens(c);
  if (!c.varlen() || tokens == 0) return 1.0;
  return static_cast<double>(c.B * c.T_q) / static_cast<double>(tokens);
}

std::int64_t sequence_rows_q(const Case& c, std::int64_t b) {
  return c.varlen() ? c.lengths[static_cast<std::size_t>(b)] : c.T_q;
}

std::int64_t sequence_rows_k(const Case& c, std::int64_t b) {
  return c.varlen() ? c.lengths[static_cast<std::size_t>(b)] : c.T_k;
}

std::vector<std::int64_t> sequence_offsets(const Case& c) {
  std::vector<std::int64_t> out(c.lengths.size() + 1, 0);
  std::partial_sum(c.lengths.begin(), c.lengths.end(), out.begin() + 1);
  return out;
}

namespace {

TokenLayout layout_of(const Case& c, std::int64_t seq) {
  TokenLayout t;
  if (c.varlen() && c.packing == Packing::packed) {
    t.offsets = sequence_offsets(c);
    t.batches = 1;
    t.rows = t.offsets.back();
  } else {
    t.batches = c.B;
    t.rows = seq;
  }
  return t;
}

}  // namespace

TokenLayout query_layout(const Case& c) {
  return layout_of(c, c.T_q);
}

TokenLayout key_layout(const Case& c) {
  return layout_of(c, c.T_k);
}

}  // namespace fa2b

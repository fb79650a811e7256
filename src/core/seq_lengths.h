// SPDX-License-Identifier: Apache-2.0
// Variable-length batches (Case::lengths): drawing seeded lengths, the tag a case id carries for
// them, and the token counts the shape algebra and the results report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/case.h"

namespace fa2b {

// `count` lengths drawn from a uniform or lognormal source (not a list), the same on every
// machine and compiler: a splitmix64 stream of the seed, not <random>'s distributions, whose
// algorithms the standard leaves to the library.
std::vector<std::int64_t> draw_lengths(const LengthSource& source, std::int64_t count);

// The id's name for the lengths: "uniform512-8192s1", "lognormal7.5x0.8-512-8192s1" (mean x
// sigma, min-max, seed), or for a list written out "list-" and 8 hex digits of a hash of the
// lengths in order (a list of 16 lengths would not fit an id).
std::string lengths_tag(const Case& c);

// Real query (= key) tokens of the batch: the sum of the lengths; B * T_q for a dense case.
std::int64_t total_tokens(const Case& c);
// Token rows the case's Q and O tensors hold: total_tokens for a packed batch, B * T_q for a
// padded or dense one (K and V likewise with T_k).
std::int64_t query_rows(const Case& c);
std::int64_t key_rows(const Case& c);
// B * max(lengths) / total_tokens: the token slots a padded batch holds per real token, whatever
// the case's packing (1: no padding; a dense case 1).
double padding_ratio(const Case& c);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// CLI11 checks for numeric flags. CLI11's own Range lets "nan" through (every comparison with
// it is false) and accepts "inf"; these refuse both, and values out of range, before the
// command runs: CLI11 then names the flag and fa2bench exits 2.
#pragma once

#include <CLI/CLI.hpp>

namespace fa2b {

// A finite number in [lo, hi].
CLI::Validator finite_in(double lo, double hi);
// A finite number in (lo, hi), both ends excluded (a significance level: alpha 0 makes every
// difference "not significant", alpha 1 every one significant).
CLI::Validator finite_between(double lo, double hi);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
#include "cli/numeric_flags.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "io/json_input.h"

namespace fa2b {

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::string shown = clip_echo(text, 40);
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) {
          return fmt::format("expected a number, got \"{}\"", shown);
        }
        if (!std::isfinite(v)) return fmt::format("expected a finite number, got {}", shown);
        if (v < lo || v > hi) return fmt::format("expected {} to {}, got {}", lo, hi, shown);
        return {};
      },
      fmt::format("NUMBER in [{}, {}]", lo, hi));
}

CLI::Validator finite_between(double lo, double hi) {
  const CLI::Validator closed = finite_in(lo, hi);
  return CLI::Validator(
      [closed, lo, hi](std::string& text) -> std::string {
        std::string problem = closed(text);
        if (!problem.empty()) return problem;
        const double v = std::strtod(text.c_str(), nullptr);
        if (v <= lo || v >= hi) {
          return fmt::format("expected more than {} and less than {}, got {}", lo, hi,
                             clip_echo(text, 40));
        }
        return {};
      },
      fmt::format("NUMBER in ({}, {})", lo, hi));
}

}  // namespace fa2b

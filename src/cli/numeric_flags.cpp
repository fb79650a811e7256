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

}  // namespace fa2b

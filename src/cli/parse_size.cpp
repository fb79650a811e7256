#include <cctype>
#include <cmath>
#include <string>

#include "cli/commands.h"

namespace fa2b {

std::optional<std::int64_t> parse_size(const std::string& text) {
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(text, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  for (char& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  double mul = 1;
  if (unit.empty() || unit == "b")
    mul = 1;
  else if (unit == "k" || unit == "kb")
    mul = 1e3;
  else if (unit == "m" || unit == "mb")
    mul = 1e6;
  else if (unit == "g" || unit == "gb")
    mul = 1e9;
  else if (unit == "t" || unit == "tb")
    mul = 1e12;
  else if (unit == "kib")
    mul = 1024.0;
  else if (unit == "mib")
    mul = 1024.0 * 1024;
  else if (unit == "gib")
    mul = 1024.0 * 1024 * 1024;
  else if (unit == "tib")
    mul = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  const double bytes = value * mul;
  if (!(bytes > 0) || !std::isfinite(bytes) || bytes > 9.0e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(bytes));
}

}  // namespace fa2b

#include "cli/load_config_or_report.h"

#include <fmt/format.h>

namespace fa2b {

std::optional<Config> load_config_or_report(const std::string& path,
                                            const ConfigOverrides& overrides) {
  try {
    if (path.empty()) return parse_config(quickstart_config_json(), "<built-in quickstart>", overrides);
    return load_config(path, overrides);
  } catch (const ConfigError& e) {
    const std::string where = path.empty() ? "<built-in quickstart>" : path;
    fmt::print(stderr, "fa2bench: {} has {} problem{}:\n", where, e.messages().size(),
               e.messages().size() == 1 ? "" : "s");
    for (const std::string& m : e.messages()) fmt::print(stderr, "  {}\n", m);
    return std::nullopt;
  }
}

}  // namespace fa2b

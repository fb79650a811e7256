// SPDX-License-Identifier: Apache-2.0
#include "app/load_config_or_report.h"

#include <fmt/format.h>

namespace fa2b {

std::optional<Config> load_config_or_report(const std::string& path,
                                            const ConfigOverrides& overrides) {
  try {
    Config config = path.empty()
                        ? parse_config(quickstart_config_json(), "<built-in quickstart>", overrides)
                        : load_config(path, overrides);
    for (const std::string& note : config.notes) fmt::print(stderr, "fa2bench: note: {}\n", note);
    return config;
  } catch (const ConfigError& e) {
    const std::string where = path.empty() ? "<built-in quickstart>" : path;
    fmt::print(stderr, "fa2bench: {} has {} problem{}:\n", where, e.messages().size(),
               e.messages().size() == 1 ? "" : "s");
    for (const std::string& m : e.messages()) fmt::print(stderr, "  {}\n", m);
    return std::nullopt;
  }
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// Loading a config for a command: errors are printed with their JSON pointers.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"

namespace fa2b {

// Empty path loads the built-in quickstart. Prints every problem to stderr and returns
// nullopt on a config error.
std::optional<Config> load_config_or_report(const std::string& path,
                                            const ConfigOverrides& overrides);

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// The config tests' view of a refused config: the messages parse_config's ConfigError carries
// (none when it parses), and an assertion that one of them contains a substring, which prints
// them all when none does.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.h"

namespace fa2b::test_config {

inline std::vector<std::string> errors_of(const nlohmann::json& j, const ConfigOverrides& o = {}) {
  try {
    parse_config(j, "test.json", o);
  } catch (const ConfigError& e) {
    return e.messages();
  }
  return {};
}

inline ::testing::AssertionResult has_error(const nlohmann::json& j, const std::string& sub,
                                            const ConfigOverrides& o = {}) {
  const std::vector<std::string> msgs = errors_of(j, o);
  for (const std::string& m : msgs) {
    if (m.find(sub) != std::string::npos) return ::testing::AssertionSuccess();
  }
  auto r = ::testing::AssertionFailure() << "no error contains \"" << sub << "\"; got:";
  for (const std::string& m : msgs) r << "\n  " << m;
  return r;
}

}  // namespace fa2b::test_config

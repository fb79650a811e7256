// SPDX-License-Identifier: Apache-2.0
#include "core/tool_block.h"

#include <fmt/format.h>

#include <utility>

#include "build_info.h"

namespace fa2b {

nlohmann::json tool_block(nlohmann::json overrides) {
  return {{"name", "fa2bench"},
          {"version", FA2BENCH_VERSION},
          {"git", FA2BENCH_GIT},
          {"build", FA2BENCH_BUILD_TYPE},
          {"overrides", std::move(overrides)}};
}

nlohmann::json overrides_of(const nlohmann::json& tool) {
  if (tool.is_object()) {
    const auto it = tool.find("overrides");
    if (it != tool.end() && it->is_object()) return *it;
  }
  return nlohmann::json::object();
}

std::string overrides_note(const nlohmann::json& tool) {
  const nlohmann::json o = overrides_of(tool);
  if (o.empty()) return "";
  std::string list;
  for (const auto& [name, value] : o.items()) {
    list += fmt::format("{}{}={}", list.empty() ? "" : " ", name,
                        value.is_string() ? value.get<std::string>() : value.dump());
  }
  return fmt::format(
      "note: environment overrides set: {} (recorded in the results' tool.overrides; these "
      "results are not the shipped launch path's)",
      list);
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the config parser and validator: bytes -> JSON -> parse_config (with and
// without command-line overrides). Config problems must come out as ConfigError (or a JSON
// parse error for bytes that are not JSON); anything else escaping, a crash or a hang is a bug.
// Built as a libFuzzer binary with clang (-DFA2BENCH_FUZZ=ON) and, with any compiler, into
// fa2bench_fuzz_replay, which feeds every file of tests/fuzz/corpus/ through this function.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "config/config.h"
#include "io/json_input.h"

namespace {

void parse_one(const nlohmann::json& raw, const fa2b::ConfigOverrides& overrides) {
  try {
    const fa2b::Config cfg = fa2b::parse_config(raw, "<fuzz>", overrides);
    for (const fa2b::Case& c : cfg.cases) (void)c.id();
    (void)cfg.raw.dump();
  } catch (const fa2b::ConfigError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 16)) return 0;  // configs are small; keeps each run quick
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json raw;
  try {
    // The product's parser (nesting limit, comments, duplicate keys), as load_config uses it.
    raw = fa2b::parse_json_input(text, "fuzz input", {true, true});
  } catch (const fa2b::JsonInputError&) {
    return 0;  // not JSON: load_config reports it, parse_config never sees it
  }
  parse_one(raw, {});
  // The same config with the overrides the CLI applies (--set, --backends, --inputs).
  parse_one(raw, fa2b::ConfigOverrides{{"grid.T=[16,32]", "measure.inputs=\"nan\""}, {"fa2"}});
  return 0;
}

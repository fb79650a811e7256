// SPDX-License-Identifier: Apache-2.0
#pragma once
// The environment variables that override a launcher's choice (tile class, split count, grid
// shape...). They exist for the GPU tests, which must reach every launch path on any shape, and
// for A/B runs of one binary. A result measured under one is not the shipped kernel's result, so
// the runner records each one that is set (results' tool.overrides, src/core/tool_block.h) and
// says so when a sweep starts. One table: the launchers read their variable by these names, the
// runner lists the set ones from it, docs/methods.md ("Environment overrides") describes them.
#include <cstdlib>

namespace fa2b::knob {

inline constexpr const char* kFa2Splits = "FA2BENCH_FA2_SPLITS";
inline constexpr const char* kFa2NumSms = "FA2BENCH_FA2_NUM_SMS";
inline constexpr const char* kFa2SmemLimit = "FA2BENCH_FA2_SMEM_LIMIT";
inline constexpr const char* kFa2GqaPack = "FA2BENCH_FA2_GQA_PACK";
inline constexpr const char* kFa2GridClass = "FA2BENCH_FA2_GRID_CLASS";
inline constexpr const char* kFa2CausalOrder = "FA2BENCH_FA2_CAUSAL_ORDER";
inline constexpr const char* kFa3Persistent = "FA2BENCH_FA3_PERSISTENT";
inline constexpr const char* kFa3L2Section = "FA2BENCH_FA3_L2_SECTION";
inline constexpr const char* kFa3Ctas = "FA2BENCH_FA3_CTAS";

struct EnvKnob {
  const char* name;
  const char* overrides;  // what the launcher chooses otherwise
};

inline constexpr EnvKnob kKernelKnobs[] = {
    {kFa2Splits, "fa2 forward: the split-KV count (decode plan)"},
    {kFa2NumSms, "fa2 forward: the multiprocessor count the decode plan assumes"},
    {kFa2SmemLimit, "fa2 forward: the opt-in shared memory per block the tile choice assumes"},
    {kFa2GqaPack, "fa2 forward: \"0\" turns packing of grouped-query heads off"},
    {kFa2GridClass, "fa2 forward: the tile table (small|large grid)"},
    {kFa2CausalOrder, "fa2 forward: the causal block order (head|heavy)"},
    {kFa3Persistent, "fa3 forward: persistent (1) or one-CTA-per-tile (0) grid"},
    {kFa3L2Section, "fa3 forward: the L2 section size of the persistent causal order"},
    {kFa3Ctas, "fa3 forward: a cap on the persistent grid's CTAs"},
};

// The value of knob `name`, nullptr when unset.
inline const char* value(const char* name) {
  return std::getenv(name);
}

}  // namespace fa2b::knob

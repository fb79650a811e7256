// SPDX-License-Identifier: Apache-2.0
// The window axis of configs: one pair or a list of pairs, the exit-2 messages for bad values
// (each naming its JSON pointer), causal with a window, selectors, --set, and the window in
// results files (params, loader) and in the worker protocol.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "config_errors.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using test_config::errors_of;
using test_config::has_error;

using json = nlohmann::json;

json with_grid(const json& grid) {
  json j = json::parse(R"({
    "name": "w",
    "defaults": {"H": 2, "D": 64, "T": 100},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"]}]
  })");
  if (!grid.empty()) j["sweeps"][0]["grid"] = grid;
  return j;
}

std::vector<SlidingWindow> windows_of(const Config& c, const std::string& backend) {
  std::vector<SlidingWindow> out;
  for (const Case& k : c.cases)
    if (k.backend == backend) out.push_back(k.window);
  return out;
}

TEST(WindowConfig, OnePairIsOneValue) {
  const Config c = parse_config(with_grid({{"window", {16, 16}}}), "w.json");
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].window, (SlidingWindow{16, 16}));
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H2-T100-D64/fp16/full/wl16-wr16");
}

TEST(WindowConfig, AListOfPairsIsAnAxis) {
  const Config c = parse_config(
      with_grid({{"window", json::parse("[[0, 0], [3, -1], [-1, 5], [-1, -1]]")}}), "w.json");
  const std::vector<SlidingWindow> want = {{0, 0}, {3, -1}, {-1, 5}, {-1, -1}};
  EXPECT_EQ(windows_of(c, "fa2"), want);
  // The default window leaves ids as they were before windows existed.
  EXPECT_EQ(c.cases.back().id(), "fa2/B1-H2-T100-D64/fp16/full");
  // A list of one pair is one window too.
  EXPECT_EQ(parse_config(with_grid({{"window", json::parse("[[8, 8]]")}}), "w.json").cases.size(),
            2u);
}

TEST(WindowConfig, DefaultsAndOverridesTakeAWindow) {
  json j = with_grid(json::object());
  j["defaults"]["window"] = {4, 0};
  EXPECT_EQ(parse_config(j, "w.json").cases[0].window, (SlidingWindow{4, 0}));
  ConfigOverrides o;
  o.set = {"grid.window=[[1,1],[2,2]]"};
  EXPECT_EQ(windows_of(parse_config(with_grid(json::object()), "w.json", o), "naive"),
            (std::vector<SlidingWindow>{{1, 1}, {2, 2}}));
}

TEST(WindowConfig, BadWindowsExitTwoNamingTheField) {
  EXPECT_TRUE(has_error(with_grid({{"window", {-2, 0}}}),
                        "/sweeps/0/grid/window/0: window left width -2 is negative; give a "
                        "width >= 0, or -1 for unbounded"));
  EXPECT_TRUE(has_error(with_grid({{"window", json::parse("[[0, 0], [4, -7]]")}}),
                        "/sweeps/0/grid/window/1/1: window right width -7 is negative"));
  EXPECT_TRUE(has_error(with_grid({{"window", {16}}}),
                        "/sweeps/0/grid/window: expected a window [left, right] of two integers"));
  EXPECT_TRUE(has_error(with_grid({{"window", {1, 2, 3}}}),
                        "/sweeps/0/grid/window: expected a window [left, right]"));
  EXPECT_TRUE(has_error(with_grid({{"window", 16}}),
                        "/sweeps/0/grid/window: expected a window [left, right]"));
  EXPECT_TRUE(has_error(with_grid({{"window", "16,16"}}),
                        "/sweeps/0/grid/window: expected a window [left, right]"));
  EXPECT_TRUE(has_error(with_grid({{"window", {1.5, 2}}}),
                        "/sweeps/0/grid/window/0: expected the window's left width as an integer"));
  EXPECT_TRUE(
      has_error(with_grid({{"window", {0, true}}}),
                "/sweeps/0/grid/window/1: expected the window's right width as an integer"));
  EXPECT_TRUE(
      has_error(with_grid({{"window", json::array()}}), "/sweeps/0/grid/window: empty list"));
  EXPECT_TRUE(has_error(with_grid({{"window", json::parse("[[1, 1], [1, 1]]")}}),
                        "/sweeps/0/grid/window/1: duplicate value [1,1]"));
  EXPECT_TRUE(has_error(with_grid({{"window", json::parse("[[1, 1], 5]")}}),
                        "/sweeps/0/grid/window/1: expected a window [left, right]"));
  EXPECT_TRUE(has_error(with_grid({{"window", {{"range", {1, 8}}, {"mul", 2}}}}),
                        "/sweeps/0/grid/window: a range object is only allowed on integer axes"));
  json d = with_grid(json::object());
  d["defaults"]["window"] = {-3, -1};
  EXPECT_TRUE(has_error(d, "/defaults/window/0: window left width -3 is negative"));
}

TEST(WindowConfig, CausalIntersectsAndRefusesALookAhead) {
  // causal with right 0 or -1: the same case, stored as -1 (one id).
  const Config c = parse_config(
      with_grid({{"causal", true}, {"window", json::parse("[[8, 0], [16, -1]]")}}), "w.json");
  EXPECT_EQ(windows_of(c, "fa2"), (std::vector<SlidingWindow>{{8, -1}, {16, -1}}));
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H2-T100-D64/fp16/causal/wl8");
  // [-1, 0] with causal is causal itself.
  const Config plain = parse_config(with_grid({{"causal", true}, {"window", {-1, 0}}}), "w.json");
  EXPECT_EQ(plain.cases[0].id(), "naive/B1-H2-T100-D64/fp16/causal");
  // A right bound above 0 contradicts causal: exit 2, naming the window.
  EXPECT_TRUE(has_error(with_grid({{"causal", {false, true}}, {"window", {4, 2}}}),
                        "/sweeps/0/grid/window: window [4, 2] with causal: true: causal already "
                        "stops every row at its diagonal"));
  // Without causal the same window is fine.
  EXPECT_TRUE(errors_of(with_grid({{"causal", false}, {"window", {4, 2}}})).empty());
}

TEST(WindowConfig, SelectorsMatchAWindowOrAList) {
  json j = with_grid({{"window", json::parse("[[0, 0], [16, 16], [-1, -1]]")}});
  j["sweeps"][0]["exclude"] = json::parse(R"([{"window": [16, 16]}])");
  EXPECT_EQ(windows_of(parse_config(j, "w.json"), "fa2"),
            (std::vector<SlidingWindow>{{0, 0}, {-1, -1}}));
  j["sweeps"][0]["exclude"] = json::parse(R"([{"window": [[16, 16], [0, 0]]}])");
  EXPECT_EQ(windows_of(parse_config(j, "w.json"), "fa2"), (std::vector<SlidingWindow>{{-1, -1}}));
  j["sweeps"][0]["exclude"] = json::parse(R"([{"window": [16, -5]}])");
  EXPECT_TRUE(has_error(j, "/sweeps/0/exclude/0/window/1: window right width -5 is negative"));
  j["sweeps"][0].erase("exclude");
  j["checks"] = json::parse(R"([{"name": "w", "kind": "threshold", "metric": "max_abs_err",
    "select": {"backend": "fa2", "window": [0, 0]}, "op": "<", "value": 1e-2}])");
  EXPECT_TRUE(errors_of(j).empty());
}

TEST(WindowConfig, FlashAttentionsNameIsPointedToOurs) {
  EXPECT_TRUE(has_error(with_grid({{"window_size", {16, 16}}}),
                        "/sweeps/0/grid/window_size: unknown axis \"window_size\": the sliding "
                        "window is the \"window\" axis here"));
}

TEST(WindowConfig, ResultsCarryTheWindowAndReadItBack) {
  const Config c = parse_config(with_grid({{"window", {3, -1}}}), "w.json");
  CaseResult r;
  r.c = c.cases[0];
  const json j = to_json(r);
  EXPECT_EQ(j["params"]["window"], json::parse("[3, -1]"));
  EXPECT_EQ(case_result_from_json(j).c.window, (SlidingWindow{3, -1}));
  // The default is written too, and a file written before windows (no key) reads as no window.
  r.c.window = {};
  json old = to_json(r);
  EXPECT_EQ(old["params"]["window"], json::parse("[-1, -1]"));
  old["params"].erase("window");
  EXPECT_FALSE(case_result_from_json(old).c.window.bounded());
  json bad = to_json(r);
  bad["params"]["window"] = {-4, 0};
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
  bad["params"]["window"] = 16;
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
}

}  // namespace
}  // namespace fa2b

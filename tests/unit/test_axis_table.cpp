// SPDX-License-Identifier: Apache-2.0
// The axis table (core/axis_table.h) holds every axis to its pieces: a grid value a config
// accepts and a selector matches, a setter that gives the value back, a results params key that
// the loader reads back, a CSV column (or the reason there is none) and a tune rule. A new entry
// without one of them fails here; so does an entry no sample case below exercises (add the new
// axis's value to a sample). docs/development.md, "Adding an axis", walks through the files.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/config_internal.h"
#include "core/axis_table.h"
#include "core/result.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b {
namespace {

using json = nlohmann::json;

// Cases that between them set every axis to a value other than a default Case's: a dense
// paged GQA training case with a window, a packed variable-length batch from a distribution,
// a listed padded batch, and a dev-variant backend's variant.
std::vector<Case> sample_cases() {
  std::vector<Case> out;
  Case paged;
  paged.sweep = "s";
  paged.backend = paged.role = "cpu-flash";
  paged.B = 2;
  paged.H = 4;
  paged.H_kv = 2;
  paged.T_q = paged.T_k = 96;
  paged.D = 40;
  paged.dtype = DType::bf16;
  paged.causal = true;
  paged.window = {16, -1};
  paged.layout = Layout::bshd;
  paged.mode = Mode::fwd_bwd;
  paged.kv_layout = KvLayout::paged;
  paged.page_size = 32;
  out.push_back(paged);

  Case packed;
  packed.sweep = "s";
  packed.backend = packed.role = "cpu-flash";
  packed.H = packed.H_kv = 2;
  packed.lengths = {17, 1, 40};
  packed.B = 3;
  packed.T_q = packed.T_k = 40;
  packed.lengths_source = {LengthDist::uniform, 1, 40, 0, 0, 7};
  packed.packing = Packing::packed;
  packed.layout = Layout::bshd;
  out.push_back(packed);

  Case padded = packed;
  padded.lengths_source = {};
  padded.packing = Packing::padded;
  padded.layout = Layout::bhsd;
  out.push_back(padded);

  Case variant;
  variant.sweep = "s";
  variant.backend = variant.role = "fa2-dev";
  variant.T_q = 128;
  variant.T_k = 256;
  variant.variant = 3;
  out.push_back(variant);
  return out;
}

CaseResult result_of(const Case& c) {
  CaseResult r;
  r.c = c;
  r.status = Status::ok;
  r.target = "cpu";
  return r;
}

TEST(AxisTable, EveryAxisHasItsPieces) {
  std::vector<std::string> seen;
  for (const AxisDef& a : axis_table()) {
    SCOPED_TRACE(std::string(a.name));
    EXPECT_FALSE(a.name.empty());
    EXPECT_EQ(std::count(seen.begin(), seen.end(), std::string(a.name)), 0) << "named twice";
    seen.emplace_back(a.name);
    EXPECT_EQ(find_axis(a.name), &a);
    EXPECT_NE(a.value, nullptr) << "no value: selectors cannot match it";
    EXPECT_NE(a.set, nullptr) << "no setter: config expansion cannot set it";
    EXPECT_EQ(a.write_params == nullptr, a.read_params == nullptr)
        << "a params key written must be read back (and one read must be written)";
    EXPECT_TRUE(!a.csv.empty() || !a.no_csv.empty()) << "no CSV column and no reason";
    if (a.kind == AxisKind::name) {
      EXPECT_FALSE(a.names.empty()) << "a name axis with no names";
    }
    // An axis that is its own field compares; one that covers others (T) leaves it to them.
    EXPECT_EQ(a.same == nullptr, !a.covers.empty() || a.name == "variant")
        << "only an axis that covers others (or the variant, not part of a shape) has no same()";
    for (const auto& covered : a.covers) EXPECT_NE(find_axis(covered), nullptr);
  }
  EXPECT_EQ(find_axis("no_such_axis"), nullptr);
}

TEST(AxisTable, SamplesSetEveryAxis) {
  const Case defaults;
  for (const AxisDef& a : axis_table()) {
    if (!a.covers.empty()) continue;  // T: its fields are T_q's and T_k's
    const auto cases = sample_cases();
    const bool set = std::any_of(cases.begin(), cases.end(),
                                 [&](const Case& c) { return a.value(c) != a.value(defaults); });
    EXPECT_TRUE(set) << "no sample case sets axis " << a.name << "; add one to sample_cases()";
  }
}

TEST(AxisTable, SetGivesTheValueBack) {
  for (const Case& c : sample_cases()) {
    for (const AxisDef& a : axis_table()) {
      const json v = a.value(c);
      if (v.is_null() || a.kind == AxisKind::lengths) continue;  // lengths: value is the tag
      Case d;
      d.lengths = c.lengths;  // packing means something for a variable-length batch only
      a.set(d, v);
      EXPECT_EQ(a.value(d), v) << a.name << " of " << c.id();
      if (a.same) {
        EXPECT_TRUE(a.same(c, d)) << a.name << " of " << c.id();
      }
    }
    // The lengths axis takes the list a config gives.
    if (c.varlen()) {
      Case d;
      find_axis("lengths")->set(d, json(c.lengths));
      EXPECT_EQ(d.lengths, c.lengths);
    }
  }
}

TEST(AxisTable, ParamsRoundTripThroughTheResultsLoader) {
  for (const Case& c : sample_cases()) {
    SCOPED_TRACE(c.id());
    const CaseResult r = result_of(c);
    const json j = to_json(r);
    const CaseResult back = case_result_from_json(j);
    EXPECT_EQ(back.c.id(), c.id());
    for (const AxisDef& a : axis_table()) {
      EXPECT_EQ(a.value(back.c), a.value(c)) << a.name;
      if (a.same) {
        EXPECT_TRUE(a.same(back.c, c)) << a.name;
      }
    }
    EXPECT_EQ(back.c.lengths_source, c.lengths_source);
    EXPECT_EQ(j["params"], json(axis_params(c)));
  }
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

TEST(AxisTable, ParamsKeepTheirOrderAndLeaveOutAbsentAxes) {
  Case dense;
  dense.backend = dense.role = "fa2";
  const std::vector<std::string> shape = {"B",     "H",      "H_kv",   "T_q",    "T_k", "D",
                                          "dtype", "causal", "window", "layout", "mode"};
  EXPECT_EQ(keys_of(axis_params(dense)), shape);
  std::vector<std::string> want = shape;
  want.insert(want.end(), {"lengths", "packing", "lengths_dist"});
  EXPECT_EQ(keys_of(axis_params(sample_cases()[1])), want);
  want = shape;
  want.insert(want.end(), {"kv_layout", "page_size"});
  EXPECT_EQ(keys_of(axis_params(sample_cases()[0])), want);
  want = shape;
  want.push_back("variant");
  EXPECT_EQ(keys_of(axis_params(sample_cases()[3])), want);
}

TEST(AxisTable, LoaderRefusesImpossibleParamsNamingThePointer) {
  const json good = to_json(result_of(sample_cases()[0]));
  const auto refused = [&](const char* key, const json& value) {
    json j = good;
    j["params"][key] = value;
    try {
      case_result_from_json(j);
    } catch (const ResultsFileError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("B", 0).find("/params/B: 0 is below 1"), std::string::npos) << refused("B", 0);
  EXPECT_NE(refused("dtype", "fp8").find("/params/dtype: unknown dtype \"fp8\""),
            std::string::npos);
  EXPECT_NE(refused("window", json::array({-2, 0})).find("/params/window: expected widths"),
            std::string::npos);
  EXPECT_NE(refused("page_size", 48).find("/params/page_size: expected a power of two"),
            std::string::npos);
  EXPECT_NE(refused("variant", 70000).find("/params/variant: expected 0 to 65536"),
            std::string::npos);
  json j = good;
  j["params"]["lengths"] = json::array({1, 2});
  j["params"]["packing"] = "packed";
  EXPECT_THROW(case_result_from_json(j), ResultsFileError);  // B = 2 but paged
  j["params"].erase("causal");
  try {
    case_result_from_json(j);
    ADD_FAILURE() << "accepted params without causal";
  } catch (const ResultsFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/params/causal: missing"), std::string::npos) << e.what();
  }
}

std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

TEST(AxisTable, CsvRendersEveryAxisColumn) {
  ResultSet rs;
  for (const Case& c : sample_cases()) rs.cases.push_back(result_of(c));
  std::stringstream text(results_csv_text(rs));
  std::string line;
  ASSERT_TRUE(std::getline(text, line));
  const std::vector<std::string> header = split_line(line);
  for (const CaseResult& r : rs.cases) {
    ASSERT_TRUE(std::getline(text, line));
    const std::vector<std::string> row = split_line(line);
    ASSERT_EQ(row.size(), header.size()) << line;
    for (const AxisDef& a : axis_table()) {
      for (const AxisCsvColumn& col : a.csv) {
        SCOPED_TRACE(std::string(col.header));
        EXPECT_EQ(std::count(header.begin(), header.end(), std::string(col.header)), 1);
        const auto at = std::find(header.begin(), header.end(), std::string(col.header));
        ASSERT_NE(at, header.end());
        EXPECT_EQ(row[static_cast<std::size_t>(at - header.begin())], col.cell(r.c));
      }
    }
  }
}

TEST(AxisTable, ConfigSelectorsAcceptAndMatchEveryAxisValue) {
  for (const Case& c : sample_cases()) {
    for (const AxisDef& a : axis_table()) {
      const json v = a.value(c);
      if (v.is_null()) continue;
      SCOPED_TRACE(std::string(a.name) + " = " + v.dump() + " of " + c.id());
      json raw = json::object();
      raw[std::string(a.name)] = json::array({v});
      config_detail::Errors errors;
      const Selector sel = config_detail::parse_selector(raw, "/checks/0/select", errors);
      EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.messages().front());
      EXPECT_TRUE(sel.matches(c));
      // A value of another case does not match c unless it is c's.
      for (const Case& other : sample_cases()) {
        const json w = a.value(other);
        if (w.is_null() || w == v) continue;
        json raw_w = json::object();
        raw_w[std::string(a.name)] = json::array({w});
        config_detail::Errors e2;
        EXPECT_FALSE(config_detail::parse_selector(raw_w, "/s", e2).matches(c));
      }
    }
  }
}

TEST(AxisTable, ConfigGridTakesEveryGridAxis) {
  // Each axis's value in a grid of its own (T and lengths aside: they tie B and T together).
  const Case c = sample_cases()[0];
  for (const AxisDef& a : axis_table()) {
    if (a.kind == AxisKind::lengths || a.name == "packing" || a.name == "variant") continue;
    const json v = a.value(c);
    if (v.is_null()) continue;
    SCOPED_TRACE(std::string(a.name) + " = " + v.dump());
    json raw = json::parse(R"({"name": "t", "defaults": {"H": 4, "D": 40},
                               "sweeps": [{"name": "s", "backends": ["cpu-naive"]}]})");
    json& grid = raw["sweeps"][0]["grid"];
    grid = json::object();
    grid[std::string(a.name)] = json::array({v});
    if (a.name == "T_q") grid["T_k"] = 96;
    if (a.name == "T_k") grid["T_q"] = 96;
    if (a.name != "T" && a.name != "T_q" && a.name != "T_k") grid["T"] = 96;
    if (a.name == "page_size") grid["kv_layout"] = "paged";
    Config config;
    ASSERT_NO_THROW(config = parse_config(raw, "t.json"));
    ASSERT_FALSE(config.cases.empty());
    for (const Case& e : config.cases) EXPECT_EQ(a.value(e), v);
  }
}

}  // namespace
}  // namespace fa2b

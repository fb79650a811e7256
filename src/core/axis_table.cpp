// SPDX-License-Identifier: Apache-2.0
#include "core/axis_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/backend_catalog.h"
#include "core/seq_lengths.h"

namespace fa2b {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// A number of a results file: null for NaN, "inf"/"-inf" (io/json_detail.h's number_json).
ordered_json number(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string str(std::string_view s) {
  return std::string(s);
}

std::string bool_cell(bool b) {
  return b ? "true" : "false";
}

LengthSource length_source_of(const json& v) {
  LengthSource s;
  if (!v.is_object()) return s;
  s.dist = v["dist"] == "uniform" ? LengthDist::uniform : LengthDist::lognormal;
  s.min = v["min"].get<std::int64_t>();
  s.max = v["max"].get<std::int64_t>();
  s.seed = v["seed"].get<std::uint64_t>();
  if (s.dist == LengthDist::lognormal) {
    s.mean = v["mean"].get<double>();
    s.sigma = v["sigma"].get<double>();
  }
  return s;
}

// A name read from the params: its enum, or the loader's "unknown <what>" error.
template <class E, class Parse>
E name_of(const ParamsIn& in, const nlohmann::json& v, const std::string& where, const char* what,
          Parse parse) {
  const std::string s = in.to_string(v, where);
  const auto e = parse(s);
  if (!e) in.fail(where, fmt::format("unknown {} \"{}\"", what, s));
  return *e;
}

// A required name key of the params.
template <class E, class Parse>
E required_name(const ParamsIn& in, const char* key, Parse parse) {
  return name_of<E>(in, in.require(in.params(), in.pointer(), key), in.at(key), key, parse);
}

// An optional name key of the params: absent (files written before it) leaves `out`.
template <class E, class Parse>
void optional_name(const ParamsIn& in, const char* key, E& out, Parse parse) {
  if (const json* v = in.find(in.params(), key)) out = name_of<E>(in, *v, in.at(key), key, parse);
}

// A required size (>= 1) of the params.
std::int64_t required_size(const ParamsIn& in, const char* key) {
  return in.at_least(in.require(in.params(), in.pointer(), key), in.at(key), 1);
}

// A variable-length batch's params (absent for every other case): the lengths, the packing and
// the distribution they were drawn from, which the case's id names.
void read_lengths(const ParamsIn& in, Case& c) {
  const json* lengths = in.find(in.params(), "lengths");
  if (lengths && !lengths->is_array()) in.wrong_type(in.at("lengths"), "an array", *lengths);
  if (lengths) {
    const std::string lp = in.at("lengths");
    if (lengths->empty()) in.fail(lp, "expected at least one length");
    for (std::size_t i = 0; i < lengths->size(); ++i) {
      const std::int64_t n = in.to_int((*lengths)[i], lp + "/" + std::to_string(i));
      if (n < 0) in.fail(lp + "/" + std::to_string(i), "expected a length >= 0");
      c.lengths.push_back(n);
    }
    if (static_cast<std::int64_t>(c.lengths.size()) != c.B) {
      in.fail(lp, fmt::format("expected B = {} lengths, got {}", c.B, c.lengths.size()));
    }
    c.packing = required_name<Packing>(in, "packing", parse_packing);
    const json* d = in.find(in.params(), "lengths_dist");
    if (d && !d->is_object()) in.wrong_type(in.at("lengths_dist"), "an object", *d);
    if (d) {
      const std::string dp = in.at("lengths_dist");
      const std::string dist = in.to_string(in.require(*d, dp, "dist"), dp + "/dist");
      LengthSource& s = c.lengths_source;
      if (dist == "uniform") {
        s.dist = LengthDist::uniform;
      } else if (dist == "lognormal") {
        s.dist = LengthDist::lognormal;
        s.mean = in.to_double(in.require(*d, dp, "mean"), dp + "/mean");
        s.sigma = in.finite_nonnegative(in.require(*d, dp, "sigma"), dp + "/sigma");
      } else {
        in.fail(dp + "/dist", fmt::format("unknown length distribution \"{}\"", dist));
      }
      s.min = in.at_least(in.require(*d, dp, "min"), dp + "/min", 0);
      s.max = in.at_least(in.require(*d, dp, "max"), dp + "/max", 0);
      s.seed = in.to_uint(in.require(*d, dp, "seed"), dp + "/seed");
    }
  }
  // Read after kv_layout (this axis's params come last).
  if (c.paged() && c.varlen())
    in.fail(in.at("kv_layout"), "a paged KV cache with lengths (dense batches only)");
}

// An integer field of Case as a count axis (value, set, same, params written and read as a
// required size, CSV column).
// clang-format off
#define FA2B_COUNT_AXIS(field)                                                              \
  AxisDef{#field, AxisKind::count, {}, {},                                                  \
          [](const Case& c) { return json(c.field); },                                      \
          [](Case& c, const json& v) { c.field = v.get<std::int64_t>(); },                  \
          [](const Case& a, const Case& b) { return a.field == b.field; },                  \
          [](const Case& c, ordered_json& p) { p[#field] = c.field; },                      \
          [](const ParamsIn& in, Case& c) { c.field = required_size(in, #field); },         \
          false,                                                                            \
          {{#field, [](const Case& c) { return std::to_string(c.field); }}},                \
          {},                                                                               \
          TuneRule::keep}
// clang-format on

std::vector<AxisDef> make_table() {
  std::vector<AxisDef> t;
  t.push_back(FA2B_COUNT_AXIS(B));
  t.push_back(FA2B_COUNT_AXIS(H));
  t.push_back(FA2B_COUNT_AXIS(H_kv));
  // Absent in files written before grouped-query attention: H_kv = H.
  t.back().read_params = [](const ParamsIn& in, Case& c) {
    c.H_kv = c.H;
    if (const json* v = in.find(in.params(), "H_kv")) c.H_kv = in.at_least(*v, in.at("H_kv"), 1);
  };
  t.push_back(AxisDef{"T",
                      AxisKind::count,
                      {},
                      {"T_q", "T_k"},
                      [](const Case& c) { return c.T_q == c.T_k ? json(c.T_q) : json(); },
                      [](Case& c, const json& v) { c.T_q = c.T_k = v.get<std::int64_t>(); },
                      nullptr,
                      nullptr,
                      nullptr,
                      false,
                      {},
                      "T_q and T_k have their columns",
                      TuneRule::leave});
  t.push_back(FA2B_COUNT_AXIS(T_q));
  t.push_back(FA2B_COUNT_AXIS(T_k));
  t.push_back(AxisDef{
      "lengths",
      AxisKind::lengths,
      {},
      {},
      // A variable-length batch's lengths by their id tag; null when dense.
      [](const Case& c) { return c.varlen() ? json(lengths_tag(c)) : json(); },
      [](Case& c, const json& v) {
        c.lengths_source = length_source_of(v);
        c.lengths.clear();
        if (v.is_array()) {
          for (const auto& n : v) c.lengths.push_back(n.get<std::int64_t>());
        }
      },
      [](const Case& a, const Case& b) { return a.lengths == b.lengths; },
      // Only for a variable-length batch, so that the params of every other case stay as they
      // were: the lengths, the packing and the distribution they were drawn from.
      [](const Case& c, ordered_json& p) {
        if (!c.varlen()) return;
        p["lengths"] = c.lengths;
        p["packing"] = to_string(c.packing);
        const LengthSource& s = c.lengths_source;
        if (s.dist != LengthDist::list) {
          ordered_json d = {
              {"dist", to_string(s.dist)}, {"min", s.min}, {"max", s.max}, {"seed", s.seed}};
          if (s.dist == LengthDist::lognormal) {
            d["mean"] = number(s.mean);
            d["sigma"] = number(s.sigma);
          }
          p["lengths_dist"] = d;
        }
      },
      read_lengths,
      true,
      {},
      "the CSV has the batch's packing, total_tokens, padding_ratio and executed_flops",
      TuneRule::leave});
  t.push_back(FA2B_COUNT_AXIS(D));
  t.push_back(AxisDef{
      "dtype",
      AxisKind::name,
      {"fp16", "bf16", "fp32"},
      {},
      [](const Case& c) { return json(str(to_string(c.dtype))); },
      [](Case& c, const json& v) { c.dtype = *parse_dtype(v.get<std::string>()); },
      [](const Case& a, const Case& b) { return a.dtype == b.dtype; },
      [](const Case& c, ordered_json& p) { p["dtype"] = to_string(c.dtype); },
      [](const ParamsIn& in, Case& c) { c.dtype = required_name<DType>(in, "dtype", parse_dtype); },
      false,
      {{"dtype", [](const Case& c) { return str(to_string(c.dtype)); }}},
      {},
      TuneRule::keep});
  t.push_back(AxisDef{"causal",
                      AxisKind::flag,
                      {},
                      {},
                      [](const Case& c) { return json(c.causal); },
                      [](Case& c, const json& v) { c.causal = v.get<bool>(); },
                      [](const Case& a, const Case& b) { return a.causal == b.causal; },
                      [](const Case& c, ordered_json& p) { p["causal"] = c.causal; },
                      [](const ParamsIn& in, Case& c) {
                        c.causal = in.to_bool(in.require(in.params(), in.pointer(), "causal"),
                                              in.at("causal"));
                      },
                      false,
                      {{"causal", [](const Case& c) { return bool_cell(c.causal); }}},
                      {},
                      TuneRule::keep});
  t.push_back(
      AxisDef{"window",
              AxisKind::window,
              {},
              {},
              [](const Case& c) {
                return json::array({c.window.left, c.window.right});
              },
              [](Case& c, const json& v) {
                c.window = SlidingWindow{v[0].get<std::int64_t>(), v[1].get<std::int64_t>()};
              },
              [](const Case& a, const Case& b) { return a.window == b.window; },
              [](const Case& c, ordered_json& p) {
                p["window"] = {c.window.left, c.window.right};
              },
              // Absent in files written before windows: no window.
              [](const ParamsIn& in, Case& c) {
                const json* w = in.find(in.params(), "window");
                if (!w) return;
                const std::string wp = in.at("window");
                if (!w->is_array() || w->size() != 2) in.fail(wp, "expected [left, right]");
                c.window.left = in.to_int((*w)[0], wp + "/0");
                c.window.right = in.to_int((*w)[1], wp + "/1");
                if (c.window.left < -1 || c.window.right < -1) {
                  in.fail(wp, "expected widths >= 0, or -1 for an unbounded side");
                }
              },
              false,
              {{"window_left", [](const Case& c) { return std::to_string(c.window.left); }},
               {"window_right", [](const Case& c) { return std::to_string(c.window.right); }}},
              {},
              TuneRule::keep_if_set});
  t.push_back(AxisDef{
      "layout",
      AxisKind::name,
      {"bhsd", "bshd"},
      {},
      [](const Case& c) { return json(str(to_string(c.layout))); },
      [](Case& c, const json& v) { c.layout = *parse_layout(v.get<std::string>()); },
      [](const Case& a, const Case& b) { return a.layout == b.layout; },
      [](const Case& c, ordered_json& p) { p["layout"] = to_string(c.layout); },
      [](const ParamsIn& in, Case& c) { optional_name(in, "layout", c.layout, parse_layout); },
      false,
      {{"layout", [](const Case& c) { return str(to_string(c.layout)); }}},
      {},
      TuneRule::keep});
  t.push_back(AxisDef{
      "packing",
      AxisKind::name,
      {"padded", "packed"},
      {},
      [](const Case& c) { return c.varlen() ? json(str(to_string(c.packing))) : json(); },
      [](Case& c, const json& v) { c.packing = *parse_packing(v.get<std::string>()); },
      // Meaningful for a variable-length batch only.
      [](const Case& a, const Case& b) { return !a.varlen() || a.packing == b.packing; },
      nullptr,  // written with the lengths
      nullptr,  // read with the lengths
      false,
      {{"packing",
        [](const Case& c) { return c.varlen() ? str(to_string(c.packing)) : std::string(); }}},
      {},
      TuneRule::leave});
  t.push_back(
      AxisDef{"mode",
              AxisKind::name,
              {"fwd", "bwd", "fwd_bwd"},
              {},
              [](const Case& c) { return json(str(to_string(c.mode))); },
              [](Case& c, const json& v) { c.mode = *parse_mode(v.get<std::string>()); },
              [](const Case& a, const Case& b) { return a.mode == b.mode; },
              [](const Case& c, ordered_json& p) { p["mode"] = to_string(c.mode); },
              [](const ParamsIn& in, Case& c) { optional_name(in, "mode", c.mode, parse_mode); },
              false,
              {{"mode", [](const Case& c) { return str(to_string(c.mode)); }}},
              {},
              TuneRule::own});
  t.push_back(
      AxisDef{"variant",
              AxisKind::index,
              {},
              {},
              [](const Case& c) { return json(c.variant); },
              [](Case& c, const json& v) { c.variant = static_cast<int>(v.get<std::int64_t>()); },
              // Not part of the shape: ratio partners and growth groups of a dev-variant backend's
              // variants were matched across variants before the table, and still are.
              nullptr,
              // Only for a dev-variant backend's case (or a non-zero one), so that the params of
              // every other case stay as they were.
              [](const Case& c, ordered_json& p) {
                if (c.variant != 0 || takes_variants(c.backend)) p["variant"] = c.variant;
              },
              [](const ParamsIn& in, Case& c) {
                std::int64_t variant = 0;
                if (const json* v = in.find(in.params(), "variant"))
                  variant = in.to_int(*v, in.at("variant"));
                if (variant < 0 || variant > (1 << 16))
                  in.fail(in.at("variant"), "expected 0 to 65536");
                c.variant = static_cast<int>(variant);
              },
              false,
              {},
              "in the id (/v3) and the JSON params",
              TuneRule::own});
  t.push_back(AxisDef{
      "kv_layout",
      AxisKind::name,
      {"contiguous", "paged"},
      {},
      [](const Case& c) { return json(str(to_string(c.kv_layout))); },
      [](Case& c, const json& v) { c.kv_layout = *parse_kv_layout(v.get<std::string>()); },
      [](const Case& a, const Case& b) { return a.kv_layout == b.kv_layout; },
      // Only for a paged KV cache, so that the params of every other case stay as they were.
      [](const Case& c, ordered_json& p) {
        if (c.paged()) p["kv_layout"] = to_string(c.kv_layout);
      },
      // Absent for a contiguous case, and in files written before pages.
      [](const ParamsIn& in, Case& c) {
        optional_name(in, "kv_layout", c.kv_layout, parse_kv_layout);
      },
      false,
      {{"kv_layout", [](const Case& c) { return str(to_string(c.kv_layout)); }}},
      {},
      TuneRule::leave});
  t.push_back(AxisDef{
      "page_size",
      AxisKind::page,
      {},
      {},
      // The page size as the grid set it (a contiguous case's is refused once where/exclude ran).
      [](const Case& c) { return c.page_size > 0 ? json(c.page_size) : json(); },
      [](Case& c, const json& v) { c.page_size = v.get<std::int64_t>(); },
      [](const Case& a, const Case& b) { return a.page_size == b.page_size; },
      [](const Case& c, ordered_json& p) {
        if (c.paged()) p["page_size"] = c.page_size;
      },
      // Required for a paged case (read after kv_layout).
      [](const ParamsIn& in, Case& c) {
        if (!c.paged()) return;
        c.page_size =
            in.to_int(in.require(in.params(), in.pointer(), "page_size"), in.at("page_size"));
        if (c.page_size < kMinPageSize || c.page_size > kMaxPageSize ||
            (c.page_size & (c.page_size - 1)) != 0) {
          in.fail(in.at("page_size"),
                  fmt::format("expected a power of two from {} to {}", kMinPageSize, kMaxPageSize));
        }
      },
      false,
      {{"page_size",
        [](const Case& c) { return c.paged() ? std::to_string(c.page_size) : std::string(); }}},
      {},
      TuneRule::leave});
  t.push_back(AxisDef{
      "D_v",
      AxisKind::count,
      {},
      {},
      // The head dim of V and O: D's unless the grid splits them.
      [](const Case& c) { return json(c.Dv()); },
      [](Case& c, const json& v) { c.D_v = v.get<std::int64_t>(); },
      [](const Case& a, const Case& b) { return a.Dv() == b.Dv(); },
      // Only where it differs from D, so that the params of every other case stay as they were.
      [](const Case& c, ordered_json& p) {
        if (c.split_head_dims()) p["D_v"] = c.Dv();
      },
      // Absent: D (files written before the axis, and every case with D_v = D).
      [](const ParamsIn& in, Case& c) {
        if (const json* v = in.find(in.params(), "D_v")) {
          c.D_v = in.at_least(*v, in.at("D_v"), 1);
          if (c.D_v == c.D) c.D_v = 0;
        }
      },
      false,
      {{"D_v", [](const Case& c) { return std::to_string(c.Dv()); }}},
      {},
      TuneRule::keep});
  return t;
}

#undef FA2B_COUNT_AXIS

}  // namespace

const std::vector<AxisDef>& axis_table() {
  static const std::vector<AxisDef> table = make_table();
  return table;
}

const AxisDef* find_axis(std::string_view name) {
  for (const AxisDef& a : axis_table())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<const AxisDef*> params_axes() {
  std::vector<const AxisDef*> out;
  for (const bool last : {false, true})
    for (const AxisDef& a : axis_table())
      if (a.write_params && a.params_last == last) out.push_back(&a);
  return out;
}

nlohmann::ordered_json axis_params(const Case& c) {
  ordered_json p = ordered_json::object();
  for (const AxisDef* a : params_axes()) a->write_params(c, p);
  return p;
}

bool same_on_axes(const Case& a, const Case& b, std::string_view skip) {
  const AxisDef* skipped = skip.empty() ? nullptr : find_axis(skip);
  for (const AxisDef& x : axis_table()) {
    if (!x.same) continue;
    if (skipped &&
        (x.name == skipped->name || std::find(skipped->covers.begin(), skipped->covers.end(),
                                              x.name) != skipped->covers.end()))
      continue;
    if (!x.same(a, b)) return false;
  }
  return true;
}

}  // namespace fa2b

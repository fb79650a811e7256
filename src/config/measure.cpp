// SPDX-License-Identifier: Apache-2.0
// The "measure" block: how each case is timed and verified.
#include "config/config_internal.h"

namespace fa2b::config_detail {

MeasureSettings parse_measure(const json& v, const std::string& pointer, MeasureSettings base,
                              Errors& errors) {
  if (!v.is_object()) {
    errors.add(pointer, "expected an object of measure settings, got " + show(v));
    return base;
  }
  check_keys(v, pointer,
             {"warmup", "min_samples", "max_samples", "target_rel_spread", "max_time_s", "seed",
              "l2_flush", "verify_rows", "verify", "inputs", "keep_samples", "drop_throttled",
              "sustained_s", "settle_s", "timing"},
             "measure setting", errors);
  auto int_field = [&](const char* key, std::int64_t min, int& out) {
    if (!v.contains(key)) return;
    const std::string p = ptr(pointer, key);
    const auto i = get_int_at_least(v[key], min, p, errors);
    if (!i) return;
    if (*i > 1000000000) {
      errors.add(p, "expected at most 1000000000, got " + std::to_string(*i));
      return;
    }
    out = static_cast<int>(*i);
  };
  int_field("warmup", 0, base.warmup);
  int_field("min_samples", 1, base.min_samples);
  int_field("max_samples", 1, base.max_samples);
  int_field("verify_rows", 0, base.verify_rows);
  if (v.contains("target_rel_spread")) {
    const std::string p = ptr(pointer, "target_rel_spread");
    const auto d = get_number(v["target_rel_spread"], p, errors);
    if (d && *d < 0) {
      errors.add(p, "expected a number >= 0 (0 disables early stopping), got " + show(*d));
    } else if (d) {
      base.target_rel_spread = *d;
    }
  }
  if (v.contains("max_time_s")) {
    const std::string p = ptr(pointer, "max_time_s");
    const auto d = get_number(v["max_time_s"], p, errors);
    if (d && !(*d > 0)) {
      errors.add(p, "expected a number of seconds > 0, got " + show(*d));
    } else if (d) {
      base.max_time_s = *d;
    }
  }
  if (v.contains("seed")) {
    const json& s = v["seed"];
    if (s.is_number_unsigned() || (s.is_number_integer() && s.get<std::int64_t>() >= 0)) {
      base.seed = s.get<std::uint64_t>();
    } else {
      errors.add(ptr(pointer, "seed"), "expected a non-negative integer, got " + show(s));
    }
  }
  if (v.contains("l2_flush")) {
    const auto b = get_bool(v["l2_flush"], ptr(pointer, "l2_flush"), errors);
    if (b) base.l2_flush = *b;
  }
  if (v.contains("keep_samples")) {
    // true keeps up to kMaxKeptSamples, false none, a count that many; more than the cap is
    // refused rather than silently capped, so a config never asks for what results lack.
    const std::string p = ptr(pointer, "keep_samples");
    const json& k = v["keep_samples"];
    const std::string want =
        "expected true, false or a count from 0 to " + std::to_string(kMaxKeptSamples);
    if (k.is_boolean()) {
      base.keep_samples = k.get<bool>() ? kMaxKeptSamples : 0;
    } else if ((k.is_number_integer() || k.is_number_unsigned()) && !k.is_number_float()) {
      const bool negative =
          k.is_number_integer() && !k.is_number_unsigned() && k.get<std::int64_t>() < 0;
      if (negative || k.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxKeptSamples)) {
        errors.add(p, want + " (at most " + std::to_string(kMaxKeptSamples) +
                          " samples are kept per case), got " + show(k));
      } else {
        base.keep_samples = k.get<int>();
      }
    } else {
      errors.add(p, want + ", got " + show(k));
    }
  }
  if (v.contains("drop_throttled")) {
    const auto b = get_bool(v["drop_throttled"], ptr(pointer, "drop_throttled"), errors);
    if (b) base.drop_throttled = *b;
  }
  // Seconds from 0 (off) to `most`.
  auto seconds = [&](const char* key, double most, double& into) {
    if (!v.contains(key)) return;
    const std::string p = ptr(pointer, key);
    const auto d = get_number(v[key], p, errors);
    if (d && !(*d >= 0 && *d <= most)) {
      errors.add(p, "expected seconds from 0 (off) to " + std::to_string(static_cast<int>(most)) +
                        ", got " + show(v[key]));
    } else if (d) {
      into = *d;
    }
  };
  seconds("sustained_s", kMaxSustainedSeconds, base.sustained_s);
  seconds("settle_s", kMaxSettleSeconds, base.settle_s);
  if (v.contains("verify")) {
    const std::string p = ptr(pointer, "verify");
    const json& s = v["verify"];
    const auto mode = s.is_string() ? parse_verify_mode(s.get<std::string>()) : std::nullopt;
    if (!mode) {
      std::string msg = "unknown verification " + show(s);
      if (s.is_string()) {
        const std::string near = did_you_mean(s.get<std::string>(), {"sample", "full", "none"});
        if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
      }
      errors.add(p, msg + "; allowed: sample, full, none");
    } else {
      base.verify = *mode;
    }
  }
  if (v.contains("inputs")) {
    const std::string p = ptr(pointer, "inputs");
    const json& s = v["inputs"];
    const auto dist = s.is_string() ? parse_input_dist(s.get<std::string>()) : std::nullopt;
    if (!dist) {
      std::string msg = "unknown input distribution " + show(s);
      if (s.is_string()) {
        const std::string near =
            did_you_mean(s.get<std::string>(), {"normal", "uniform", "large", "nan"});
        if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
      }
      errors.add(p, msg + "; allowed: normal, uniform, large, nan");
    } else {
      base.inputs = *dist;
    }
  }
  if (v.contains("timing")) {
    const std::string p = ptr(pointer, "timing");
    const json& s = v["timing"];
    const auto method = s.is_string() ? parse_timing_method(s.get<std::string>()) : std::nullopt;
    if (!method) {
      std::string msg = "unknown timing method " + show(s);
      if (s.is_string()) {
        const std::string near = did_you_mean(s.get<std::string>(), {"events", "graph", "cold"});
        if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
      }
      errors.add(p, msg + "; allowed: events, graph, cold");
    } else {
      base.timing = *method;
    }
  }
  return base;
}

}  // namespace fa2b::config_detail

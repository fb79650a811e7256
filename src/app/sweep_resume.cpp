// SPDX-License-Identifier: Apache-2.0
#include "app/sweep_resume.h"

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "app/exit_codes.h"
#include "app/parse_size.h"
#include "backends/env_overrides.h"
#include "checks/config_echo.h"
#include "io/atomic_file.h"
#include "io/json_input.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;

// "D", "D/", "./D" and "D/." are one directory.
fs::path normalized_dir(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

std::string or_none(const std::string& value) {
  return value.empty() ? std::string("none") : "\"" + clip_echo(value) + "\"";
}

// Restores `option` from the manifest when the command line left it out; refuses a different
// value. `same` compares a given value with the recorded one.
template <class T, class Same>
bool restore(const char* flag, T& option, bool given, const T& recorded, Same same,
             const std::string& shown_given, const std::string& shown_recorded,
             const std::string& dir) {
  if (!given) {
    option = recorded;
    return true;
  }
  if (same(option, recorded)) return true;
  fmt::print(stderr,
             "fa2bench: --resume {}: {} {} differs from that sweep's ({}); the remaining cases "
             "must be measured as the finished ones were. Drop {}, or start a new sweep with "
             "another --out\n",
             dir, flag, shown_given, shown_recorded, flag);
  return false;
}

}  // namespace

bool apply_resume(SweepArgs& a, std::optional<SweepManifest>& manifest) {
  if (a.resume.empty()) return true;
  const fs::path dir = normalized_dir(a.resume);
  if (!a.out.empty() && normalized_dir(a.out) != dir) {
    fmt::print(stderr, "fa2bench: --resume {} writes to that directory; drop --out {}\n", a.resume,
               a.out);
    return false;
  }
  a.resume = a.out = dir.string();
  try {
    manifest = read_manifest((dir / "sweep.json").string());
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: --resume {}: {}\n", a.resume, e.what());
    return false;
  }
  const SweepManifest& m = *manifest;

  // What the cases are: the config is always the sweep's own unless --config names one (whose
  // sha256 must then match). --filter and --shard come back unless the command line selects
  // cases itself, so a resume can widen a filtered sweep to its whole config.
  const bool selects = !a.config.empty() || !a.filter.empty() || !a.shard.empty();
  if (a.config.empty()) a.config = m.config_file;
  if (a.set.empty()) a.set = m.set;
  if (a.backends.empty()) a.backends = m.backends;
  if (a.inputs.empty()) a.inputs = m.inputs;  // a different one changes the config's sha256
  if (!selects) {
    a.filter = m.filter;
    if (m.shard) a.shard = to_string(*m.shard);
  }
  if (a.target == "auto") a.target = m.requested_target;

  // How the cases are measured.
  const auto same_text = [](const std::string& x, const std::string& y) { return x == y; };
  const auto same_size = [](const std::string& x, const std::string& y) {
    return (x.empty() ? std::optional<std::int64_t>(0) : parse_size(x)) ==
           (y.empty() ? std::optional<std::int64_t>(0) : parse_size(y));
  };
  const auto same_number = [](double x, double y) { return x == y; };
  const auto same_dir = [](const std::string& x, const std::string& y) {
    return absolute_path(x) == y;
  };
  bool ok = restore("--memory-budget", a.memory_budget, !a.memory_budget.empty(), m.memory_budget,
                    same_size, a.memory_budget, or_none(m.memory_budget), a.resume);
  ok = ok &&
       restore("--case-timeout", a.case_timeout, a.case_timeout_given, m.case_timeout_s,
               same_number, fmt::format("{}", a.case_timeout),
               m.case_timeout_s > 0 ? fmt::format("{} s", m.case_timeout_s) : "none", a.resume);
  ok = ok && restore("--dump", a.dump, !a.dump.empty(), m.dump_dir, same_dir, a.dump,
                     or_none(m.dump_dir), a.resume);
  ok = ok && restore("--dump-filter", a.dump_filter, !a.dump_filter.empty(), m.dump_filter,
                     same_text, a.dump_filter, or_none(m.dump_filter), a.resume);
  ok =
      ok && restore(
                "--profile-once", a.profile_once, a.profile_once, m.profile_once,
                [](bool x, bool y) { return x == y; }, "", m.profile_once ? "on" : "off", a.resume);
  // The kernel knobs and harness overrides: the finished cases ran under the manifest's, so the
  // rest must too (not recorded by older versions: nothing to compare).
  const nlohmann::json overrides_now = active_overrides();
  if (ok && m.overrides && *m.overrides != overrides_now) {
    fmt::print(stderr,
               "fa2bench: --resume {}: the environment overrides differ from that sweep's (now {}, "
               "then {}); the remaining cases must be measured as the finished ones were. Set "
               "them as they were, or start a new sweep with --overwrite\n",
               a.resume, overrides_now.dump(), m.overrides->dump());
    ok = false;
  }
  if (ok && m.isolated) {  // not recorded by older versions: the command line decides
    const int recorded = *m.isolated ? 1 : 0;
    ok = restore(
        a.isolate == 1 ? "--isolate" : "--no-isolate", a.isolate, a.isolate != -1, recorded,
        [](int x, int y) { return x == y; }, "",
        *m.isolated ? "cases in worker processes" : "every case in the sweep's process", a.resume);
  }
  return ok;
}

bool load_finished_cases(const std::string& jsonl, const std::vector<Case>& cases,
                         const std::string& resume,
                         std::vector<std::optional<CaseResult>>& finished, int& exit_code) {
  try {
    JsonlContents earlier = read_results_jsonl(jsonl);
    for (const std::string& w : earlier.warnings) fmt::print(stderr, "fa2bench: warning: {}\n", w);
    finished = match_finished(cases, earlier.results);
    // Matched by id alone, a line written with another seed, inputs or sample counts (a
    // results.jsonl copied in from another run) would mix two measurements in one set.
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (!finished[i]) continue;
      const std::string difference =
          measure_difference(finished[i]->c.measure, cases[i].measure, "in the config");
      if (difference.empty()) continue;
      fmt::print(stderr,
                 "fa2bench: --resume {}: results.jsonl holds case {} measured with other "
                 "settings than the config's ({}); it does not belong to this sweep. Start a "
                 "new sweep with another --out\n",
                 resume, cases[i].id(), difference);
      exit_code = kExitUsage;
      return false;
    }
    std::string text;
    for (const std::string& line : earlier.lines) text += line + "\n";
    write_text_file_atomic(jsonl, text);  // without the incomplete line, ready to append
  } catch (const OutputError& e) {        // e.g. a full disk: the OS error, a runtime failure
    fmt::print(stderr, "fa2bench: --resume {}: {}\n", resume, e.what());
    exit_code = kExitRuntime;
    return false;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: --resume {}: {}\n", resume, e.what());
    exit_code = kExitUsage;
    return false;
  }
  return true;
}

}  // namespace fa2b

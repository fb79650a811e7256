// SPDX-License-Identifier: Apache-2.0
#include "runner/repro_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

namespace fa2b {
namespace {

// Characters no POSIX shell gives a meaning to in a word (the set Python's shlex.quote leaves
// bare, as scripts/results_manifest.py does).
bool shell_safe(char ch) {
  const auto u = static_cast<unsigned char>(ch);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
         std::string_view("@%+=:,./_-").find(ch) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view text) {
  bool safe = !text.empty();
  for (char ch : text) safe = safe && shell_safe(ch);
  if (safe) return std::string(text);
  std::string out = "'";
  for (char ch : text) {
    if (ch == '\'') {
      out += "'\\''";  // close the quote, a quoted quote, reopen
    } else {
      out += ch;
    }
  }
  return out + "'";
}

std::string exact_id_filter(std::string_view id) {
  std::string out = "^";
  for (char ch : id) {
    if (std::string_view("\\.+*?()|[]{}^$").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out + "$";
}

std::string repro_command(const SweepManifest& sweep, int lock_clocks_mhz, const CaseResult& r) {
  std::vector<std::string> words = {"fa2bench", "sweep"};
  auto flag = [&words](const char* name, const std::string& value) {
    words.emplace_back(name);
    words.push_back(value);
  };
  // The built-in quickstart has no file; its recorded path is a label, not an argument.
  if (!sweep.config_file.empty()) flag("--config", sweep.config_path);
  flag("--filter", exact_id_filter(r.c.id()));
  for (const std::string& s : sweep.set) flag("--set", s);
  if (!sweep.backends.empty())
    flag("--backends", fmt::format("{}", fmt::join(sweep.backends, ",")));
  if (!sweep.inputs.empty()) flag("--inputs", sweep.inputs);
  if (!sweep.memory_budget.empty()) flag("--memory-budget", sweep.memory_budget);
  if (sweep.case_timeout_s > 0) flag("--case-timeout", fmt::format("{}", sweep.case_timeout_s));
  if (sweep.profile_once) words.emplace_back("--profile-once");
  if (lock_clocks_mhz > 0) flag("--lock-clocks", std::to_string(lock_clocks_mhz));
  // Isolation only where it differs from the target's default (on for cuda, off for cpu; a
  // case timeout implies it), so the rerun runs the case the same way.
  if (sweep.isolated) {
    const bool by_default = sweep.target == "cuda" || sweep.case_timeout_s > 0;
    if (*sweep.isolated && !by_default) words.emplace_back("--isolate");
    if (!*sweep.isolated && by_default) words.emplace_back("--no-isolate");
  }
  flag("--target", sweep.target);
  if (r.device_index >= 0) flag("--device", std::to_string(r.device_index));
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// A case's `repro` (issue 44): the one `fa2bench sweep` command line that re-runs exactly that
// case, from what its sweep was started with (the manifest, runner/resume.h).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "runner/resume.h"

namespace fa2b {

// `text` as one word of a POSIX shell: as is where it holds only characters no shell treats
// specially, else in single quotes (a quote inside written '\'').
std::string shell_quote(std::string_view text);

// A `--filter` pattern (RE2, core/case_regex.h) that matches `id` and nothing longer or shorter:
// anchored, with every regex metacharacter escaped.
std::string exact_id_filter(std::string_view id);

// `fa2bench sweep [--config PATH] --filter '^ID$' [--set ...] [--backends ...] [--inputs ...]
// [--memory-budget ...] [--case-timeout ...] [--profile-once] [--lock-clocks MHZ]
// [--isolate|--no-isolate] --target T [--device N]`: the sweep's own flags as given, the case's
// id as the filter and the device it ran on. Without --shard: the filter leaves one case, which
// a shard other than 0 would drop. Without --out: the caller picks where the rerun writes.
// `lock_clocks_mhz`: the sweep's --lock-clocks (0: none), which the manifest does not keep.
std::string repro_command(const SweepManifest& sweep, int lock_clocks_mhz, const CaseResult& r);

}  // namespace fa2b

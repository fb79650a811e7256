// SPDX-License-Identifier: Apache-2.0
// `sweep --resume DIR`: continue the sweep DIR/sweep.json describes, with the same config and
// the same options that affect what a case measures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/sweep_args.h"
#include "runner/resume.h"

namespace fa2b {

// Reads DIR/sweep.json into `manifest` and fills the options the command line leaves out from
// it. False (the reason printed) when DIR is no sweep's --out or an option given conflicts with
// the manifest. Without --resume, true and nothing changes.
bool apply_resume(SweepArgs& a, std::optional<SweepManifest>& manifest);

// The cases of `cases` that the resumed sweep finished, from its `jsonl` (results.jsonl), into
// `finished` (match_finished); the file is rewritten without an incomplete last line, ready to
// append. False, with `exit_code` set and the reason printed naming --resume `resume`, when
// the file cannot be read or rewritten or holds a case measured otherwise than the config says.
bool load_finished_cases(const std::string& jsonl, const std::vector<Case>& cases,
                         const std::string& resume,
                         std::vector<std::optional<CaseResult>>& finished, int& exit_code);

}  // namespace fa2b

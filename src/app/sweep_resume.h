// SPDX-License-Identifier: Apache-2.0
// `sweep --resume DIR`: continue the sweep DIR/sweep.json describes, with the same config and
// the same options that affect what a case measures.
#pragma once

#include <optional>

#include "app/sweep_args.h"
#include "runner/resume.h"

namespace fa2b {

// Reads DIR/sweep.json into `manifest` and fills the options the command line leaves out from
// it. False (the reason printed) when DIR is no sweep's --out or an option given conflicts with
// the manifest. Without --resume, true and nothing changes.
bool apply_resume(SweepArgs& a, std::optional<SweepManifest>& manifest);

}  // namespace fa2b

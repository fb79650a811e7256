// SPDX-License-Identifier: Apache-2.0
#include "app/exit_codes.h"

namespace fa2b {

int verdict_exit_code(const std::vector<Verdict>& verdicts) {
  for (const Verdict& v : verdicts)
    if (v.verdict != VerdictKind::pass && v.verdict != VerdictKind::deferred &&
        v.verdict != VerdictKind::skipped)
      return kExitCheckFailed;
  return kExitOk;
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
#include "runner/case_filter.h"

namespace fa2b {

bool filter_keeps(const CaseRegex& filter, const Case& c) {
  return filter.search(c.id()) || filter.search(c.role + "/" + c.shape_key());
}

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
// `sweep --filter REGEX`: which cases of the expansion a sweep runs. The gates apply the same
// rule to tell a filtered result set from an incomplete one.
#pragma once

#include "core/case.h"
#include "core/case_regex.h"

namespace fa2b {

// True when `filter` matches the case's id or its role/shape (so "fa2/" selects a backend on
// the CPU target too, where fa2 runs as cpu-flash).
bool filter_keeps(const CaseRegex& filter, const Case& c);

}  // namespace fa2b

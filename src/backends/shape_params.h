// SPDX-License-Identifier: Apache-2.0
// A case's shape, strides and scale as kernel parameters, without tensor pointers: what
// support queries need, and what the runner completes with its buffers.
#pragma once

#include "common/attn_params.h"
#include "core/case.h"

namespace fa2b {

AttnParams shape_params(const Case& c);

}  // namespace fa2b

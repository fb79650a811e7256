// SPDX-License-Identifier: Apache-2.0
// The attention backends a training step prepares: one per layer for a backend that saves
// state for its backward (naive: P, kept until that layer's backward), one for every layer when
// it saves only the LSE or the step recomputes (core/model_plan.cpp's attention_instances).
// Shared by the host step and the CUDA step, which differ only in the strides they pass.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/model_case.h"
#include "runtime/memory_tracker.h"

namespace fa2b::model {

// Appends `probe` and as many more backends as the plan wants to `out`, prepares each for
// `shape` through `tracker`, and returns the bytes they hold beyond the plan's prediction
// (cpu-flash's per-thread scratch; 0 otherwise).
std::int64_t prepare_attention_backends(std::unique_ptr<Backend> probe, const ModelCase& m,
                                        const AttnParams& shape, MemoryTracker& tracker,
                                        std::vector<std::unique_ptr<Backend>>& out);

}  // namespace fa2b::model

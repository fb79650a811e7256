// SPDX-License-Identifier: Apache-2.0
#include "model/attention_instances.h"

#include "core/model_plan.h"

namespace fa2b::model {

std::int64_t prepare_attention_backends(std::unique_ptr<Backend> probe, const ModelCase& m,
                                        const AttnParams& shape, MemoryTracker& tracker,
                                        std::vector<std::unique_ptr<Backend>>& out) {
  const Case ac = m.attention_case();
  const ModelPlan plan = plan_model(m);
  const std::int64_t predicted = plan.attention_backend_bytes;
  out.push_back(std::move(probe));
  while (static_cast<std::int64_t>(out.size()) < plan.attention_instances)
    out.push_back(make_backend(m.backend));
  std::int64_t scratch = 0;
  for (auto& b : out) {
    const std::int64_t before = tracker.current_bytes();
    b->prepare(ac, shape, tracker);
    scratch += tracker.current_bytes() - before - predicted;
  }
  return scratch;
}

}  // namespace fa2b::model

// SPDX-License-Identifier: Apache-2.0
// The check of a case's output (and gradients) against the float64 reference, as
// measure.verify asks: on the platform's device where it has one (verify/device_reference.h:
// the reference reads the stored device tensors, and the backend's rows are gathered there, so
// nothing but the compared rows crosses to the host), else on the host (verify/reference.h,
// inputs regenerated). Either way compare_values judges the rows, so the rule and tolerances
// are the same. FA2BENCH_HOST_REFERENCE=1 makes a CUDA run use the host reference (a cross-check
// and the old timing).
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.h"
#include "core/result.h"
#include "runner/platform.h"
#include "verify/device_reference.h"
#include "verify/reference.h"
#include "verify/reference_grad.h"

namespace fa2b {

// The case's tensors as the reference reads them (platform memory). dQ shares Q's descriptor
// and dK K's; O and dO share od, V and dV vd, which differ from Q's and K's in width where the
// case splits head dims (D_v != D). od and vd left empty (D == 0) mean "as qd" and "as kd"
// (callers written before split head dims). A paged case's k and v are its pools.
struct VerifyTensors {
  const void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *d_o = nullptr;
  const void *dq = nullptr, *dk = nullptr, *dv = nullptr;
  const std::int32_t* page_table = nullptr;
  TensorDesc qd{}, kd{};
  TensorDesc vd{}, od{};
};

// The compared query rows and their float64 reference (kept for --dump).
struct VerifyData {
  std::vector<RowRef> rows;
  std::vector<double> ref, ref_lse;
};

// The rows measure.verify compares: sample_rows / sample_key_rows (measure.verify_rows) for
// sample, every row for full, none for none.
std::vector<RowRef> verify_query_rows(const Case& c);
std::vector<KeyRowRef> verify_key_rows(const Case& c);

// Device jobs for the given rows (exposed for the GPU tests). dkdv_ref_job's rows are every
// query row of the keys' (b, KV head) groups; training cases are dense (never varlen or paged).
RefJob forward_ref_job(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows);
RefJob dq_ref_job(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows);
RefJob dkdv_ref_job(const Case& c, const VerifyTensors& t, const std::vector<KeyRowRef>& keys);

// The forward output's accuracy: the rows of verify_query_rows compared, non-finite elements
// counted over the whole output. `vd` gets the rows and their reference when `keep` is set
// (--dump).
Accuracy verify_output(const Case& c, const VerifyTensors& t, Platform& platform, VerifyData& vd,
                       bool keep);
// dQ on `rows` (the forward's), dK and dV on verify_key_rows, into `a`; non-finite elements
// counted over the whole of dQ, dK and dV.
void verify_gradients(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows,
                      Platform& platform, Accuracy& a);

}  // namespace fa2b

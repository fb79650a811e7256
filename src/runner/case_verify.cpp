// SPDX-License-Identifier: Apache-2.0
#include "runner/case_verify.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "common/numeric.h"
#include "core/paged_kv.h"
#include "core/seq_lengths.h"

namespace fa2b {
namespace {

// Rows per device job: bounds the job's scratch (about 12 bytes per row and head-dim element,
// 48 MiB at D = 128) and the host copies of a `full` check, which goes chunk by chunk.
constexpr std::size_t kChunkRows = 1u << 15;

bool host_reference_forced() {
  const char* v = std::getenv("FA2BENCH_HOST_REFERENCE");
  return v != nullptr && std::string(v) == "1";
}

float to_float(const void* base, std::int64_t i, DType dt) {
  if (dt == DType::fp32) return static_cast<const float*>(base)[i];
  const std::uint16_t h = static_cast<const std::uint16_t*>(base)[i];
  return dt == DType::fp16 ? fp16_to_float(h) : bf16_to_float(h);
}

// Copies rows (b, head, t) of a tensor with descriptor `td` back, as floats [row][td.D] (the
// host reference's path): D for Q, K and their gradients, D_v for O, V and theirs.
template <typename Row, typename Index>
std::vector<float> copy_rows(const Case& c, const void* base, const TensorDesc& td,
                             const std::vector<Row>& rows, Index index, Platform& platform) {
  const std::int64_t width = td.D;
  const std::size_t row_bytes = static_cast<std::size_t>(width) * dtype_bytes(c.dtype);
  std::vector<unsigned char> row(row_bytes);
  std::vector<float> got(rows.size() * static_cast<std::size_t>(width));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto [b, h, i] = index(rows[r]);
    const std::int64_t off = b * td.strides.b + h * td.strides.h + i * td.strides.t;
    platform.copy_to_host(row.data(),
                          static_cast<const unsigned char*>(base) + off * dtype_bytes(c.dtype),
                          row_bytes);
    for (std::int64_t d = 0; d < width; ++d) got[r * width + d] = to_float(row.data(), d, c.dtype);
  }
  return got;
}

// O's (and dO's) and V's (and dV's) descriptors; VerifyTensors says why they may be empty.
const TensorDesc& o_desc(const VerifyTensors& t) {
  return t.od.D > 0 ? t.od : t.qd;
}
const TensorDesc& v_desc(const VerifyTensors& t) {
  return t.vd.D > 0 ? t.vd : t.kd;
}

// Whether the host reference checks the case: FA2BENCH_HOST_REFERENCE=1, or a case whose V and
// O head dim differs from Q's and K's (the device reference, verify/device_reference.h, has
// one head dim; no CUDA backend takes such a case, but a check must never read it wrong).
bool host_reference_for(const Case& c) {
  return host_reference_forced() || c.split_head_dims();
}

RefJob base_job(const Case& c, const VerifyTensors& t, RefKind kind) {
  RefJob j;
  j.kind = kind;
  j.dtype = static_cast<int>(c.dtype);
  j.D = static_cast<int>(c.D);
  j.scale = 1.0 / std::sqrt(static_cast<double>(c.D));
  j.k_row_stride = t.kd.strides.t;
  j.paged = c.paged();
  j.table = t.page_table;
  j.page_size = c.page_size;
  j.H_kv = c.H_kv;
  j.q = t.q;
  j.k = t.k;
  j.v = t.v;
  j.o = t.o;
  j.d_o = t.d_o;
  j.dq = t.dq;
  j.dk = t.dk;
  j.dv = t.dv;
  return j;
}

// Describes query row i of sequence b, head h for the device reference.
class QueryRows {
 public:
  QueryRows(const Case& c, const VerifyTensors& t)
      : c_(c), t_(t), q_layout_(query_layout(c)), k_layout_(key_layout(c)) {
    if (c.paged() && c.page_size > 0) pages_per_seq_ = (t.kd.seq + c.page_size - 1) / c.page_size;
  }
  RefQueryRow operator()(std::int64_t b, std::int64_t h, std::int64_t i) const {
    const std::int64_t hk = h / (c_.H / c_.H_kv);
    RefQueryRow r;
    r.q_off = q_layout_.batch_of(b) * t_.qd.strides.b + h * t_.qd.strides.h +
              q_layout_.row_of(b, i) * t_.qd.strides.t;
    const std::int64_t kb = k_layout_.batch_of(b), row0 = k_layout_.row_of(b, 0);
    if (c_.paged()) {
      r.kv_base = kb * pages_per_seq_;
      r.kv_row = row0;
    } else {
      r.kv_base = kb * t_.kd.strides.b + hk * t_.kd.strides.h + row0 * t_.kd.strides.t;
    }
    r.hk = static_cast<std::int32_t>(hk);
    const VisibleKeys keys = row_visible_keys(c_, b, i);
    if (keys.count() > 0) {
      r.first = keys.first;
      r.last = keys.last;
    }
    return r;
  }

 private:
  const Case& c_;
  const VerifyTensors& t_;
  TokenLayout q_layout_, k_layout_;
  std::int64_t pages_per_seq_ = 0;
};

template <typename T>
std::vector<T> slice(const std::vector<T>& v, std::size_t begin, std::size_t end) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin),
                        v.begin() + static_cast<std::ptrdiff_t>(end));
}

void copy_stats(ErrorStats& into, const ErrorAccumulator& acc) {
  into = acc.stats();
}

// The host reference's forward check (the CPU target, or FA2BENCH_HOST_REFERENCE=1).
Accuracy host_verify_output(const Case& c, const VerifyTensors& t, Platform& platform,
                            VerifyData& vd) {
  reference_rows(c, vd.rows, vd.ref, vd.ref_lse);
  const TokenLayout tokens = query_layout(c);
  const std::vector<float> got = copy_rows(
      c, t.o, o_desc(t), vd.rows,
      [&tokens](const RowRef& r) {
        return std::tuple<std::int64_t, std::int64_t, std::int64_t>{tokens.batch_of(r.b), r.h,
                                                                    tokens.row_of(r.b, r.i)};
      },
      platform);
  return compare_rows(c, vd.rows, vd.ref, got);
}

void host_verify_gradients(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows,
                           const std::vector<KeyRowRef>& keys, Platform& platform, Accuracy& a) {
  const GradReference ref = reference_grads(c, rows, keys);
  using Triple = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  // A sequence's rows where the case's layout puts them (a packed batch's tokens).
  const TokenLayout q_tokens = query_layout(c), k_tokens = key_layout(c);
  const auto query_index = [&q_tokens](const RowRef& r) {
    return Triple{q_tokens.batch_of(r.b), r.h, q_tokens.row_of(r.b, r.i)};
  };
  const auto key_index = [&k_tokens](const KeyRowRef& k) {
    return Triple{k_tokens.batch_of(k.b), k.hk, k_tokens.row_of(k.b, k.j)};
  };
  a.of(Grad::dq) =
      compare_values(ref.dq, copy_rows(c, t.dq, t.qd, rows, query_index, platform), nullptr);
  a.of(Grad::dk) =
      compare_values(ref.dk, copy_rows(c, t.dk, t.kd, keys, key_index, platform), nullptr);
  a.of(Grad::dv) =
      compare_values(ref.dv, copy_rows(c, t.dv, v_desc(t), keys, key_index, platform), nullptr);
}

}  // namespace

std::vector<RowRef> verify_query_rows(const Case& c) {
  switch (c.measure.verify) {
    case VerifyMode::none:
      return {};
    case VerifyMode::full:
      return sample_rows(c, std::numeric_limits<int>::max(), c.measure.seed);
    case VerifyMode::sample:
      break;
  }
  return sample_rows(c, c.measure.verify_rows, c.measure.seed);
}

std::vector<KeyRowRef> verify_key_rows(const Case& c) {
  switch (c.measure.verify) {
    case VerifyMode::none:
      return {};
    case VerifyMode::full:
      return sample_key_rows(c, std::numeric_limits<int>::max(), c.measure.seed);
    case VerifyMode::sample:
      break;
  }
  return sample_key_rows(c, c.measure.verify_rows, c.measure.seed);
}

RefJob forward_ref_job(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows) {
  RefJob j = base_job(c, t, RefKind::fwd);
  const QueryRows describe(c, t);
  j.rows.reserve(rows.size());
  for (const RowRef& r : rows) j.rows.push_back(describe(r.b, r.h, r.i));
  return j;
}

RefJob dq_ref_job(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows) {
  RefJob j = forward_ref_job(c, t, rows);
  j.kind = RefKind::dq;
  return j;
}

RefJob dkdv_ref_job(const Case& c, const VerifyTensors& t, const std::vector<KeyRowRef>& keys) {
  if (c.paged()) throw std::logic_error("the gradient reference reads no paged cache");
  RefJob j = base_job(c, t, RefKind::dkdv);
  const QueryRows describe(c, t);
  const std::int64_t group = c.H / c.H_kv;
  const TokenLayout k_tokens = key_layout(c);
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, std::int64_t>> segs;
  j.keys.reserve(keys.size());
  for (const KeyRowRef& k : keys) {
    auto it = segs.find({k.b, k.hk});
    if (it == segs.end()) {
      const auto begin = static_cast<std::int64_t>(j.rows.size());
      for (std::int64_t h = k.hk * group; h < (k.hk + 1) * group; ++h)
        // A sequence's keys are seen by its own rows alone.
        for (std::int64_t i = 0; i < sequence_rows_q(c, k.b); ++i)
          j.rows.push_back(describe(k.b, h, i));
      it = segs.emplace(std::pair{k.b, k.hk},
                        std::pair{begin, static_cast<std::int64_t>(j.rows.size())})
               .first;
    }
    RefKeyRow key;
    key.k_off = k_tokens.batch_of(k.b) * t.kd.strides.b + k.hk * t.kd.strides.h +
                k_tokens.row_of(k.b, k.j) * t.kd.strides.t;
    key.j = k.j;
    key.seg_begin = it->second.first;
    key.seg_end = it->second.second;
    j.keys.push_back(key);
  }
  return j;
}

Accuracy verify_output(const Case& c, const VerifyTensors& t, Platform& platform, VerifyData& vd,
                       bool keep) {
  vd.rows = verify_query_rows(c);
  vd.ref.clear();
  vd.ref_lse.clear();
  if (c.measure.verify == VerifyMode::none) return Accuracy{};  // checked: false
  // O is D_v wide.
  const std::int64_t elements = query_rows(c) * c.H * c.Dv();
  if (host_reference_for(c)) {
    Accuracy a = host_verify_output(c, t, platform, vd);
    a.nonfinite = platform.count_nonfinite(t.o, c.dtype, elements);
    return a;
  }
  ErrorAccumulator acc;
  for (std::size_t begin = 0; begin < vd.rows.size() || begin == 0; begin += kChunkRows) {
    const std::size_t end = std::min(vd.rows.size(), begin + kChunkRows);
    RefJobOut out;
    if (!platform.run_reference(forward_ref_job(c, t, slice(vd.rows, begin, end)), out)) {
      // No device reference (the host platform): the host one, all rows at once.
      Accuracy a = host_verify_output(c, t, platform, vd);
      a.nonfinite = platform.count_nonfinite(t.o, c.dtype, elements);
      return a;
    }
    acc.add(out.ref.data(), out.got.data(), std::min(out.ref.size(), out.got.size()));
    if (keep) {
      vd.ref.insert(vd.ref.end(), out.ref.begin(), out.ref.end());
      vd.ref_lse.insert(vd.ref_lse.end(), out.lse.begin(), out.lse.end());
    }
    if (end >= vd.rows.size()) break;
  }
  Accuracy a;
  a.checked = true;
  a.rows_checked = static_cast<std::int64_t>(vd.rows.size());
  const ErrorStats e = acc.stats();
  a.max_abs_err = e.max_abs_err;
  a.mean_abs_err = e.mean_abs_err;
  a.rel_l2_err = e.rel_l2_err;
  a.nonfinite = platform.count_nonfinite(t.o, c.dtype, elements);
  return a;
}

void verify_gradients(const Case& c, const VerifyTensors& t, const std::vector<RowRef>& rows,
                      Platform& platform, Accuracy& a) {
  if (c.measure.verify == VerifyMode::none) return;  // grads_checked: false
  const std::vector<KeyRowRef> keys = verify_key_rows(c);
  a.key_rows_checked = static_cast<std::int64_t>(keys.size());
  // Every element the tensors hold (a packed batch's tokens, a padded one's B x T rows).
  a.grad_nonfinite = platform.count_nonfinite(t.dq, c.dtype, query_rows(c) * c.H * c.D) +
                     platform.count_nonfinite(t.dk, c.dtype, key_rows(c) * c.H_kv * c.D) +
                     platform.count_nonfinite(t.dv, c.dtype, key_rows(c) * c.H_kv * c.Dv());
  a.grads_checked = true;
  bool device = !host_reference_for(c);
  ErrorAccumulator dq, dk, dv;
  for (std::size_t begin = 0; device && begin < rows.size(); begin += kChunkRows) {
    const std::size_t end = std::min(rows.size(), begin + kChunkRows);
    RefJobOut out;
    if (!platform.run_reference(dq_ref_job(c, t, slice(rows, begin, end)), out)) {
      device = false;
      break;
    }
    dq.add(out.ref.data(), out.got.data(), std::min(out.ref.size(), out.got.size()));
  }
  // dK/dV chunk by chunk of key rows of one (b, KV head): each chunk's job computes the LSE and
  // D_i of that head's group once.
  for (std::size_t begin = 0; device && begin < keys.size();) {
    std::size_t end = begin + 1;
    while (end < keys.size() && end - begin < kChunkRows && keys[end].b == keys[begin].b &&
           keys[end].hk == keys[begin].hk)
      ++end;
    RefJobOut out;
    if (!platform.run_reference(dkdv_ref_job(c, t, slice(keys, begin, end)), out)) {
      device = false;
      break;
    }
    dk.add(out.ref.data(), out.got.data(), std::min(out.ref.size(), out.got.size()));
    dv.add(out.ref2.data(), out.got2.data(), std::min(out.ref2.size(), out.got2.size()));
    begin = end;
  }
  if (!device) return host_verify_gradients(c, t, rows, keys, platform, a);
  copy_stats(a.of(Grad::dq), dq);
  copy_stats(a.of(Grad::dk), dk);
  copy_stats(a.of(Grad::dv), dv);
}

}  // namespace fa2b

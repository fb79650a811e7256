// SPDX-License-Identifier: Apache-2.0
// CSV results: one tidy row per case, units in the headers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "core/axis_table.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "io/atomic_file.h"
#include "report/report.h"

namespace fa2b {
namespace {

// The column order. A column that an axis of core/axis_table.h declares is rendered by the
// axis; the columns of an axis not named here (a new one) follow the last, so that these keep
// their places.
const char* const kColumns[] = {
    "id", "sweep", "backend", "role", "B", "H", "H_kv", "T_q", "T_k", "D", "dtype", "causal",
    "layout", "mode", "target", "status", "reason", "time_median_ms", "time_p10_ms", "time_p90_ms",
    "time_min_ms", "time_max_ms", "time_mean_ms", "time_stdev_ms", "samples", "time_first_ms",
    "tflops", "gbps", "peak_bytes", "workspace_bytes", "predicted_bytes", "max_abs_err",
    "mean_abs_err", "rel_l2_err", "nonfinite", "rows_checked", "device_index", "saved_bytes",
    "max_abs_err_dq", "mean_abs_err_dq", "rel_l2_err_dq", "max_abs_err_dk", "mean_abs_err_dk",
    "rel_l2_err_dk", "max_abs_err_dv", "mean_abs_err_dv", "rel_l2_err_dv", "nonfinite_grad",
    "key_rows_checked",
    // Last, so that the columns before keep their places.
    "window_left", "window_right",
    // Variable-length batches (empty for a dense case).
    "packing", "total_tokens", "padding_ratio", "executed_flops",
    // A paged KV cache (page_size empty for a contiguous one).
    "kv_layout", "page_size",
    // Throughput as fractions of the device's peaks (empty where unknown) and the command
    // line that re-runs the case (empty where not recorded).
    "mfu", "bw_frac", "repro"};

// The axis column named `header`; nullptr for a result column.
const AxisCsvColumn* axis_column(std::string_view header) {
  for (const AxisDef& a : axis_table())
    for (const AxisCsvColumn& col : a.csv)
      if (col.header == header) return &col;
  return nullptr;
}

// Every column: kColumns, then the axis columns kColumns does not name.
std::vector<std::string_view> all_columns() {
  std::vector<std::string_view> out(std::begin(kColumns), std::end(kColumns));
  for (const AxisDef& a : axis_table())
    for (const AxisCsvColumn& col : a.csv)
      if (std::find(out.begin(), out.end(), col.header) == out.end()) out.push_back(col.header);
  return out;
}

}  // namespace

std::string results_csv_text(const ResultSet& rs) {
  static const std::vector<std::string_view> columns = all_columns();
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ',';
    out += columns[i];
  }
  out += '\n';
  for (const CaseResult& r : rs.cases) {
    const Case& c = r.c;
    const TimeStats& t = r.time;
    const bool acc = r.accuracy.checked;
    // Training-mode columns stay empty for forward cases.
    const bool train = runs_backward(c.mode);
    const bool grads = r.accuracy.grads_checked;
    auto grad = [&](Grad g, double ErrorStats::*field) {
      return grads ? csv_number(r.accuracy.of(g).*field) : std::string();
    };
    const std::string row[] = {csv_field(c.id()),
                               csv_field(c.sweep),
                               csv_field(c.backend),
                               csv_field(c.role),
                               "",  // B ... mode: axis columns
                               "",
                               "",
                               "",
                               "",
                               "",
                               "",
                               "",
                               "",
                               "",
                               csv_field(r.target),
                               std::string(to_string(r.status)),
                               csv_field(r.reason),
                               csv_number(t.median),
                               csv_number(t.p10),
                               csv_number(t.p90),
                               csv_number(t.min),
                               csv_number(t.max),
                               csv_number(t.mean),
                               csv_number(t.stdev),
                               std::to_string(t.n),
                               csv_number(t.first_ms),
                               csv_number(r.tflops),
                               csv_number(r.gbps),
                               std::to_string(r.memory.peak_bytes),
                               std::to_string(r.memory.workspace_bytes),
                               std::to_string(r.memory.predicted_bytes),
                               acc ? csv_number(r.accuracy.max_abs_err) : "",
                               acc ? csv_number(r.accuracy.mean_abs_err) : "",
                               acc ? csv_number(r.accuracy.rel_l2_err) : "",
                               acc ? std::to_string(r.accuracy.nonfinite) : "",
                               std::to_string(r.accuracy.rows_checked),
                               r.device_index >= 0 ? std::to_string(r.device_index) : "",
                               train ? std::to_string(r.memory.saved_bytes) : "",
                               grad(Grad::dq, &ErrorStats::max_abs_err),
                               grad(Grad::dq, &ErrorStats::mean_abs_err),
                               grad(Grad::dq, &ErrorStats::rel_l2_err),
                               grad(Grad::dk, &ErrorStats::max_abs_err),
                               grad(Grad::dk, &ErrorStats::mean_abs_err),
                               grad(Grad::dk, &ErrorStats::rel_l2_err),
                               grad(Grad::dv, &ErrorStats::max_abs_err),
                               grad(Grad::dv, &ErrorStats::mean_abs_err),
                               grad(Grad::dv, &ErrorStats::rel_l2_err),
                               grads ? std::to_string(r.accuracy.grad_nonfinite) : "",
                               grads ? std::to_string(r.accuracy.key_rows_checked) : "",
                               "",  // window_left, window_right, packing: axis columns
                               "",
                               "",
                               c.varlen() ? std::to_string(total_tokens(c)) : "",
                               c.varlen() ? csv_number(padding_ratio(c)) : "",
                               c.varlen() ? csv_number(executed_flops(c)) : "",
                               "",  // kv_layout, page_size: axis columns
                               "",
                               csv_number(r.mfu),
                               csv_number(r.bw_frac),
                               csv_field(r.repro)};
    static_assert(sizeof(row) / sizeof(row[0]) == sizeof(kColumns) / sizeof(kColumns[0]));
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ',';
      const AxisCsvColumn* axis = axis_column(columns[i]);
      out += axis ? csv_field(axis->cell(c)) : row[i];
    }
    out += '\n';
  }
  return out;
}

void write_results_csv(const ResultSet& rs, const std::string& path) {
  write_text_file_atomic(path, results_csv_text(rs));
}

std::string checks_csv_text(const ResultSet& rs) {
  std::string out = "name,kind,verdict,measured,threshold,detail\n";
  for (const Verdict& v : rs.checks) {
    out += csv_field(v.name) + ',' + csv_field(v.kind) + ',' +
           csv_field(std::string(to_string(v.verdict))) + ',' + csv_number(v.measured) + ',' +
           csv_field(v.threshold) + ',' + csv_field(v.detail) + '\n';
  }
  return out;
}

void write_checks_csv(const ResultSet& rs, const std::string& path) {
  write_text_file_atomic(path, checks_csv_text(rs));
}

}  // namespace fa2b

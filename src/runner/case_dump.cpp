// SPDX-License-Identifier: Apache-2.0
#include "runner/case_dump.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/paged_kv.h"
#include "io/atomic_file.h"
#include "io/npy_writer.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

std::vector<std::int64_t> shape_of(const Case& c, const TensorDesc& t) {
  if (c.layout == Layout::bshd) return {t.B, t.seq, t.heads, t.D};
  return {t.B, t.heads, t.seq, t.D};
}

std::size_t bytes_of(const Case& c, const TensorDesc& t) {
  return static_cast<std::size_t>(t.B) * t.heads * t.seq * t.D * dtype_bytes(c.dtype);
}

}  // namespace

std::string dump_dir_name(const Case& c) {
  std::string name = c.sweep + "__" + c.id();
  for (char& ch : name)
    if (ch == '/' || ch == ' ' || ch == '\\') ch = '_';
  return name;
}

std::string dump_case(const std::string& dir, std::int64_t max_bytes, const Case& c,
                      const DumpTensors& t, const std::vector<RowRef>& rows,
                      const std::vector<double>& ref, const std::vector<double>& ref_lse,
                      Platform& platform) {
  const std::size_t total =
      bytes_of(c, t.qd) + bytes_of(c, t.kd) + bytes_of(c, t.vd) + bytes_of(c, t.od);
  if (static_cast<std::int64_t>(total) > max_bytes) {
    return fmt::format(
        "--dump: {} not dumped: Q, K, V and O take {} bytes, over the {} byte "
        "cap per case",
        c.id(), total, max_bytes);
  }
  const std::filesystem::path out = std::filesystem::path(dir) / dump_dir_name(c);
  std::filesystem::create_directories(out);

  const bool fp32 = c.dtype == DType::fp32;
  const std::string descr = fp32 ? "<f4" : "<u2";
  nlohmann::json tensors = nlohmann::json::object();
  const struct {
    const char* name;
    const void* ptr;
    const TensorDesc& d;
  } list[] = {{"q", t.q, t.qd}, {"k", t.k, t.kd}, {"v", t.v, t.vd}, {"o", t.o, t.od}};
  std::vector<unsigned char> host;
  const bool paged = c.paged() && t.page_table != nullptr;
  for (const auto& e : list) {
    const bool pool = paged && (e.ptr == t.k || e.ptr == t.v);
    host.resize(pool ? static_cast<std::size_t>(page_pool_bytes(c)) : bytes_of(c, e.d));
    platform.copy_to_host(host.data(), e.ptr, host.size());
    const auto shape =
        pool ? std::vector<std::int64_t>{num_pages(c), c.page_size, c.H_kv, c.D} : shape_of(c, e.d);
    write_npy((out / (std::string(e.name) + ".npy")).string(), descr, shape, host.data(),
              host.size());
    tensors[e.name] = {{"file", std::string(e.name) + ".npy"},
                       {"shape", shape},
                       {"npy_dtype", descr},
                       {"dtype", to_string(c.dtype)}};
  }
  if (paged) {
    std::vector<std::int32_t> table(static_cast<std::size_t>(num_pages(c)));
    platform.copy_to_host(table.data(), t.page_table, table.size() * sizeof(std::int32_t));
    write_npy((out / "page_table.npy").string(), "<i4", {c.B, pages_per_seq(c)}, table.data(),
              table.size() * sizeof(std::int32_t));
    tensors["page_table"] = {
        {"file", "page_table.npy"},
        {"shape", {c.B, pages_per_seq(c)}},
        {"npy_dtype", "<i4"},
        {"note",
         "k and v are page pools [num_pages, page_size, H_kv, D]: key j of sequence b "
         "is k[page_table[b, j // page_size], j % page_size]"}};
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  // O rows are D_v wide (V's head dim), which differs from D in split-head-dim cases.
  write_npy((out / "ref_o.npy").string(), "<f8", {n, c.Dv()}, ref.data(),
            ref.size() * sizeof(double));
  write_npy((out / "ref_lse.npy").string(), "<f8", {n}, ref_lse.data(),
            ref_lse.size() * sizeof(double));
  std::vector<std::int64_t> idx;
  idx.reserve(rows.size() * 3);
  for (const RowRef& r : rows) idx.insert(idx.end(), {r.b, r.h, r.i});
  write_npy((out / "rows.npy").string(), "<i8", {n, 3}, idx.data(), idx.size() * sizeof(idx[0]));

  nlohmann::json m = {
      {"schema", "fa2bench/dump/1"},
      {"id", c.id()},
      {"sweep", c.sweep},
      {"backend", c.backend},
      {"params", params_json(c)},
      {"layout", c.layout == Layout::bshd ? "B, T, H, D (bshd)" : "B, H, T, D (bhsd)"},
      {"storage",
       fp32 ? "float32" : fmt::format("raw {} bits as uint16 (npy <u2)", to_string(c.dtype))},
      {"seed", c.measure.seed},
      {"inputs", to_string(c.measure.inputs)},
      {"tensors", tensors},
      {"reference",
       {{"ref_o", {{"file", "ref_o.npy"}, {"shape", {n, c.Dv()}}, {"npy_dtype", "<f8"}}},
        {"ref_lse", {{"file", "ref_lse.npy"}, {"shape", {n}}, {"npy_dtype", "<f8"}}},
        {"rows",
         {{"file", "rows.npy"},
          {"shape", {n, 3}},
          {"npy_dtype", "<i8"},
          {"columns", {"b", "h", "i"}},
          {"note", c.varlen() && c.packing == Packing::packed
                       ? "ref_o[r] is the float64 reference of token i of sequence b, query "
                         "head h: o[0, cu_seqlens[b] + i, h] (packed: one batch of all tokens, "
                         "cu_seqlens the prefix sums of params.lengths)"
                       : "ref_o[r] is the float64 reference of o[b, h, i] (query head h)"}}}}}};
  write_text_file_atomic((out / "manifest.json").string(), m.dump(2) + "\n");
  return {};
}

}  // namespace fa2b

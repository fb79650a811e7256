// SPDX-License-Identifier: Apache-2.0
// The backend catalog (core/backend_catalog.h) against what derives from it and what it
// describes: the registry's factories, the CPU backends' answers per mode, the shape algebra.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "backends/backend.h"
#include "core/backend_catalog.h"
#include "core/shape_algebra.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

Case case_of(const std::string& backend, Mode mode) {
  Case c;
  c.backend = c.role = backend;
  c.B = 1;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = 33;
  c.T_k = 47;
  c.D = 64;
  c.dtype = DType::bf16;
  c.mode = mode;
  return c;
}

TEST(BackendCatalog, BuiltInsInOrderWithValidEntries) {
  const std::vector<std::string> built_ins = {"naive",     "fa2",       "standard", "cudnn",
                                              "cpu-naive", "cpu-flash", "fa2-dev",  "fa3"};
  const auto& names = known_backend_names();
  ASSERT_GE(names.size(), built_ins.size());
  EXPECT_TRUE(std::equal(built_ins.begin(), built_ins.end(), names.begin()));
  ASSERT_EQ(backend_catalog().size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const BackendEntry& e = backend_catalog()[i];
    EXPECT_EQ(e.name, names[i]);
    EXPECT_NE(e.backward_workspace_bytes, nullptr) << e.name;
    EXPECT_TRUE(supports_mode(e, Mode::fwd)) << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_FALSE(e.backward_workspace_note.empty()) << e.name;
    // A counterpart is a CPU backend of the catalog.
    if (!e.cpu_counterpart.empty()) {
      const BackendEntry* cpu = find_backend_entry(e.cpu_counterpart);
      ASSERT_NE(cpu, nullptr) << e.name << " -> " << e.cpu_counterpart;
      EXPECT_EQ(cpu->device, BackendDevice::cpu) << e.name;
    }
  }
  EXPECT_EQ(find_backend_entry("fa22"), nullptr);
}

TEST(BackendCatalog, EveryEntryHasAFactoryWhereItCanRun) {
  for (const BackendEntry& e : backend_catalog()) {
#ifdef FA2BENCH_WITH_CUDA
    EXPECT_TRUE(backend_built(e.name)) << e.name;
#else
    EXPECT_EQ(backend_built(e.name), e.device == BackendDevice::cpu) << e.name;
#endif
    if (!backend_built(e.name)) continue;
    auto b = make_backend(e.name);
    ASSERT_NE(b, nullptr) << e.name;
    EXPECT_EQ(b->name(), e.name);
    EXPECT_EQ(b->on_device(), e.device == BackendDevice::cuda) << e.name;
  }
  EXPECT_FALSE(backend_built("fa22"));
  EXPECT_EQ(make_backend("fa22"), nullptr);
}

TEST(BackendCatalog, CpuBackendsAnswerTheModesTheirEntriesList) {
  for (const BackendEntry& e : backend_catalog()) {
    if (e.device != BackendDevice::cpu || !backend_built(e.name)) continue;
    auto b = make_backend(e.name);
    for (const Mode m : {Mode::fwd, Mode::bwd, Mode::fwd_bwd}) {
      EXPECT_EQ(b->supports(case_of(e.name, m), cpu_target_info()).ok, supports_mode(e, m))
          << e.name << " " << to_string(m);
    }
  }
}

TEST(BackendCatalog, ModeSupportComesFromTheEntry) {
  EXPECT_TRUE(catalog_mode_support(case_of("fa2", Mode::fwd_bwd), "fa2").ok);
  for (const Mode m : {Mode::fwd, Mode::bwd, Mode::fwd_bwd}) {
    EXPECT_TRUE(catalog_mode_support(case_of("cudnn", m), "cudnn").ok) << to_string(m);
  }
  // A name the catalog does not list has a forward only.
  EXPECT_TRUE(catalog_mode_support(case_of("not-in-catalog", Mode::fwd), "not-in-catalog").ok);
  const Support s = catalog_mode_support(case_of("not-in-catalog", Mode::bwd), "not-in-catalog");
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.reason, "backward not implemented yet for not-in-catalog (mode bwd)");
}

TEST(BackendCatalog, ShapeAlgebraReadsTheMemoryModel) {
  for (const BackendEntry& e : backend_catalog()) {
    const Case fwd = case_of(e.name, Mode::fwd), train = case_of(e.name, Mode::fwd_bwd);
    const std::int64_t lse = 4 * fwd.B * fwd.H * fwd.T_q;
    const std::int64_t p = stored_score_matrix_bytes(fwd, e.scores, dtype_bytes(fwd.dtype));
    const std::int64_t s = stored_score_matrix_bytes(fwd, e.scores, 4);
    const std::int64_t scores = materialises_scores(e) ? s + p : 0;
    EXPECT_EQ(predicted_memory(fwd).predicted_bytes,
              io_bytes(fwd) + e.forward_workspace_bytes + scores)
        << e.name;
    EXPECT_EQ(saved_bytes(train), lse + (materialises_scores(e) ? p : 0)) << e.name;
    EXPECT_EQ(backward_workspace_bytes(train), e.backward_workspace_bytes(train)) << e.name;
    EXPECT_EQ(backward_workspace_bytes(fwd), 0) << e.name;
  }
  // A name outside the catalog streams and needs the row sums for a backward.
  const Case other = case_of("not-in-catalog", Mode::bwd);
  EXPECT_EQ(backward_workspace_bytes(other), row_sums_bytes(other));
  EXPECT_EQ(saved_bytes(other), 4 * other.B * other.H * other.T_q);
}

TEST(BackendCatalog, PaddedRowsRoundRowsTo8AndMatricesTo256Bytes) {
  const Case c = case_of("naive", Mode::fwd);  // T_k 47 -> 48 elements a row
  EXPECT_EQ(stored_score_matrix_bytes(c, ScoreStorage::dense, 2), 1 * 4 * 33 * 47 * 2);
  EXPECT_EQ(stored_score_matrix_bytes(c, ScoreStorage::padded_rows, 2),
            aligned_256(1 * 4 * 33 * 48 * 2));
}

TEST(BackendCatalog, RefusesUnusableEntries) {
  BackendEntry e;
  e.name = "cpu-flash";
  e.backward_workspace_bytes = row_sums_bytes;
  e.modes = {Mode::fwd};
  EXPECT_THROW(add_backend_entry(e), std::invalid_argument);  // taken
  e.name = "";
  EXPECT_THROW(add_backend_entry(e), std::invalid_argument);
  e.name = "catalog-test-no-formula";
  e.backward_workspace_bytes = nullptr;
  EXPECT_THROW(add_backend_entry(e), std::invalid_argument);
  e.name = "catalog-test-no-fwd";
  e.backward_workspace_bytes = row_sums_bytes;
  e.modes = {Mode::bwd};
  EXPECT_THROW(add_backend_entry(e), std::invalid_argument);
  EXPECT_EQ(find_backend_entry("catalog-test-no-fwd"), nullptr);
}

TEST(BackendCatalog, NamesInProse) {
  EXPECT_EQ(catalog_names_prose(materialises_scores), "naive, standard and cpu-naive");
}

}  // namespace
}  // namespace fa2b

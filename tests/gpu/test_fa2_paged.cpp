// SPDX-License-Identifier: Apache-2.0
// fa2's decode kernels on a paged KV cache (AttnParams::block_table, load_paged_rows in
// common/tile_io.cuh) against the float64 reference: T_k = 1, 17, 1000, 4097 with pages of 16, 64
// and 256 keys (none divides those T_k, so each sequence's last page is partly used, its unused
// rows NaN), T_q = 1 and 4, grouped (H = 8, H_kv = 2) and ungrouped heads, causal and not, bhsd
// and bshd Q/O, two sequences whose pages interleave in the pool, fp16 and bf16, D = 64 and 128.
// The K and V of fwd_kernel_check.h's contiguous run are scattered into pages through a seeded
// page table (runner/paged_staging.h, as the runner stages a paged case), so the reference and
// the check (O and LSE poisoned with NaN first, both compared) are that file's. The decode plan
// is forced to several splits, one split, packing on and off, and left to the heuristic; long
// query tiles (prefill on a paged cache) run the split kernel unsplit. A control rotates the page
// table by one page and expects the check to fail, so a kernel that ignored the table could not
// pass. A runner test runs a paged case end to end. The GPU tests skip without a CUDA device;
// the support rules need none.
#include <cuda_runtime.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/shape_params.h"
#include "common/device_utils.h"
#include "core/paged_kv.h"
#include "fa2/fa2_bwd.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_split_kv.h"
#include "fwd_kernel_check.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/paged_staging.h"
#include "runner/platform.h"
#include "runner_case.h"
#include "scoped_env.h"
#include "sweep_params.h"

namespace fa2b {
namespace {

using fwd_check::Shape;

// The next run's pages (tokens per page), whether its table is rotated by one page (control),
// and the plan it took, for the tests to assert on.
int g_page_size = 64;
bool g_rotate_table = false;
int g_last_splits = 0;
bool g_last_packed = false;

// The paged forward of fwd_kernel_check.h's contiguous params `c_p`: its K and V (dense
// buffers of B * H_kv * T_k rows at c_p's strides) copied to the host, scattered into pools of
// g_page_size-key pages through a seeded page table, and run as the fa2 backend runs a paged
// case: the decode plan, the workspace fa2 asks for (poisoned with NaN), then the forward.
cudaError_t run_paged_forward(const AttnParams& c_p, cudaStream_t stream) {
  Case c;  // the page geometry and the table's seed
  c.B = c_p.B;
  c.H = c_p.H;
  c.H_kv = c_p.H_kv;
  c.T_q = c_p.T_q;
  c.T_k = c_p.T_k;
  c.D = c_p.D;
  c.dtype = c_p.dtype == KernelDType::bf16 ? DType::bf16 : DType::fp16;
  c.kv_layout = KvLayout::paged;
  c.page_size = g_page_size;
  c.measure.seed = 77 + static_cast<std::uint64_t>(c_p.T_k);
  // The pages are filled through the seeded table; the control hands the kernel that table
  // rotated by one page, so every logical page it reads holds another page's keys.
  const std::vector<std::int32_t> table = page_table(c);
  std::vector<std::int32_t> kernel_table = table;
  if (g_rotate_table)
    std::rotate(kernel_table.begin(), kernel_table.begin() + 1, kernel_table.end());

  const TensorDesc logical{
      c_p.B, c_p.H_kv, c_p.T_k, c_p.D, {c_p.k_batch_stride, c_p.k_head_stride, c_p.k_row_stride}};
  std::vector<unsigned char> host(static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.D * 2));
  const auto pool_bytes = static_cast<std::size_t>(page_pool_bytes(c));
  DevBuf k_pool(pool_bytes), v_pool(pool_bytes), table_dev(table.size() * sizeof(std::int32_t));
  if (!k_pool.ptr || !v_pool.ptr || !table_dev.ptr) return cudaErrorMemoryAllocation;
  for (const auto& [from, to] : {std::pair{c_p.k, k_pool.ptr}, std::pair{c_p.v, v_pool.ptr}}) {
    cudaError_t err = cudaMemcpy(host.data(), from, host.size(), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) return err;
    const std::vector<unsigned char> pages = scatter_to_pages(c, host.data(), logical, table);
    err = cudaMemcpy(to, pages.data(), pages.size(), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) return err;
  }
  cudaError_t err = cudaMemcpy(table_dev.ptr, kernel_table.data(),
                               kernel_table.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;

  // The pool's strides, as shape_params gives a paged case.
  AttnParams p = c_p;
  p.k = k_pool.ptr;
  p.v = v_pool.ptr;
  p.k_batch_stride = p.v_batch_stride = c.page_size * c.H_kv * c.D;
  p.k_head_stride = p.v_head_stride = c.D;
  p.k_row_stride = p.v_row_stride = c.H_kv * c.D;
  p.block_table = static_cast<const int*>(table_dev.ptr);
  p.page_size = static_cast<int>(c.page_size);
  p.pages_per_seq = static_cast<int>(pages_per_seq(c));
  std::string why;
  if (!fa2_fwd_supported(p, &why)) {
    ADD_FAILURE() << "paged params refused: " << why;
    return cudaErrorInvalidValue;
  }

  const Fa2SplitKv plan = fa2_fwd_decode_plan(p);
  g_last_splits = plan.n_splits;
  g_last_packed = plan.pack_gqa;
  const std::int64_t bytes = fa2_fwd_split_workspace_bytes(p, plan);
  DevBuf ws(static_cast<std::size_t>(bytes));
  if (bytes > 0 && ws.ptr == nullptr) return cudaErrorMemoryAllocation;
  Fa2SplitKv split = plan;
  if (bytes > 0) {
    // A split row the kernel forgets to write shows up as NaN.
    err = cudaMemset(ws.ptr, 0xFF, static_cast<std::size_t>(bytes));
    if (err != cudaSuccess) return err;
    const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
    split.o_partial = static_cast<float*>(ws.ptr);
    split.lse_partial = split.o_partial + std::max(plan.n_splits, 1) * rows * p.D;
  }
  err = fa2_fwd(p, split, stream);
  // The pools, table and workspace are freed on return: finish first.
  const cudaError_t sync = cudaStreamSynchronize(stream);
  return err != cudaSuccess ? err : sync;
}

const fwd_check::FwdKernel kFa2Paged{fa2_fwd_supported, run_paged_forward};

// Runs and checks `s` on pages of `page_size` keys with FA2BENCH_FA2_SPLITS = forced (0: the
// heuristic) and packing allowed or not, and asserts the plan: the forced count, and packing
// wherever it is allowed and a group's rows fit the smallest decode tile (64 rows).
void check_paged(const Shape& s, int page_size, int forced, bool pack) {
  const std::string forced_text = std::to_string(forced);
  ScopedEnv env("FA2BENCH_FA2_SPLITS", forced > 0 ? forced_text.c_str() : nullptr);
  ScopedEnv pack_env("FA2BENCH_FA2_GQA_PACK", pack ? nullptr : "0");
  SCOPED_TRACE("page_size=" + std::to_string(page_size) +
               " FA2BENCH_FA2_SPLITS=" + (forced > 0 ? forced_text : std::string("unset")) +
               (pack ? "" : " FA2BENCH_FA2_GQA_PACK=0"));
  g_page_size = page_size;
  g_last_splits = 0;
  g_last_packed = false;
  fwd_check::run_and_check(kFa2Paged, s);
  if (forced > 0) {
    EXPECT_EQ(g_last_splits, forced) << fwd_check::describe(s);
  }
  if (!pack || s.H == s.H_kv) {
    EXPECT_FALSE(g_last_packed) << fwd_check::describe(s);
  } else if (s.H / s.H_kv * s.T_q <= 64) {
    EXPECT_TRUE(g_last_packed) << fwd_check::describe(s);
  }
}

// The decode kernels' head dims of the issue: D = 64 and 128, both dtypes.
std::vector<sweep_params::DtypeDim> paged_dtype_dims() {
  std::vector<sweep_params::DtypeDim> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : {64, 128}) out.push_back({dt, D});
  }
  return out;
}

class Fa2PagedSweep : public ::testing::TestWithParam<sweep_params::DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

// Forced counts cycled over the shapes (0: the heuristic): 3 and 7 splits of T_k = 17 (one key
// block) leave splits without a key; 1 runs the split kernel unsplit where heads are not packed
// (the paged path's own case: the plain kernel reads no pages), the packed kernel where they are.
constexpr int kForcedSplits[] = {0, 3, 1, 7, 2};
constexpr int kForcedCount = sizeof(kForcedSplits) / sizeof(kForcedSplits[0]);

TEST_P(Fa2PagedSweep, OddLengthsAndPageSizes) {
  int n = 0;
  for (bool causal : {false, true}) {
    for (std::int64_t tq : {1, 4}) {
      for (std::int64_t tk : {1, 17, 1000, 4097}) {
        if (tk > fwd_check::max_test_length()) continue;
        for (int page : {1, 16, 64, 256}) {  // 1: a page per key (FlashInfer's smallest)
          for (bool grouped : {true, false}) {
            Shape s;
            s.dtype = GetParam().dtype;
            s.D = GetParam().D;
            s.causal = causal;
            s.T_q = tq;
            s.T_k = tk;
            s.B = 2;
            s.H = 8;
            s.H_kv = grouped ? 2 : 8;
            if (n % 3 == 1) s.layout = Layout::bshd;  // Q and O; the pools are one layout
            const int forced = kForcedSplits[n % kForcedCount];
            const bool pack = n % 4 != 3;
            ++n;
            check_paged(s, page, forced, pack);
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DecodeDims, Fa2PagedSweep, ::testing::ValuesIn(paged_dtype_dims()),
                         sweep_params::sweep_name);

class Fa2Paged : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

// A paged cache takes the decode kernels whatever T_q: query tiles beyond the first (where the
// heuristic never splits) run the split kernel with one split, rows without any key (T_q > T_k,
// causal) included.
TEST_F(Fa2Paged, LongQueriesRunTheSplitKernelUnsplit) {
  if (4097 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  int n = 0;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (auto [tq, tk] :
         {std::pair<std::int64_t, std::int64_t>{1000, 1000}, {17, 4097}, {1000, 17}}) {
      for (bool causal : {false, true}) {
        Shape s;
        s.dtype = dt;
        s.D = n % 2 == 0 ? 128 : 64;
        s.causal = causal;
        s.T_q = tq;
        s.T_k = tk;
        s.B = 2;
        s.H = 4;
        s.H_kv = 2;
        const int page = n % 2 == 0 ? 16 : 256;
        ++n;
        check_paged(s, page, 0, /*pack=*/true);
        if (tq > 64) {
          EXPECT_EQ(g_last_splits, 1) << fwd_check::describe(s);
          EXPECT_FALSE(g_last_packed) << fwd_check::describe(s);
        }
      }
    }
  }
}

// Control: the same check fails when the page table is rotated by one page (every logical page
// read from another's physical page), so the sweep above proves the kernels follow the table.
TEST_F(Fa2Paged, CheckFailsWithARotatedPageTable) {
  for (bool pack : {true, false}) {
    Shape s;
    s.dtype = DType::bf16;
    s.D = 128;
    s.causal = true;
    s.B = 2;
    s.H = 8;
    s.H_kv = 2;
    s.T_q = 4;
    s.T_k = 1000;  // 16 pages of 64 per sequence, 32 in the pool
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      g_rotate_table = true;
      check_paged(s, 64, 1, pack);
      g_rotate_table = false;
    }
    int fatal = 0, nonfatal = 0;
    for (int i = 0; i < failures.size(); ++i) {
      fatal += failures.GetTestPartResult(i).fatally_failed() ? 1 : 0;
      nonfatal += failures.GetTestPartResult(i).nonfatally_failed() ? 1 : 0;
    }
    EXPECT_EQ(fatal, 0) << "the run itself failed (packed: " << pack << ")";
    EXPECT_GT(nonfatal, 0) << "a rotated page table went unnoticed (packed: " << pack << ")";
  }
}

// Through the runner, as a sweep runs a paged case: pools and table staged by the runner, the
// split workspace of the unsplit split kernel tracked, the plan named in backend_info.
TEST_F(Fa2Paged, RunnerRunsAPagedCase) {
  ScopedEnv splits("FA2BENCH_FA2_SPLITS", "1");
  ScopedEnv pack("FA2BENCH_FA2_GQA_PACK", "0");
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  auto backend = make_backend("fa2");
  Case c = gpu_runner_case("fa2", 2, 8, 2, 4, 1000);
  c.kv_layout = KvLayout::paged;
  c.page_size = 16;
  const CaseResult r = run_case(c, *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  const std::int64_t one_split = 4LL * c.B * c.H * c.T_q * (c.D + 1);
  EXPECT_GE(r.memory.workspace_bytes, one_split);
  EXPECT_LE(r.memory.workspace_bytes, one_split + 256);
  EXPECT_LT(r.accuracy.rel_l2_err, 1e-2);
  EXPECT_EQ(r.accuracy.nonfinite, 0);
  EXPECT_EQ(r.backend_info, "fa2 decode: 1 split, paged KV");
  EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";

  // The training modes: refused before the backend is asked (a paged cache is inference only).
  c.mode = Mode::fwd_bwd;
  const CaseResult train = run_case(c, *backend, *platform);
  EXPECT_EQ(train.status, Status::unsupported);
  EXPECT_NE(train.reason.find("forward only"), std::string::npos) << train.reason;
}

// The support rules, host code only (no device needed): what the decode kernels take, the
// backward's refusal, the plain entry point's refusal, and the decode tile's shared memory.
// The runner stages a paged case on the device (fill_paged_inputs, through the cuda platform):
// the pools it writes equal the host's scatter of the logical tensor bit for bit, the
// poisoned rows past T_k included, at odd T_k, pages that do not divide it and both dtypes.
TEST_F(Fa2Paged, DeviceFillEqualsTheHostScatter) {
  const auto host = make_host_platform();
  for (DType dt : {DType::bf16, DType::fp16}) {
    for (std::int64_t T_k : {1, 17, 1000}) {
      for (std::int64_t ps : {16, 256}) {
        Case c;
        c.B = 2;
        c.H = 6;
        c.H_kv = 3;
        c.T_q = 1;
        c.T_k = T_k;
        c.D = 40;
        c.dtype = dt;
        c.kv_layout = KvLayout::paged;
        c.page_size = ps;
        c.measure.seed = 5 + static_cast<std::uint64_t>(T_k);
        SCOPED_TRACE("T_k " + std::to_string(T_k) + ", pages of " + std::to_string(ps));
        const TensorDesc kd{2, 3, static_cast<int>(T_k), 40,
                            tensor_strides(Layout::bhsd, 3, T_k, 40)};
        std::vector<unsigned char> logical(static_cast<std::size_t>(2 * 3 * T_k * 40 * 2));
        host->fill(logical.data(), kd, dt, c.measure.seed, InputTensor::k, InputDist::normal);
        const std::vector<std::int32_t> table = page_table(c);
        const std::vector<unsigned char> want = scatter_to_pages(c, logical.data(), kd, table);
        DevBuf pool(want.size()), table_dev(table.size() * sizeof(std::int32_t));
        ASSERT_TRUE(pool.ptr && table_dev.ptr);
        ASSERT_EQ(cudaMemcpy(table_dev.ptr, table.data(), table.size() * sizeof(std::int32_t),
                             cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaMemset(pool.ptr, 0xFF, want.size()), cudaSuccess);
        ASSERT_EQ(
            fill_paged_inputs(pool.ptr, dt == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16,
                              2, 3, static_cast<int>(T_k), 40, static_cast<int>(ps),
                              static_cast<const std::int32_t*>(table_dev.ptr), c.measure.seed,
                              InputTensor::k, KernelInputDist::normal, nullptr),
            cudaSuccess);
        std::vector<unsigned char> got(want.size());
        ASSERT_EQ(cudaMemcpy(got.data(), pool.ptr, got.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(got, want);
      }
    }
  }
}

TEST(Fa2PagedSupport, RulesSayWhatTheDecodeKernelsNeed) {
  Case c = gpu_runner_case("fa2", 2, 8, 2, 1, 1000);
  c.kv_layout = KvLayout::paged;
  c.page_size = 64;
  std::string why;
  AttnParams p = shape_params(c);
  EXPECT_TRUE(fa2_fwd_supported(p, &why)) << why;

  // The backward reads no pages (the catalog refuses training modes before; this says why too).
  EXPECT_FALSE(fa2_bwd_supported(p, &why));
  EXPECT_NE(why.find("backward reads no paged cache"), std::string::npos) << why;
  // The plain forward reads no pages: only the plan's entry point runs a paged cache.
  EXPECT_EQ(fa2_fwd(p, nullptr), cudaErrorInvalidValue);

  // A head dim without a tile of its own runs padded in the plain forward only.
  Case padded = c;
  padded.D = 80;
  EXPECT_FALSE(fa2_fwd_supported(shape_params(padded), &why));
  EXPECT_NE(why.find("decode kernels"), std::string::npos) << why;
  AttnParams odd_page = p;
  odd_page.page_size = 48;
  EXPECT_FALSE(fa2_fwd_supported(odd_page, &why));
  EXPECT_NE(why.find("power-of-two"), std::string::npos) << why;
  AttnParams short_table = p;
  short_table.pages_per_seq = 15;  // 1000 keys need 16 pages of 64
  EXPECT_FALSE(fa2_fwd_supported(short_table, &why));
  EXPECT_NE(why.find("pages_per_seq"), std::string::npos) << why;

  // The backend: yes on an H200's limits; no where the decode tile (80 KiB at D = 128) does not
  // fit though the large-grid tile (64 KiB) would.
  auto backend = make_backend("fa2");
  TargetInfo t;
  t.cuda = true;
  t.cc_major = 9;
  t.smem_per_block_optin = 227 * 1024;
  c.causal = false;
  const Support yes = backend->supports(c, t);
  EXPECT_TRUE(yes.ok) << yes.reason;
  t.smem_per_block_optin = 64 * 1024;
  const Support no = backend->supports(c, t);
  EXPECT_FALSE(no.ok);
  EXPECT_NE(no.reason.find("paged KV layout"), std::string::npos) << no.reason;
  c.kv_layout = KvLayout::contiguous;
  c.page_size = 0;
  EXPECT_TRUE(backend->supports(c, t).ok) << "the contiguous case runs the large-grid tile";
}

}  // namespace
}  // namespace fa2b

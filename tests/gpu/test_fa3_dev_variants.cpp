// SPDX-License-Identifier: Apache-2.0
// The fa3 forward's tuning variants (kernels/fa3/fa3_dev_tiles.h, what `fa2bench tune
// --backend fa3` ranks) against the float64 reference on the odd lengths of the kernel test,
// every variant of every head dim, both dtypes and masks; and the names tune prints. The
// variants exist only in builds with -DFA2BENCH_DEV_KERNELS=ON: elsewhere the sweep skips.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "fa3/fa3_dev_tiles.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_fwd_dev.h"
#include "fa3/fa3_traits.h"
#include "fwd_kernel_check.h"
#include "sm90_available.h"

namespace fa2b {
namespace {

// FwdKernel takes plain functions: the variant under test travels beside them.
int g_variant = 0;
cudaError_t run_variant(const AttnParams& p, cudaStream_t stream) {
  return fa3_fwd_dev_variant(p, g_variant, stream);
}
const fwd_check::FwdKernel kFa3Variant{fa3_fwd_supported, run_variant};

class Fa3DevVariants : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

TEST_P(Fa3DevVariants, AllLengthsBothMasks) {
  const int D = GetParam();
  const int count = fa3_fwd_dev_variant_count(D);
  if (count == 0) GTEST_SKIP() << "this build has no fa3 tuning variants (FA2BENCH_DEV_KERNELS)";
  for (int v = 1; v < count; ++v) {
    SCOPED_TRACE("variant " + std::to_string(v) + ": " + fa3_fwd_dev_variant_name(D, v));
    g_variant = v;
    for (DType dt : {DType::fp16, DType::bf16}) fwd_check::odd_length_sweep(kFa3Variant, dt, D);
  }
}

// The shipped dispatch, every variant, then the shipped dispatch again, in one process. A tile
// that is both shipped and a candidate is one kernel template instantiated in two units (the
// shipped and the tuning unit), each with its own device module, and each needs its own
// shared-memory opt-in (common/smem_opt_in.h): with one opt-in shared by both units' launch
// code, whichever unit launched second failed (cudaErrorInvalidValue).
TEST_P(Fa3DevVariants, ShippedAndVariantsInOneProcess) {
  const int D = GetParam();
  const int count = fa3_fwd_dev_variant_count(D);
  if (count == 0) GTEST_SKIP() << "this build has no fa3 tuning variants (FA2BENCH_DEV_KERNELS)";
  const fwd_check::FwdKernel shipped{fa3_fwd_supported, fa3_fwd};
  for (std::int64_t T : {1000, 4097}) {  // short and long keys: both tile tables
    for (bool causal : {false, true}) {
      fwd_check::Shape s;
      s.dtype = DType::bf16;
      s.D = D;
      s.causal = causal;
      s.T_q = s.T_k = T;
      fwd_check::run_and_check(shipped, s);
      for (int v = 1; v < count; ++v) {
        SCOPED_TRACE("variant " + std::to_string(v) + ": " + fa3_fwd_dev_variant_name(D, v));
        g_variant = v;
        fwd_check::run_and_check(kFa3Variant, s);
      }
      fwd_check::run_and_check(shipped, s);
    }
  }
}

std::string dim_name(const ::testing::TestParamInfo<int>& param_info) {
  return "d" + std::to_string(param_info.param);
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa3DevVariants, ::testing::ValuesIn(Fa3HeadDims::kValues),
                         dim_name);

// Runs without a GPU: names come from the tiles, out-of-range variants have none.
TEST(Fa3DevVariantNames, FromTheTiles) {
  EXPECT_EQ((fa3_tile_name<Fa3FwdTile<128, 176, 2, 2>>()), "128x176 s2 c2 turns");
  EXPECT_EQ((fa3_tile_name<Fa3FwdTile<64, 128, 3, 3, false>>()), "192x128 s3 c3 free");
  EXPECT_EQ((fa3_tile_name<Fa3FwdTile<128, 128, 2, 2, true, true, true, 2>>()),
            "128x128 s2 c2 turns staged persistent q2");
  EXPECT_EQ(fa3_fwd_dev_variant_name(128, 0), "shipped");
  EXPECT_EQ(fa3_fwd_dev_variant_name(128, -1), "");
  EXPECT_EQ(fa3_fwd_dev_variant_name(96, 1), "");
  const int count = fa3_fwd_dev_variant_count(128);
  if (count == 0) return;  // a build without the variants names none beyond the shipped one
  EXPECT_EQ(count, 1 + Fa3DevTiles<128>::List::kCount);
  EXPECT_EQ(fa3_fwd_dev_variant_name(128, 1), (fa3_tile_name<Fa3FwdTile<128, 128, 2, 2>>()));
  EXPECT_EQ(fa3_fwd_dev_variant_name(128, count), "");
}

}  // namespace
}  // namespace fa2b

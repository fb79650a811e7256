// SPDX-License-Identifier: Apache-2.0
// The table of GPU peaks: names as CUDA reports them, the device block and % of peak per case.
#include <gtest/gtest.h>

#include <cmath>

#include "core/gpu_peaks.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

double tflops(const std::string& name) {
  const auto p = find_gpu_peaks(name);
  return p ? p->fp16_tflops : -1;
}
double bw(const std::string& name) {
  const auto p = find_gpu_peaks(name);
  return p ? p->bw_gbs : -1;
}

TEST(GpuPeaks, DeviceNamesAsCudaReportsThem) {
  EXPECT_EQ(tflops("NVIDIA A100-SXM4-80GB"), 312);
  EXPECT_EQ(bw("NVIDIA A100-SXM4-80GB"), 2039);
  EXPECT_EQ(bw("NVIDIA A100-SXM4-40GB"), 1555);
  EXPECT_EQ(bw("NVIDIA A100 80GB PCIe"), 1935);
  EXPECT_EQ(bw("NVIDIA A100-PCIE-40GB"), 1555);
  EXPECT_EQ(tflops("NVIDIA A10"), 125);
  EXPECT_EQ(tflops("NVIDIA A10G"), -1);  // another card, not in the table
  EXPECT_EQ(tflops("NVIDIA L4"), 121);
  EXPECT_EQ(bw("NVIDIA L4"), 300);
  EXPECT_EQ(tflops("NVIDIA L40S"), 362.05);
  EXPECT_EQ(tflops("NVIDIA L40"), 181.05);  // its own row, not the L40S's
  EXPECT_EQ(bw("NVIDIA L40"), 864);
  EXPECT_EQ(tflops("NVIDIA H800"), 989.5);
  EXPECT_EQ(tflops("NVIDIA H20"), 148);
  EXPECT_EQ(bw("NVIDIA A800-SXM4-80GB"), 2039);
  EXPECT_EQ(tflops("NVIDIA L20"), -1);  // not in the table
  EXPECT_EQ(tflops("NVIDIA GeForce RTX 3090"), 71);
  EXPECT_EQ(tflops("NVIDIA GeForce RTX 3090 Ti"), -1);
  EXPECT_EQ(tflops("NVIDIA GeForce RTX 4090"), 165.2);
  EXPECT_EQ(bw("NVIDIA GeForce RTX 4090"), 1008);
  EXPECT_EQ(tflops("NVIDIA H100 80GB HBM3"), 989.5);
  EXPECT_EQ(bw("NVIDIA H100 80GB HBM3"), 3350);
  EXPECT_EQ(tflops("NVIDIA H100 PCIe"), 756.5);
  EXPECT_EQ(tflops("NVIDIA H100 NVL"), 835.5);
  EXPECT_EQ(tflops("NVIDIA H200"), 989.5);
  EXPECT_EQ(bw("NVIDIA H200"), 4800);
  EXPECT_EQ(tflops("NVIDIA H200 NVL"), 835.5);
  EXPECT_EQ(tflops("NVIDIA B200"), 2250);
  EXPECT_EQ(bw("NVIDIA B200"), 8000);
}

TEST(GpuPeaks, DeviceBlockCarriesPeaksOrWhyNot) {
  const nlohmann::json h200 = with_device_peaks({{"kind", "cuda"}, {"name", "NVIDIA H200"}});
  EXPECT_EQ(h200["peak_tflops"]["fp16"], 989.5);
  EXPECT_EQ(h200["peak_tflops"]["bf16"], 989.5);
  EXPECT_FALSE(h200["peak_tflops"].contains("fp32"));
  EXPECT_EQ(h200["peak_bw_gbs"], 4800);
  EXPECT_FALSE(h200.contains("peaks_absent"));
  EXPECT_EQ(block_peak_tflops(h200, DType::bf16), 989.5);
  EXPECT_TRUE(std::isnan(block_peak_tflops(h200, DType::fp32)));

  const nlohmann::json odd = with_device_peaks({{"kind", "cuda"}, {"name", "Mystery GPU"}});
  EXPECT_FALSE(odd.contains("peak_tflops"));
  EXPECT_NE(odd["peaks_absent"].get<std::string>().find("no row"), std::string::npos);
  const nlohmann::json cpu = with_device_peaks({{"kind", "cpu"}, {"name", "NVIDIA L4 CPU?"}});
  EXPECT_FALSE(cpu.contains("peak_tflops"));
  EXPECT_EQ(cpu["peaks_absent"], "the cpu target has no tensor-core peak");
  EXPECT_TRUE(std::isnan(block_peak_bw_gbs(cpu)));
}

TEST(GpuPeaks, CaseFieldsWrittenOnlyWhenKnownAndReadBack) {
  CaseResult r;
  r.c.backend = "fa2";
  r.pct_of_peak_flops = 61.5;
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["pct_of_peak_flops"], 61.5);
  EXPECT_FALSE(j.contains("pct_of_peak_bw"));  // NaN: unknown, never written as 0 or null
  r.pct_of_peak_flops = kNaN;
  EXPECT_FALSE(to_json(r).contains("pct_of_peak_flops"));
}

}  // namespace
}  // namespace fa2b

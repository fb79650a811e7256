// SPDX-License-Identifier: Apache-2.0
#include "core/gpu_peaks.h"

#include <cctype>
#include <cmath>
#include <limits>

namespace fa2b {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// A row matches when the name holds every `all_of` token and no `none_of` token, tokens being
// whole words of the upper-cased name (so "L4" does not match "L40S", nor "A10" "A100").
struct Row {
  const char* all_of[3];
  const char* none_of[2];
  GpuPeaks peaks;
};

// The first matching row wins, so the more specific rows come first. Tensor peaks are the
// data sheets' dense numbers: where a sheet gives only "with sparsity" ones, half of them.
// clang-format off
const Row kRows[] = {
    // NVIDIA H200 NVL product brief (2024): FP16/BF16 tensor 1,671 TFLOPS sparse; 4.8 TB/s.
    {{"H200", "NVL"}, {}, {"H200 NVL", 835.5, 835.5, 4800}},
    // NVIDIA H200 Tensor Core GPU datasheet (SXM): FP16/BF16 tensor 1,979 TFLOPS sparse; HBM3e
    // 4.8 TB/s.
    {{"H200"}, {}, {"H200 SXM", 989.5, 989.5, 4800}},
    // NVIDIA H100 Tensor Core GPU datasheet, H100 NVL: FP16/BF16 1,671 TFLOPS sparse; 3.9 TB/s.
    {{"H100", "NVL"}, {}, {"H100 NVL", 835.5, 835.5, 3900}},
    // Same datasheet, H100 PCIe: FP16/BF16 1,513 TFLOPS sparse; 2 TB/s.
    {{"H100", "PCIE"}, {}, {"H100 PCIe", 756.5, 756.5, 2000}},
    // Same datasheet, H100 SXM ("NVIDIA H100 80GB HBM3"): FP16/BF16 1,979 TFLOPS sparse;
    // 3.35 TB/s.
    {{"H100"}, {}, {"H100 SXM", 989.5, 989.5, 3350}},
    // NVIDIA H800 SXM5 (the H100 SXM's compute, export variant): FP16/BF16 1,979 TFLOPS
    // sparse; 3.35 TB/s.
    {{"H800"}, {}, {"H800 SXM", 989.5, 989.5, 3350}},
    // NVIDIA H20 (Hopper, 96 GB HBM3): FP16/BF16 tensor 148 TFLOPS dense; 4.0 TB/s.
    {{"H20"}, {}, {"H20", 148, 148, 4000}},
    // NVIDIA A800 (the A100's compute, export variant): 312 TFLOPS dense; 80GB PCIe 1,935 GB/s,
    // SXM 2,039 GB/s.
    {{"A800", "PCIE"}, {}, {"A800 PCIe 80GB", 312, 312, 1935}},
    {{"A800"}, {}, {"A800 SXM 80GB", 312, 312, 2039}},
    // NVIDIA A100 Tensor Core GPU datasheet: FP16/BF16 tensor 312 TFLOPS dense (624 sparse);
    // 80GB PCIe 1,935 GB/s, 80GB SXM 2,039 GB/s, 40GB (PCIe and SXM) 1,555 GB/s.
    {{"A100", "80GB", "PCIE"}, {}, {"A100 PCIe 80GB", 312, 312, 1935}},
    {{"A100", "80GB"}, {}, {"A100 SXM 80GB", 312, 312, 2039}},
    {{"A100"}, {}, {"A100 40GB", 312, 312, 1555}},
    // NVIDIA A10 Tensor Core GPU datasheet: FP16/BF16 tensor 125 TFLOPS dense (250 sparse);
    // 600 GB/s.
    {{"A10"}, {}, {"A10", 125, 125, 600}},
    // NVIDIA L40S datasheet: FP16/BF16 tensor 362.05 TFLOPS dense (733 sparse); 864 GB/s.
    {{"L40S"}, {}, {"L40S", 362.05, 362.05, 864}},
    // NVIDIA L40 datasheet: FP16/BF16 tensor 181.05 TFLOPS dense (362.1 sparse); 864 GB/s.
    {{"L40"}, {}, {"L40", 181.05, 181.05, 864}},
    // NVIDIA L4 Tensor Core GPU datasheet: FP16/BF16 tensor 242 TFLOPS sparse; 300 GB/s.
    {{"L4"}, {}, {"L4", 121, 121, 300}},
    // NVIDIA Ampere GA102 GPU architecture whitepaper, RTX 3090: FP16 tensor with FP32
    // accumulate 71 TFLOPS dense (142 with FP16 accumulate; BF16 71); 936 GB/s. Attention
    // kernels accumulate in fp32, so the fp32-accumulate number.
    {{"RTX", "3090"}, {"TI"}, {"RTX 3090", 71, 71, 936}},
    // NVIDIA Ada GPU architecture whitepaper, RTX 4090: FP16 tensor with FP32 accumulate
    // 165.2 TFLOPS dense (330.3 with FP16 accumulate; BF16 165.2); 1,008 GB/s.
    {{"RTX", "4090"}, {"D", "LAPTOP"}, {"RTX 4090", 165.2, 165.2, 1008}},
    // NVIDIA HGX B200 datasheet: FP16/BF16 tensor 36 PFLOPS sparse for 8 GPUs (2.25 PFLOPS
    // dense per GPU); HBM3e 64 TB/s for 8 GPUs (8 TB/s each).
    {{"B200"}, {}, {"B200", 2250, 2250, 8000}},
};
// clang-format on

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

bool has_token(const std::string& name, const std::string& token) {
  for (std::size_t pos = name.find(token); pos != std::string::npos;
       pos = name.find(token, pos + 1)) {
    const bool left = pos == 0 || !std::isalnum(static_cast<unsigned char>(name[pos - 1]));
    const std::size_t end = pos + token.size();
    const bool right = end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]));
    if (left && right) return true;
  }
  return false;
}

bool matches(const Row& row, const std::string& name) {
  for (const char* t : row.all_of) {
    if (t != nullptr && !has_token(name, t)) return false;
  }
  for (const char* t : row.none_of) {
    if (t != nullptr && has_token(name, t)) return false;
  }
  return true;
}

double positive_number(const nlohmann::json& j) {
  return j.is_number() && j.get<double>() > 0 ? j.get<double>() : kUnknown;
}

}  // namespace

std::optional<GpuPeaks> find_gpu_peaks(const std::string& device_name) {
  const std::string name = upper(device_name);
  for (const Row& row : kRows) {
    if (matches(row, name)) return row.peaks;
  }
  return std::nullopt;
}

nlohmann::json with_device_peaks(nlohmann::json device) {
  if (!device.is_object()) return device;
  const auto name = device.find("name");
  const bool gpu = device.value("kind", "") == "cuda";
  const std::optional<GpuPeaks> peaks = gpu && name != device.end() && name->is_string()
                                            ? find_gpu_peaks(name->get<std::string>())
                                            : std::nullopt;
  if (!peaks) {
    device["peaks_absent"] = gpu ? "no row for this device name in fa2bench's table of GPU peaks"
                                 : "the cpu target has no tensor-core peak";
    return device;
  }
  device["peak_tflops"] = {{"fp16", peaks->fp16_tflops}, {"bf16", peaks->bf16_tflops}};
  device["peak_bw_gbs"] = peaks->bw_gbs;
  device["peaks_source"] = std::string("vendor data sheet, ") + peaks->label;
  return device;
}

double block_peak_tflops(const nlohmann::json& device, DType dtype) {
  if (!device.is_object()) return kUnknown;
  const auto it = device.find("peak_tflops");
  if (it == device.end()) return kUnknown;
  if (it->is_number()) return positive_number(*it);
  if (!it->is_object()) return kUnknown;
  const auto d = it->find(std::string(to_string(dtype)));
  return d == it->end() ? kUnknown : positive_number(*d);
}

double block_peak_bw_gbs(const nlohmann::json& device) {
  if (!device.is_object()) return kUnknown;
  const auto it = device.find("peak_bw_gbs");
  return it == device.end() ? kUnknown : positive_number(*it);
}

}  // namespace fa2b

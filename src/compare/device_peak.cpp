// Peak dense TFLOP/s of a device, for `compare --normalize` across GPUs.
#include <cctype>
#include <string>

#include "compare/compare.h"

namespace fa2b {
namespace {

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// Whether `token` appears in `name` as a whole word (so "L4" does not match "L40S").
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

}  // namespace

std::string device_name(const nlohmann::json& device) {
  if (device.is_object()) {
    const auto it = device.find("name");
    if (it != device.end() && it->is_string() && !it->get<std::string>().empty())
      return it->get<std::string>();
  }
  return "unknown device";
}

std::optional<double> device_peak_tflops(const nlohmann::json& device) {
  if (device.is_object()) {
    const auto it = device.find("peak_tflops");
    if (it != device.end() && it->is_number() && it->get<double>() > 0) return it->get<double>();
  }
  const std::string name = upper(device_name(device));
  // Dense bf16/fp16 tensor-core peaks (no sparsity), from NVIDIA's data sheets.
  if (has_token(name, "H200")) return 989.0;
  if (has_token(name, "H100") && !has_token(name, "PCIE") && !has_token(name, "NVL")) return 989.0;
  if (has_token(name, "A100")) return 312.0;
  if (has_token(name, "L4")) return 121.0;
  return std::nullopt;
}

}  // namespace fa2b

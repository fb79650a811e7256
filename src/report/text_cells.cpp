// SPDX-License-Identifier: Apache-2.0
// Cells of the text formats, shared by the results writers and compare's renderings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/report.h"

namespace fa2b {

namespace {

// Columns on a terminal: UTF-8 continuation bytes take no column.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
}

}  // namespace

std::string aligned_columns(const std::vector<std::vector<std::string>>& rows,
                            const std::vector<bool>& right) {
  std::vector<std::size_t> w;
  for (const auto& row : rows) {
    if (w.size() < row.size()) w.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(w[i] - width(row[i]), ' ');
      if (i > 0) line += "  ";
      line += (i < right.size() && right[i]) ? pad + row[i] : row[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

}  // namespace fa2b

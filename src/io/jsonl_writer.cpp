// SPDX-License-Identifier: Apache-2.0
// Streaming results: one compact JSON line per finished case, flushed at once.
#include "io/jsonl_writer.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/json_detail.h"

namespace fa2b {

JsonlWriter::JsonlWriter(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "a")) {
  if (!f_) throw std::runtime_error(path + ": cannot open for appending: " + std::strerror(errno));
}

JsonlWriter::~JsonlWriter() {
  if (f_) std::fclose(f_);
}

void JsonlWriter::append(const CaseResult& r) {
  const std::string line = json_detail::ordered_json_of(r).dump(
                               -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                           "\n";
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0)
    throw std::runtime_error(path_ + ": cannot append: " + std::strerror(errno));
}

}  // namespace fa2b

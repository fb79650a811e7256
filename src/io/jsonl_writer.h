// SPDX-License-Identifier: Apache-2.0
// Streaming results: one compact JSON line per finished case (results.jsonl).
#pragma once

#include <cstdio>
#include <string>

#include "core/result.h"

namespace fa2b {

// Appends one case as one line and flushes, so an interrupted sweep keeps what it finished.
class JsonlWriter {
 public:
  explicit JsonlWriter(const std::string& path);
  ~JsonlWriter();
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;
  void append(const CaseResult& r);

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace fa2b

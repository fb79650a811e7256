// SPDX-License-Identifier: Apache-2.0
// Streaming results: one compact JSON line per finished case (results.jsonl).
#pragma once

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
  // Throws std::runtime_error naming the file and the OS error (ENOSPC: "No space left on
  // device") when the line cannot be written whole; the part that was written is cut off
  // again, so the file never ends in a half line that --resume would take for a killed sweep.
  void append(const CaseResult& r);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace fa2b

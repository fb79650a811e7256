// SPDX-License-Identifier: Apache-2.0
// Reading an input file (a config, a results file, results.jsonl, sweep.json) whole, safely:
// only a regular file is read (a FIFO would block forever, /dev/zero never ends, a directory
// is no document), never more than a cap (a sparse 100 GB file must not exhaust memory before
// the parser says anything), and, where asked, a NUL byte is refused (the JSON reader would
// stop there and ignore what follows, so the file's content would not be what is judged).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fa2b {

// The most bytes fa2bench reads of one config (a generated config with long lists is a few
// MB; the test suite's 100 MB number must still reach the parser's own message).
inline constexpr std::size_t kMaxConfigBytes = std::size_t{256} << 20;
// The most bytes of one results document or results.jsonl (kept raw samples of a large sweep
// are tens of MB).
inline constexpr std::size_t kMaxResultsBytes = std::size_t{1} << 30;

struct InputFileOptions {
  std::size_t max_bytes = kMaxResultsBytes;
  bool refuse_nul = true;  // results.jsonl keeps NULs a crash left to its line-by-line reader
};

// An input file that cannot be read; what() is "PATH: why" (not a regular file, too large, a
// NUL byte at offset N, an OS error).
class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole content of `path`. Opens without blocking (a FIFO with no writer opens at once and
// is then refused as not regular), checks the type on the open descriptor (no race with a
// rename between a stat and the open), and reads at most options.max_bytes + 1 bytes, so a
// file that grows while being read is refused too.
std::string read_input_file(const std::string& path, const InputFileOptions& options = {});

}  // namespace fa2b

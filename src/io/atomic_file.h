// SPDX-License-Identifier: Apache-2.0
// The one way fa2bench writes an output (results.json, CSV, Markdown, JUnit, export formats,
// compare's renderings, manifests), to a file or to stdout: every write, flush and close is
// checked, and a file is written whole or not at all where that is possible.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fa2b {

// An output that could not be written; what() names the file (or "stdout") and the OS error.
// Commands report it as a runtime failure (exit 3).
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path`:
// - a new path or an existing regular file: written to "<path>.tmp", then renamed over it, so a
//   crash or a full disk never leaves half a file (the temporary is removed on failure);
// - a symbolic link: the link stays; its final target is replaced the same way when it is a
//   regular file (or absent), else written through;
// - a FIFO, a character device (/dev/stdout, /dev/null, a terminal): opened and written through,
//   never replaced by a regular file.
// Throws OutputError.
void write_output_file(const std::string& path, std::string_view text);

// The same, as every writer has called it.
inline void write_text_file_atomic(const std::string& path, const std::string& text) {
  write_output_file(path, text);
}

// Writes `text` to stdout and flushes it; throws OutputError ("stdout: ...") when the write or
// the flush fails (a closed pipe, a full disk, /dev/full).
void write_stdout(std::string_view text);

// For the end of main: flushes stdout (the tables commands print with fmt::print) and returns
// the OS error text when it or an earlier write to it failed; empty when all went out.
std::string stdout_failure();

}  // namespace fa2b

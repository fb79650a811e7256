// SPDX-License-Identifier: Apache-2.0
// Files written whole or not at all: what every final output (results, manifests, dumps) uses.
#pragma once

#include <string>

namespace fa2b {

// Writes `text` to "<path>.tmp", then renames it to `path`; throws std::runtime_error naming
// the file and the OS error (the temporary is removed when anything fails).
void write_text_file_atomic(const std::string& path, const std::string& text);

}  // namespace fa2b

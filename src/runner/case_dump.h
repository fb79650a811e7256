// SPDX-License-Identifier: Apache-2.0
// `sweep --dump`: writes a case's Q, K, V, O and the float64 reference rows as .npy files
// plus manifest.json, after verification (tensors are copied back from the device).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/case.h"
#include "runner/platform.h"
#include "verify/reference.h"

namespace fa2b {

struct DumpTensors {
  const void *q, *k, *v, *o;  // platform memory
  TensorDesc qd, kd, vd, od;
  // A paged case's int32 page table (k and v are then its page pools); null otherwise.
  const void* page_table = nullptr;
};

// Directory name for a case below the dump directory: sweep and id, '/' replaced.
std::string dump_dir_name(const Case& c);

// Writes DIR/<dump_dir_name>/{q,k,v,o,ref_o,ref_lse,rows}.npy and manifest.json; a paged case's
// k and v are its pools [num_pages, page_size, H_kv, D], beside page_table.npy [B, pages]. Returns
// a warning (and writes nothing) when Q, K, V and O together exceed max_bytes; empty otherwise.
// Throws std::runtime_error when a file cannot be written.
std::string dump_case(const std::string& dir, std::int64_t max_bytes, const Case& c,
                      const DumpTensors& t, const std::vector<RowRef>& rows,
                      const std::vector<double>& ref, const std::vector<double>& ref_lse,
                      Platform& platform);

}  // namespace fa2b

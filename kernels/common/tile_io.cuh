// SPDX-License-Identifier: Apache-2.0
// Shared-memory tile I/O of the mma.sync kernels (fa2's forward and backward): the swizzled
// cp.async tile loaders (dense, GQA-packed and paged rows) and the per-lane ldmatrix bases that
// read those tiles back. Family-neutral: a kernel's Traits give kHeadDim, kThreads and kPitch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/cp_async.cuh"
#include "common/mma.cuh"

namespace fa2b {

// Copies rows [row0, row0 + kRows) of a [rows, D] global tile into swizzled shared memory with
// 16-byte cp.async; rows at or past `row_end` are zero-filled. Eight threads cover one 128-byte
// row segment (coalesced), and each pass advances kThreads / 8 rows, a multiple of 8, so a
// thread's swizzle key never changes: all shared and global addresses are one per-thread base
// plus compile-time offsets, which keeps the loader from pinning a register per chunk.
// kPadCols (a head dim padded into a wider tile, fa2_padded_head_dim): 16-byte chunks at or past
// `live_chunks` are zero-filled too, so the padding adds nothing to Q*K^T and P*V.
// kAllRowsIn (the caller knows row0 + kRows <= row_end): no row test and no fallback address,
// so each copy's global address is the thread's base plus a compile-time offset, which the
// copy instruction carries as an immediate (otherwise an address is selected per copy). The
// backward loads a query tile per block of every key block's walk, where those selects were
// about a tenth of its instructions.
template <typename Traits, int kRows, typename T, bool kPadCols = false, bool kAllRowsIn = false>
__device__ __forceinline__ void load_tile(T* smem, const T* gmem, std::int64_t ld, int row0,
                                          int row_end, int tid, int live_chunks = 0) {
  (void)live_chunks;  // read only when kPadCols
  constexpr int kChunks = Traits::kHeadDim / 8;
  constexpr int kGroups = (kChunks + 7) / 8;  // 8-chunk (128-byte) groups per row
  constexpr int kRowsPerPass = Traits::kThreads / 8;
  constexpr int kPasses = kRows / kRowsPerPass;
  constexpr int kPitch = Traits::kPitch;
  static_assert(kRows % kRowsPerPass == 0 && kRowsPerPass % 8 == 0, "loader tiling");
  static_assert(!(kPadCols && kAllRowsIn), "padded columns need the per-copy test");
  const int r = tid >> 3;
  const int c = tid & 7;
  const std::uint32_t s_base =
      smem_u32(smem) + static_cast<std::uint32_t>((r * kPitch + ((c ^ (r & 7)) * 8)) * 2);
  const T* g = gmem + static_cast<std::int64_t>(row0 + r) * ld + c * 8;
  if constexpr (kAllRowsIn) {
    (void)row_end;
    const std::int64_t pass_ld = kRowsPerPass * ld;
#pragma unroll
    for (int ps = 0; ps < kPasses; ++ps) {
#pragma unroll
      for (int grp = 0; grp < kGroups; ++grp) {
        if (kChunks % 8 != 0 && grp == kGroups - 1 && c >= kChunks % 8) continue;
        const std::uint32_t dst =
            s_base + static_cast<std::uint32_t>((ps * kRowsPerPass * kPitch + grp * 64) * 2);
        cp_async_16(dst, g + ps * pass_ld + grp * 64, true);
      }
    }
  } else {
    const int rows_left = row_end - row0 - r;
#pragma unroll
    for (int ps = 0; ps < kPasses; ++ps) {
      const bool row_ok = ps * kRowsPerPass < rows_left;
#pragma unroll
      for (int grp = 0; grp < kGroups; ++grp) {
        if (kChunks % 8 != 0 && grp == kGroups - 1 && c >= kChunks % 8) continue;
        const std::uint32_t dst =
            s_base + static_cast<std::uint32_t>((ps * kRowsPerPass * kPitch + grp * 64) * 2);
        bool ok = row_ok;
        if constexpr (kPadCols) ok = ok && grp * 8 + c < live_chunks;
        // A zero-filled copy reads nothing, but still gets an in-bounds address.
        cp_async_16(dst, ok ? g + grp * 64 : gmem, ok);
      }
      g += kRowsPerPass * ld;
    }
  }
}

// load_tile's copy of a query tile whose rows are not evenly strided: GQA packing's tile
// (fa2_fwd_kernel.cuh), row r being row r % t_q of head r / t_q (`head_ld`, `row_ld` apart);
// rows at or past `rows` are zero-filled. Each row's address is computed once, so this costs
// integer divisions, which only the once-per-CTA query load can afford.
template <typename Traits, int kRows, typename T>
__device__ __forceinline__ void load_packed_rows(T* smem, const T* gmem, std::int64_t head_ld,
                                                 std::int64_t row_ld, int t_q, int rows, int tid) {
  constexpr int kChunks = Traits::kHeadDim / 8;
  constexpr int kGroups = (kChunks + 7) / 8;
  constexpr int kRowsPerPass = Traits::kThreads / 8;
  constexpr int kPasses = kRows / kRowsPerPass;
  constexpr int kPitch = Traits::kPitch;
  static_assert(kRows % kRowsPerPass == 0 && kRowsPerPass % 8 == 0, "loader tiling");
  const int r = tid >> 3;
  const int c = tid & 7;
  const std::uint32_t s_base =
      smem_u32(smem) + static_cast<std::uint32_t>((r * kPitch + ((c ^ (r & 7)) * 8)) * 2);
#pragma unroll
  for (int ps = 0; ps < kPasses; ++ps) {
    const int row = r + ps * kRowsPerPass;
    const bool row_ok = row < rows;
    const T* g = row_ok ? gmem + (row / t_q) * head_ld + (row % t_q) * row_ld + c * 8 : gmem;
#pragma unroll
    for (int grp = 0; grp < kGroups; ++grp) {
      if (kChunks % 8 != 0 && grp == kGroups - 1 && c >= kChunks % 8) continue;
      const std::uint32_t dst =
          s_base + static_cast<std::uint32_t>((ps * kRowsPerPass * kPitch + grp * 64) * 2);
      cp_async_16(dst, row_ok ? g + grp * 64 : gmem, row_ok);
    }
  }
}

// The rows of a key tile that one thread copies from a paged KV cache (AttnParams::block_table):
// rows r + ps * kThreads / 8 of the tile, one per pass ps.
template <typename Traits, int kRows>
struct PagedTileRows {
  static constexpr int kRowsPerPass = Traits::kThreads / 8;
  static constexpr int kPasses = kRows / kRowsPerPass;
  static_assert(kRows % kRowsPerPass == 0 && kRowsPerPass % 8 == 0, "loader tiling");
};

// The page of each row this thread copies in the key tile of rows [row0, row0 + kRows): key j
// lies on page table[j >> page_shift] (page_size a power of two, fa2_fwd_supported). Rows at or
// past `row_end` read no table entry (the table ends at row_end's page); their page is 0. Plain
// loads, so a caller can fetch a tile's pages one tile ahead of its copies and keep the table's
// latency off the copy path.
template <typename Traits, int kRows>
__device__ __forceinline__ void fetch_tile_pages(int (&page)[PagedTileRows<Traits, kRows>::kPasses],
                                                 const int* table, int page_shift, int row0,
                                                 int row_end, int tid) {
  using Rows = PagedTileRows<Traits, kRows>;
#pragma unroll
  for (int ps = 0; ps < Rows::kPasses; ++ps) {
    const int key = row0 + (tid >> 3) + ps * Rows::kRowsPerPass;
    page[ps] = key < row_end ? __ldg(table + (key >> page_shift)) : 0;
  }
}

// load_tile's copy of a key tile from a paged KV cache, given the pages of its rows
// (fetch_tile_pages): key row j is row j % page_size of its page, pages `page_ld` and rows
// `row_ld` elements apart (`gmem`: the head's row 0 of page 0). Rows [row0, row0 + kRows) of
// the sequence's keys, the same swizzled layout as load_tile; rows at or past `row_end` are
// zero-filled.
template <typename Traits, int kRows, typename T>
__device__ __forceinline__ void load_paged_rows(
    T* smem, const T* gmem, const int (&page)[PagedTileRows<Traits, kRows>::kPasses], int page_size,
    std::int64_t page_ld, std::int64_t row_ld, int row0, int row_end, int tid) {
  using Rows = PagedTileRows<Traits, kRows>;
  constexpr int kChunks = Traits::kHeadDim / 8;
  constexpr int kGroups = (kChunks + 7) / 8;
  constexpr int kPitch = Traits::kPitch;
  const int r = tid >> 3;
  const int c = tid & 7;
  const std::uint32_t s_base =
      smem_u32(smem) + static_cast<std::uint32_t>((r * kPitch + ((c ^ (r & 7)) * 8)) * 2);
#pragma unroll
  for (int ps = 0; ps < Rows::kPasses; ++ps) {
    const int key = row0 + r + ps * Rows::kRowsPerPass;
    const bool row_ok = key < row_end;
    const T* g = row_ok ? gmem + page[ps] * page_ld +
                              static_cast<std::int64_t>(key & (page_size - 1)) * row_ld + c * 8
                        : gmem;
#pragma unroll
    for (int grp = 0; grp < kGroups; ++grp) {
      if (kChunks % 8 != 0 && grp == kGroups - 1 && c >= kChunks % 8) continue;
      const std::uint32_t dst =
          s_base + static_cast<std::uint32_t>((ps * Rows::kRowsPerPass * kPitch + grp * 64) * 2);
      cp_async_16(dst, row_ok ? g + grp * 64 : gmem, row_ok);
    }
  }
}

// Per-lane ldmatrix base addresses, one per value of (logical chunk % 8) / 2. The swizzle XOR
// of a compile-time chunk with the lane's key is not an addition, so it is resolved here once;
// inside the loops every address is then base[i] + a compile-time offset, which the compiler
// folds into the instruction's immediate instead of keeping dozens of hoisted addresses live.
// `lane_row` is the lane's row inside an 8-row-aligned group, `half` its extra chunk (0 or 1).
template <int kPitch>
struct LdsmBases {
  std::uint32_t base[4];
  __device__ __forceinline__ LdsmBases(std::uint32_t smem, int lane_row, int half) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int chunk = (2 * i + half) ^ (lane_row & 7);
      base[i] = smem + static_cast<std::uint32_t>((lane_row * kPitch + chunk * 8) * 2);
    }
  }
  // Address of tile row `row_const` (a multiple of 8) and logical chunk `chunk_even` (even).
  __device__ __forceinline__ std::uint32_t at(int row_const, int chunk_even) const {
    return base[(chunk_even & 7) >> 1] +
           static_cast<std::uint32_t>((row_const * kPitch + (chunk_even & ~7) * 8) * 2);
  }
};

}  // namespace fa2b

// SPDX-License-Identifier: Apache-2.0
#include "runtime/memory_tracker.h"

#include <fmt/format.h>

#include <cstdlib>
#include <new>

namespace fa2b {

OutOfMemory::OutOfMemory(std::int64_t requested, std::string what_for, bool over_budget)
    : std::runtime_error(fmt::format("out of memory allocating {} bytes for {}{}", requested,
                                     what_for, over_budget ? " (over --memory-budget)" : "")),
      requested_(requested),
      over_budget_(over_budget) {}

void* MemoryTracker::allocate(std::size_t bytes, const std::string& what_for) {
  const auto want = static_cast<std::int64_t>(bytes);
  if (budget_ > 0 && current_ + want > budget_) throw OutOfMemory(want, what_for, true);
  void* p = bytes == 0 ? nullptr : raw_allocate(bytes);
  if (p == nullptr && bytes != 0) throw OutOfMemory(want, what_for, false);
  current_ += want;
  if (current_ > peak_) peak_ = current_;
  return p;
}

void MemoryTracker::release(void* ptr, std::size_t bytes) noexcept {
  if (ptr == nullptr) return;
  raw_release(ptr);
  current_ -= static_cast<std::int64_t>(bytes);
}

void* HostMemoryTracker::raw_allocate(std::size_t bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  return std::aligned_alloc(64, rounded);
}

void HostMemoryTracker::raw_release(void* ptr) noexcept {
  std::free(ptr);
}

}  // namespace fa2b

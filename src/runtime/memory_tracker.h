// SPDX-License-Identifier: Apache-2.0
// Every allocation a case makes goes through a MemoryTracker: current and peak bytes, and an
// optional budget that turns an allocation beyond it into a recorded out-of-memory, to emulate
// a smaller card. The same interface serves device memory (cudaMalloc) and host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace fa2b {

// Thrown when an allocation fails for lack of memory (real or over budget).
class OutOfMemory : public std::runtime_error {
 public:
  OutOfMemory(std::int64_t requested, std::string what_for, bool over_budget);
  std::int64_t requested() const { return requested_; }
  bool over_budget() const { return over_budget_; }

 private:
  std::int64_t requested_;
  bool over_budget_;
};

class MemoryTracker {
 public:
  virtual ~MemoryTracker() = default;
  MemoryTracker() = default;
  MemoryTracker(const MemoryTracker&) = delete;
  MemoryTracker& operator=(const MemoryTracker&) = delete;

  // Throws OutOfMemory on failure; other failures throw std::runtime_error.
  void* allocate(std::size_t bytes, const std::string& what_for);
  void release(void* ptr, std::size_t bytes) noexcept;

  std::int64_t current_bytes() const { return current_; }
  std::int64_t peak_bytes() const { return peak_; }
  void reset_peak() { peak_ = current_; }
  // 0 means no budget beyond what the memory itself allows.
  void set_budget(std::int64_t bytes) { budget_ = bytes; }
  std::int64_t budget() const { return budget_; }
  virtual bool is_device() const = 0;

 protected:
  // Returns nullptr when the memory is exhausted; throws for other errors.
  virtual void* raw_allocate(std::size_t bytes) = 0;
  virtual void raw_release(void* ptr) noexcept = 0;

 private:
  std::int64_t current_ = 0, peak_ = 0, budget_ = 0;
};

// Host memory (64-byte aligned), for the CPU target.
class HostMemoryTracker final : public MemoryTracker {
 public:
  bool is_device() const override { return false; }

 protected:
  void* raw_allocate(std::size_t bytes) override;
  void raw_release(void* ptr) noexcept override;
};

// An owning allocation from a tracker; non-copyable, movable.
class TrackedBuffer {
 public:
  TrackedBuffer() = default;
  TrackedBuffer(MemoryTracker& tracker, std::size_t bytes, const std::string& what_for)
      : tracker_(&tracker), ptr_(tracker.allocate(bytes, what_for)), bytes_(bytes) {}
  ~TrackedBuffer() { reset(); }
  TrackedBuffer(const TrackedBuffer&) = delete;
  TrackedBuffer& operator=(const TrackedBuffer&) = delete;
  TrackedBuffer(TrackedBuffer&& o) noexcept { *this = std::move(o); }
  TrackedBuffer& operator=(TrackedBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      tracker_ = std::exchange(o.tracker_, nullptr);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  void reset() noexcept {
    if (ptr_ != nullptr) tracker_->release(ptr_, bytes_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  MemoryTracker* tracker_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace fa2b

// Exceptions out of OpenMP regions. An exception that leaves a parallel region ends the process
// (std::terminate: SIGABRT), so a region whose body may throw (an allocation that fails, a
// check) runs the body through ParallelErrors::Run, which keeps the first exception, and calls
// Rethrow() after the region, on the calling thread.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace ringboost {

class ParallelErrors {
 public:
  // Runs f(); an exception it throws is kept (the first one) instead of leaving the region.
  template <typename F>
  void Run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  // Whether a body failed (bodies may skip their work then).
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Throws the kept exception, if any. Call after the region.
  void Rethrow() {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;  // guarded by mutex_
  std::atomic<bool> failed_{false};
};

}  // namespace ringboost

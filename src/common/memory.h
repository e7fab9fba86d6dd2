// How much memory this process may use, and the check made before each large allocation whose
// size comes from the data, the config or a model file: a request that cannot fit is a user's
// error naming what needs the memory, how much and why (`the histograms need 41.0 GiB (...)`),
// raised before anything is allocated, never a std::bad_alloc from deep inside (or an abort,
// inside an OpenMP region).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace ringboost {

struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;  // "RLIMIT_AS", "RLIMIT_DATA", "cgroup memory.max", "physical memory"
};

// The smallest of: the address-space and data-segment limits (setrlimit, `ulimit -v`,
// `prlimit --as`), the cgroup's memory.max (containers) and the machine's physical memory.
// Read once; RINGBOOST_MEMORY_LIMIT_MB, when set, lowers it further (for tests).
const MemoryLimit& ProcessMemoryLimit();

// a * b, saturating at UINT64_MAX (sizes from hostile inputs must not wrap).
uint64_t MulSat(uint64_t a, uint64_t b);
uint64_t AddSat(uint64_t a, uint64_t b);
// "512 bytes", "3.2 MiB", "41.0 GiB".
std::string FormatBytes(uint64_t bytes);

// Asks the kernel to back the whole pages inside [data, data + bytes) with transparent huge pages
// (Linux madvise MADV_HUGEPAGE; the kernel's default THP mode, "madvise", gives them only to such
// ranges). A hint, given before the memory is first touched: a large fresh buffer then takes a few
// hundred page faults instead of tens of thousands, and an array read at scattered rows one TLB
// entry per 2 MiB instead of a miss and a page walk per row. Buffers under 4 MiB are left alone;
// nothing happens where huge pages are not offered, and the contents never change.
void AdviseHugePages(void* data, std::size_t bytes);

// Throws ringboost::Error when `bytes` exceed ProcessMemoryLimit():
//   "<what> needs <N> (<how>), more than the <M> this process may use (<source>); <fix>"
// `how` says how the size comes about ("2000000 rows x 3 groups x 4 bytes"), `fix` what the
// user can change.
// Hands the free memory that malloc keeps in its arenas back to the system (glibc's malloc_trim;
// nothing elsewhere). Memory freed by the threads of a parallel region stays in their arenas, part
// of the resident set, until then: call it after a phase whose workspace is gone and before the
// next large allocation.
void ReturnFreedMemory();

// Drops the whole pages inside [begin, end) of memory this process owns (a heap buffer) from its
// resident set: the caller promises never to read those bytes again and frees the buffer later.
// For a large buffer consumed front to back while its replacement fills (DenseRows::Take), so
// the two do not both stay resident.
void ReleasePages(const void* begin, const void* end);

// An allocator whose value-initialization is default-initialization: resize() leaves new floats
// and integers unwritten, so the pages of a fresh large buffer become resident only as they are
// filled. For buffers filled right after they are sized.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}  // NOLINT: rebinding
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// v->resize(n) for a vector of UninitializedAllocator about to be filled, its pages advised for
// huge pages first (AdviseHugePages): nothing is written, the pages are touched by the filling.
template <typename V>
void ResizeOnHugePages(V* v, std::size_t n) {
  v->reserve(n);
  AdviseHugePages(v->data(), n * sizeof(*v->data()));
  v->resize(n);
}

void CheckAllocation(uint64_t bytes, const std::string& what, const std::string& how,
                     const std::string& fix);

}  // namespace ringboost

// The device (CUDA) side of the tree module, as seen from plain C++: device detection, device
// memory checks and an owning buffer of device memory. Includable by g++ in every build; the
// definitions are in common.cu with CUDA and stub.cc without it (there every call
// that needs a device throws "built without CUDA", and DeviceCount() is 0).
//
// Why not unified memory: the histogram and partition kernels stream the binned matrix every
// level; explicit buffers keep every transfer visible and the memory need computable up front
// (DeviceMatrixBytes), so data that does not fit fails before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/host_device.h"

namespace ringboost {

// Number of usable CUDA devices: 0 when built without CUDA, without a driver or without a device,
// never an exception. `reason` (optional) gets why it is 0.
int DeviceCount(std::string* reason = nullptr);

// Selects device `ordinal` for the calling thread (cudaSetDevice). Throws with the error.
void SetDevice(int ordinal);

struct DeviceMemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};
// Free and total memory of the current device (cudaMemGetInfo).
DeviceMemoryInfo QueryDeviceMemory();

// Throws ringboost::Error naming both numbers when `need_bytes` exceeds `free_bytes`:
// "<what> needs N bytes (X MiB) of device memory; the device has M bytes (Y MiB) free ...".
// Pure host code (the caller passes QueryDeviceMemory().free_bytes), so it is tested anywhere.
void CheckDeviceMemoryFits(std::size_t need_bytes, std::size_t free_bytes, const std::string& what);

namespace detail {
// Raw device memory calls behind DeviceBuffer; each failure throws ringboost::Error naming the
// call, the size, and the CUDA error. CopyToDevice may return before the copy is done (queued on
// the default stream, before the kernels launched after it; `src` is free for reuse at return);
// CopyToHost returns with the data, after all work queued before it.
void* DeviceMalloc(std::size_t bytes);
void DeviceFree(void* ptr) noexcept;
void CopyToDevice(void* dst, const void* src, std::size_t bytes);
void CopyToHost(void* dst, const void* src, std::size_t bytes);
void DeviceMemsetZero(void* ptr, std::size_t bytes);
}  // namespace detail

// Waits for all work queued on the current device; throws on an asynchronous kernel error.
void DeviceSynchronize();

// Seconds between two points of the default stream, by CUDA events (device time, not the host's
// clock). Move-less; one per measured thing.
class DeviceEventTimer {
 public:
  DeviceEventTimer();
  ~DeviceEventTimer();
  DeviceEventTimer(const DeviceEventTimer&) = delete;
  DeviceEventTimer& operator=(const DeviceEventTimer&) = delete;
  void Start();   // records the start event
  double Stop();  // records the stop event, waits for it, returns the seconds since Start

 private:
  void* start_ = nullptr;  // cudaEvent_t
  void* stop_ = nullptr;
};

// An owning array of `size()` T in device memory (T trivially copyable). Move-only; freed by the
// destructor. Resizing within the capacity keeps the allocation (buffers that the kernels of every
// level refill cost no cudaMalloc/cudaFree, which would synchronize the device). Contents are
// unspecified after a Resize.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { Resize(n); }
  explicit DeviceBuffer(const std::vector<T>& h_src) { CopyFrom(h_src); }
  ~DeviceBuffer() { detail::DeviceFree(d_ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : d_ptr_(std::exchange(o.d_ptr_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(d_ptr_, o.d_ptr_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }

  void Resize(std::size_t n) {
    if (n > capacity_) {
      detail::DeviceFree(d_ptr_);
      d_ptr_ = nullptr;
      size_ = capacity_ = 0;
      d_ptr_ = static_cast<T*>(detail::DeviceMalloc(n * sizeof(T)));
      capacity_ = n;
    }
    size_ = n;
  }
  void CopyFrom(const std::vector<T>& h_src) { CopyFrom(h_src.data(), h_src.size()); }
  void CopyFrom(const T* h_src, std::size_t n) {
    Resize(n);
    if (n > 0) detail::CopyToDevice(d_ptr_, h_src, n * sizeof(T));
  }
  std::vector<T> ToHost() const {
    std::vector<T> h_out(size_);
    if (size_ > 0) detail::CopyToHost(h_out.data(), d_ptr_, size_ * sizeof(T));
    return h_out;
  }
  void Zero() {
    if (size_ > 0) detail::DeviceMemsetZero(d_ptr_, size_ * sizeof(T));
  }
  T* data() { return d_ptr_; }
  const T* data() const { return d_ptr_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }

 private:
  T* d_ptr_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace ringboost

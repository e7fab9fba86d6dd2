// Device detection, memory checks and raw device memory calls (common.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "tree/gpu_hist/common.cuh"

namespace ringboost {

namespace detail {
void CudaFailed(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream oss;
  oss << file << ":" << line << ": " << call << " failed: " << cudaGetErrorName(code) << ": "
      << cudaGetErrorString(code);
  throw Error(oss.str());
}

void* DeviceMalloc(std::size_t bytes) {
  void* ptr = nullptr;
  const cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();  // an allocation failure is not sticky: clear it for later calls
    std::ostringstream what;
    what << "cudaMalloc(" << bytes << " bytes)";
    CudaFailed(err, what.str().c_str(), __FILE__, __LINE__);
  }
  return ptr;
}

void DeviceFree(void* ptr) noexcept {
  if (ptr != nullptr) cudaFree(ptr);  // errors here are reported by the next checked call
}

namespace {
// Pinned host memory that the calling thread's small copies go through (see CopyToDevice). Each
// copy takes the next 16-byte aligned piece; the pieces are free again once the device has done
// every copy queued before (Drained: after a copy back to the host, which waits for them, or a
// device synchronize). Its copies are queued on one device at a time: a copy for another device
// first waits for the pending ones.
class StagingBuffer {
 public:
  static constexpr std::size_t kBytes = std::size_t{8} << 20;
  static constexpr std::size_t kMaxCopy = std::size_t{1} << 20;  // larger copies: cudaMemcpy

  ~StagingBuffer() {
    if (base_ != nullptr) cudaFreeHost(base_);  // at exit the runtime may be gone: no check
  }
  // A piece of `bytes` for a copy on the current device, or null (too large, or no pinned
  // memory to be had: the caller copies from pageable memory).
  uint8_t* Take(std::size_t bytes) {
    if (bytes > kMaxCopy || failed_) return nullptr;
    int device = 0;
    RB_CUDA_CHECK(cudaGetDevice(&device));
    if (base_ == nullptr) {
      void* p = nullptr;
      if (cudaHostAlloc(&p, kBytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();  // not sticky; copies go the plain way
        failed_ = true;
        return nullptr;
      }
      base_ = static_cast<uint8_t*>(p);
      device_ = device;
    }
    std::size_t at = (used_ + 15) / 16 * 16;
    if (at + bytes > kBytes || (device != device_ && used_ > 0)) {
      Drain();
      at = 0;
    }
    device_ = device;
    used_ = at + bytes;
    return base_ + at;
  }
  // The current device has finished all work queued before: its pieces are free.
  void Drained() {
    if (used_ == 0) return;
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess && device == device_) used_ = 0;
  }

 private:
  // Waits for the device of the pending copies.
  void Drain() {
    int current = 0;
    RB_CUDA_CHECK(cudaGetDevice(&current));
    if (current != device_) RB_CUDA_CHECK(cudaSetDevice(device_));
    RB_CUDA_CHECK(cudaDeviceSynchronize());
    if (current != device_) RB_CUDA_CHECK(cudaSetDevice(current));
    used_ = 0;
  }

  uint8_t* base_ = nullptr;
  std::size_t used_ = 0;
  int device_ = 0;
  bool failed_ = false;
};

StagingBuffer& Staging() {
  thread_local StagingBuffer staging;
  return staging;
}
}  // namespace

// A copy from pageable memory to the device waits for all work queued on the stream before it
// starts (CUDA's API synchronization rules), so each upload of a level's small task lists left
// the device idle while the host copied and launched again. Small copies are staged in pinned
// memory and queued with cudaMemcpyAsync on the default stream instead: ordered before the
// kernels launched after them, with `src` free for reuse at return, without a wait.
void CopyToDevice(void* dst, const void* src, std::size_t bytes) {
  uint8_t* stage = Staging().Take(bytes);
  if (stage == nullptr) {
    RB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return;
  }
  std::memcpy(stage, src, bytes);
  RB_CUDA_CHECK(cudaMemcpyAsync(dst, stage, bytes, cudaMemcpyHostToDevice, 0));
}

// Waits for the stream's work before it, as a copy to pageable memory does; small copies land in
// pinned memory first.
void CopyToHost(void* dst, const void* src, std::size_t bytes) {
  uint8_t* stage = Staging().Take(bytes);
  if (stage == nullptr) {
    RB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  } else {
    RB_CUDA_CHECK(cudaMemcpyAsync(stage, src, bytes, cudaMemcpyDeviceToHost, 0));
    RB_CUDA_CHECK(cudaStreamSynchronize(0));
    std::memcpy(dst, stage, bytes);
  }
  Staging().Drained();
}

void DeviceMemsetZero(void* ptr, std::size_t bytes) { RB_CUDA_CHECK(cudaMemset(ptr, 0, bytes)); }
}  // namespace detail

int DeviceCount(std::string* reason) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (reason != nullptr) {
      *reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " +
                cudaGetErrorString(err);
    }
    return 0;
  }
  if (count == 0 && reason != nullptr) *reason = "cudaGetDeviceCount found 0 devices";
  return count;
}

void SetDevice(int ordinal) { RB_CUDA_CHECK(cudaSetDevice(ordinal)); }

DeviceMemoryInfo QueryDeviceMemory() {
  DeviceMemoryInfo info;
  RB_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

void DeviceSynchronize() {
  RB_CUDA_CHECK(cudaDeviceSynchronize());
  detail::Staging().Drained();
}

unsigned int ResidentGrid(uint64_t n, int threads) {
  int device = 0, sms = 0, per_sm = 0;
  RB_CUDA_CHECK(cudaGetDevice(&device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  RB_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  const unsigned int resident = static_cast<unsigned int>(sms * std::max(1, per_sm / threads));
  return std::min(GridFor(n, threads), std::max(resident, 1u));
}

DeviceEventTimer::DeviceEventTimer() {
  cudaEvent_t start, stop;
  RB_CUDA_CHECK(cudaEventCreate(&start));
  RB_CUDA_CHECK(cudaEventCreate(&stop));
  start_ = start;
  stop_ = stop;
}

DeviceEventTimer::~DeviceEventTimer() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

void DeviceEventTimer::Start() { RB_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_))); }

double DeviceEventTimer::Stop() {
  const cudaEvent_t stop = static_cast<cudaEvent_t>(stop_);
  RB_CUDA_CHECK(cudaEventRecord(stop));
  RB_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  RB_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), stop));
  return ms / 1e3;
}

}  // namespace ringboost

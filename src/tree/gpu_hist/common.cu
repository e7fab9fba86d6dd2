// Device detection, memory checks and raw device memory calls (common.h).
#include <cuda_runtime.h>

#include <algorithm>
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

void CopyToDevice(void* dst, const void* src, std::size_t bytes) {
  RB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void CopyToHost(void* dst, const void* src, std::size_t bytes) {
  RB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
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

void DeviceSynchronize() { RB_CUDA_CHECK(cudaDeviceSynchronize()); }

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

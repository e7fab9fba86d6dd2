// Device detection, the memory check and device buffers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "device_test_helpers.h"
#include "tree/gpu_hist/common.h"

namespace ringboost {
namespace {

TEST(DeviceCommon, DeviceCountNeverThrowsAndSaysWhyZero) {
  std::string reason;
  const int count = DeviceCount(&reason);
  EXPECT_GE(count, 0);
  if (count == 0) EXPECT_FALSE(reason.empty());
  EXPECT_EQ(DeviceCount(), count);  // no reason wanted: same answer
}

TEST(DeviceCommon, MemoryCheckNamesBothNumbers) {
  EXPECT_NO_THROW(CheckDeviceMemoryFits(100, 100, "the binned matrix"));
  try {
    CheckDeviceMemoryFits(3 * 1048576, 1048576, "the binned matrix");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("the binned matrix needs 3145728 bytes (3 MiB)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("has 1048576 bytes (1 MiB) free"), std::string::npos) << msg;
  }
}

#ifndef RINGBOOST_USE_CUDA
TEST(DeviceCommon, WithoutCudaDeviceMemorySaysSo) {
  std::string reason;
  EXPECT_EQ(DeviceCount(&reason), 0);
  EXPECT_NE(reason.find("built without CUDA"), std::string::npos);
  DeviceBuffer<int> empty;  // nothing allocated: fine
  EXPECT_TRUE(empty.empty());
  try {
    DeviceBuffer<int> buf(4);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("built without CUDA"), std::string::npos) << e.what();
  }
}
#endif

TEST(DeviceCommon, BufferRoundTripAndZero) {
  RB_REQUIRE_DEVICE();
  const std::vector<int64_t> h_values{1, -2, 3, int64_t{1} << 40};
  DeviceBuffer<int64_t> d_values(h_values);
  EXPECT_EQ(d_values.size(), 4u);
  EXPECT_EQ(d_values.ToHost(), h_values);
  DeviceBuffer<int64_t> moved = std::move(d_values);
  EXPECT_EQ(moved.ToHost(), h_values);
  moved.Zero();
  EXPECT_EQ(moved.ToHost(), std::vector<int64_t>(4, 0));
  const DeviceMemoryInfo info = QueryDeviceMemory();
  EXPECT_GT(info.total_bytes, 0u);
  EXPECT_LE(info.free_bytes, info.total_bytes);
}

TEST(DeviceCommon, FailedAllocationIsAnErrorNamingTheCall) {
  RB_REQUIRE_DEVICE();
  try {
    DeviceBuffer<char> huge(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc(1125899906842624 bytes)"), std::string::npos)
        << e.what();
  }
  DeviceBuffer<int> after(4);  // the device still works
  EXPECT_EQ(after.size(), 4u);
}

}  // namespace
}  // namespace ringboost

// Device detection, the memory check and device buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

// Small copies to the device are queued from pinned memory without waiting (common.cu): each
// must still land in order, from what the source held at the call (the caller overwrites it at
// once here), across more pieces than the staging memory holds (8 MiB: the copies below take
// 12.5 MiB before any copy back) and beside large copies, which go the plain way.
TEST(DeviceCommon, QueuedUploadsLandInOrderFromTheSourceAtTheCall) {
  RB_REQUIRE_DEVICE();
  constexpr std::size_t kChunk = 32 * 1024;  // uint32 values: 128 KiB a copy
  constexpr std::size_t kChunks = 100;
  DeviceBuffer<uint32_t> d_all(kChunk * kChunks);
  std::vector<uint32_t> expect(kChunk * kChunks), h_chunk(kChunk);
  for (std::size_t c = 0; c < kChunks; ++c) {
    for (std::size_t i = 0; i < kChunk; ++i) h_chunk[i] = static_cast<uint32_t>(c * 1000003 + i);
    std::copy(h_chunk.begin(), h_chunk.end(), expect.begin() + c * kChunk);
    detail::CopyToDevice(d_all.data() + c * kChunk, h_chunk.data(), kChunk * sizeof(uint32_t));
    std::fill(h_chunk.begin(), h_chunk.end(), 0xdeadbeefu);  // the source is free at return
  }
  EXPECT_EQ(d_all.ToHost(), expect);  // 12.5 MiB: a plain copy back

  // Later copies to the same place win, queued or plain, in either order; small copies back
  // read what was queued before them.
  DeviceBuffer<uint32_t> d_one(4);
  for (uint32_t round = 0; round < 3; ++round) {
    d_one.CopyFrom(std::vector<uint32_t>{1, 2, 3, round});
    d_one.CopyFrom(std::vector<uint32_t>{5, 6, 7, round});
    EXPECT_EQ(d_one.ToHost(), (std::vector<uint32_t>{5, 6, 7, round}));
  }
  std::vector<uint32_t> big(kChunk * kChunks, 7u);  // 12.5 MiB: the plain way
  detail::CopyToDevice(d_all.data(), h_chunk.data(), kChunk * sizeof(uint32_t));  // queued
  detail::CopyToDevice(d_all.data(), big.data(), big.size() * sizeof(uint32_t));  // plain
  EXPECT_EQ(d_all.ToHost(), big);
  detail::CopyToDevice(d_all.data(), big.data(), big.size() * sizeof(uint32_t));  // plain
  detail::CopyToDevice(d_all.data(), h_chunk.data(), kChunk * sizeof(uint32_t));  // queued
  uint32_t first = 0, last = 0;
  detail::CopyToHost(&first, d_all.data(), sizeof(first));
  detail::CopyToHost(&last, d_all.data() + big.size() - 1, sizeof(last));
  EXPECT_EQ(first, 0xdeadbeefu);
  EXPECT_EQ(last, 7u);
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

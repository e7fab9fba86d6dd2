#include <gtest/gtest.h>

#include <cmath>

#include "rabit/communicator.h"

namespace ringboost::rabit {
namespace {

TEST(Reduce, EveryOpAndType) {
  std::vector<int32_t> a{1, -5, 8}, b{4, 2, 1};
  Reduce(a.data(), b.data(), 3, DataType::kInt32, Op::kSum);
  EXPECT_EQ(a, (std::vector<int32_t>{5, -3, 9}));
  std::vector<uint64_t> c{0b1010, 7}, d{0b0101, 8};
  Reduce(c.data(), d.data(), 2, DataType::kUInt64, Op::kBitOr);
  EXPECT_EQ(c, (std::vector<uint64_t>{0b1111, 15}));
  std::vector<double> e{1.5, -2}, f{-1, 3};
  Reduce(e.data(), f.data(), 2, DataType::kDouble, Op::kMax);
  EXPECT_EQ(e, (std::vector<double>{1.5, 3}));
  std::vector<float> g{1.5f, -2}, h{-1, 3};
  Reduce(g.data(), h.data(), 2, DataType::kFloat, Op::kMin);
  EXPECT_EQ(g, (std::vector<float>{-1, -2}));
  std::vector<int64_t> i{1}, j{2};
  EXPECT_THROW(Reduce(e.data(), f.data(), 2, DataType::kDouble, Op::kBitOr), Error);
  Reduce(i.data(), j.data(), 1, DataType::kInt64, Op::kSum);
  EXPECT_EQ(i[0], 3);
}

TEST(LocalCommunicator, WorldOfOne) {
  auto comm = MakeLocalCommunicator();
  EXPECT_EQ(comm->Rank(), 0);
  EXPECT_EQ(comm->WorldSize(), 1);
  std::vector<double> v{1, 2};
  comm->Allreduce(Span<double>(v), Op::kSum);
  EXPECT_EQ(v, (std::vector<double>{1, 2}));
  EXPECT_FALSE(comm->BroadcastRaw(v.data(), 8, 1).ok());
  std::vector<char> all;
  ASSERT_TRUE(comm->AllgathervRaw("abc", 3, &all).ok());
  EXPECT_EQ(std::string(all.begin(), all.end()), "abc");
  std::string model;
  int version = -1;
  ASSERT_TRUE(comm->LoadCheckPoint(&model, &version).ok());
  EXPECT_EQ(version, 0);
  ASSERT_TRUE(comm->CheckPoint("state").ok());
  ASSERT_TRUE(comm->LoadCheckPoint(&model, &version).ok());
  EXPECT_EQ(version, 1);
  EXPECT_EQ(model, "state");
}

TEST(MakeCommunicator, AutoIsLocalOutsideMpirunAndUnknownNamesAreErrors) {
  if (StartedByMpirun()) GTEST_SKIP() << "running under mpirun";
  EXPECT_EQ(MakeCommunicator(CommunicatorConfig{})->Backend(), "local");
  CommunicatorConfig tcp;
  tcp.backend = "tcp";
  EXPECT_THROW(MakeCommunicator(tcp), Error);
}

}  // namespace
}  // namespace ringboost::rabit

namespace ringboost::rabit {
namespace {

TEST(WithStats, CountsCallsAndPayloadAndForwards) {
  auto comm = WithStats(MakeLocalCommunicator());
  std::vector<double> values(10, 1.5);
  comm->Allreduce(Span<double>(values), Op::kSum);
  std::vector<char> bytes(5, 'x');
  comm->Broadcast(Span<char>(bytes), 0);
  std::vector<int32_t> blocks(4, 3);
  comm->ReduceScatter(Span<int32_t>(blocks), {4}, Op::kSum);
  EXPECT_EQ(comm->Backend(), "local");
  EXPECT_EQ(blocks[3], 3);
  EXPECT_EQ(values[0], 1.5);
  const CollectiveStats stats = comm->Stats();
  EXPECT_EQ(stats.calls, 3);
  EXPECT_EQ(stats.bytes, 10 * 8 + 5 + 4 * 4);
  EXPECT_EQ(stats.sent, 0);  // a world of one writes nothing on a wire
  EXPECT_GE(stats.seconds, 0.0);
  EXPECT_EQ(MakeLocalCommunicator()->Stats().calls, 0);
}

}  // namespace
}  // namespace ringboost::rabit

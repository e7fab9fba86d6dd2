// Rank 1 of a world of two, by hand, for tests of what a real rank 0 does with a peer that knows
// the job token but lies: it joins through the tracker and links to rank 0 as a worker does (its
// data link, then its heartbeat link, each with `flags`), and hands back its sockets.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "rabit/auth.h"
#include "rabit/hello.h"
#include "rabit/protocol.h"
#include "rabit/socket.h"
#include "rabit/tracker_thread.h"

namespace ringboost::rabit::test {

struct FakeLinks {
  TcpSocket tracker, link, beat;
};

inline std::string LengthPrefixed(const std::string& s) {
  return auth::IntBytes(static_cast<int32_t>(s.size())) + s;
}

// ASSERTs inside: call it through ASSERT_NO_FATAL_FAILURE. `before_link`, when given, is called
// with rank 0's peer port (listening, its link-up waiting for this rank) before the links.
inline void LinkAsRankOne(int tracker_port, const std::string& token, int32_t flags, FakeLinks* out,
                          const std::function<void(int)>& before_link = {}) {
  const Deadline d = Deadline::After(10);
  TcpSocket& t = out->tracker;
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", tracker_port, d, &t).ok());
  ASSERT_TRUE(ProveToTracker(&t, token, d).ok());
  const std::string start =
      auth::IntBytes(-1) + auth::IntBytes(2) + LengthPrefixed("1") + LengthPrefixed("start");
  ASSERT_TRUE(t.SendAll(start.data(), start.size(), d).ok());
  proto::Assignment a;
  std::set<int> neighbours;
  const proto::TrackerLiveness beats{10, "its rank"};  // a proven worker hears beats first
  ASSERT_TRUE(proto::RecvAssignment(&t, d, &a, &neighbours, &beats).ok());
  ASSERT_EQ(a.rank, 1);
  int32_t hypercube = -1;  // ours tells a proven worker whether it links the hypercube too
  ASSERT_TRUE(proto::RecvInt(&t, &hypercube, d).ok());
  ASSERT_EQ(hypercube, 0);                     // the tracker's default: no hypercube
  ASSERT_TRUE(proto::SendInt(&t, 0, d).ok());  // no links held
  int32_t num_connect = 0, num_accept = 0, port = 0, rank = -1, peer_flags = 0;
  std::string host;
  ASSERT_TRUE(proto::RecvInt(&t, &num_connect, d).ok());
  ASSERT_TRUE(proto::RecvInt(&t, &num_accept, d).ok());
  ASSERT_EQ(num_connect, 1);
  ASSERT_TRUE(proto::RecvStr(&t, &host, d).ok());
  ASSERT_TRUE(proto::RecvInt(&t, &port, d).ok());
  ASSERT_TRUE(proto::RecvInt(&t, &rank, d).ok());
  if (before_link) before_link(port);
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", port, d, &out->link).ok());
  ASSERT_TRUE(TcpSocket::Connect("127.0.0.1", port, d, &out->beat).ok());
  ASSERT_TRUE(ConnectPeerHello(&out->link, token, 1, flags, d, &rank, &peer_flags).ok());
  ASSERT_TRUE(
      ConnectPeerHello(&out->beat, token, 1, flags | proto::kFlagHeartbeat, d, &rank, &peer_flags)
          .ok());
  ASSERT_TRUE(proto::SendInt(&t, 0, d).ok());      // no failed connects
  ASSERT_TRUE(proto::SendInt(&t, 65000, d).ok());  // "our" port
}

// The settings of the real rank 0 (task 0) that meets the fake rank 1 under `tracker`.
inline CommunicatorConfig RealRankZero(const TrackerThread& tracker, const std::string& token,
                                       const Args& extra = {}) {
  CommunicatorConfig config;
  config.backend = "tcp";
  config.args = tracker.WorkerArgs(0);
  config.args.push_back({"RINGBOOST_JOB_TOKEN", token});
  config.args.push_back({"rabit_timeout_sec", "10"});
  config.args.insert(config.args.end(), extra.begin(), extra.end());
  return config;
}

}  // namespace ringboost::rabit::test

// The Rabit tracker protocol of dmlc-core, as XGBoost's RabitTracker (1.7) speaks it; shared by
// the tcp backend (the worker side) and the tracker (the serving side, used by ringboost-submit).
//
// Wire format: 4-byte ints in host byte order; a string is an int length and that many bytes.
//
// A worker opens a connection to the tracker for each command:
//   worker  -> magic (0xff99)          tracker -> magic (echoed)
//   worker  -> rank (-1: not known yet), world size (-1: not known), task id, command
// For "print":    worker -> message; the tracker prints it.
// For "shutdown": nothing more; the tracker counts the worker as finished.
// For "start" and "recover" (recover: a restarted worker asks for its old rank by task id):
//   tracker -> rank, parent rank (-1 at the root), world size,
//              number of tree neighbours and their ranks, ring previous, ring next (-1: none)
//   then, until no connect fails:
//     worker  -> number of links it already holds, and their ranks
//     tracker -> number to connect to, number to accept from,
//                for each to connect to: host, port, rank
//     worker  -> number of connects that failed (0 ends the loop)
//   worker  -> the port it listens on for the links it accepts.
// Each worker connects to peers that got their rank before it and accepts from the later ones.
//
// ringboost's job token travels inside the task id ("<id>:<token>", DESIGN.md), so a foreign
// worker launched with that task id presents it unknowingly; peer links of ringboost workers
// present it in their own hello (kPeerMagic, rank, token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "rabit/socket.h"

namespace ringboost::rabit::proto {

constexpr int32_t kMagic = 0xff99;
// The hello of a ringboost peer link (not part of dmlc's protocol: links are ours on both ends).
constexpr int32_t kPeerMagic = 0x7262ff99;

inline constexpr const char* kStart = "start";
inline constexpr const char* kRecover = "recover";
inline constexpr const char* kPrint = "print";
inline constexpr const char* kShutdown = "shutdown";

// Bounds checked before anything is allocated from a length read off the wire.
constexpr int32_t kMaxStringBytes = 1 << 20;
constexpr int32_t kMaxWorldSize = 1 << 16;

Status SendInt(TcpSocket* sock, int32_t value, Deadline deadline);
Status RecvInt(TcpSocket* sock, int32_t* value, Deadline deadline);
Status SendStr(TcpSocket* sock, const std::string& value, Deadline deadline);
// Refuses (without reading it) a string longer than max_bytes.
Status RecvStr(TcpSocket* sock, std::string* value, Deadline deadline,
               int32_t max_bytes = kMaxStringBytes);

// "<id>:<token>" when a token is set and the id does not carry it yet, else the id unchanged.
std::string TaskIdWithToken(const std::string& task_id, const std::string& token);
// Whether `task_id` carries `token` (always true when token is empty). On true, *bare_id is the
// task id without the token.
bool TaskIdHasToken(const std::string& task_id, const std::string& token, std::string* bare_id);

// The tree and ring of a world, laid out as XGBoost's tracker does: a binary heap tree whose
// ranks are renumbered so that the ring (a depth-first walk of the tree) is 0, 1, ..., n-1.
struct LinkMap {
  std::vector<int> parent;                   // -1 at the root
  std::vector<std::vector<int>> neighbours;  // tree neighbours (parent and children)
  std::vector<int> ring_prev, ring_next;     // equal to the rank itself in a world of one
};
LinkMap ComputeLinkMap(int world_size);

}  // namespace ringboost::rabit::proto

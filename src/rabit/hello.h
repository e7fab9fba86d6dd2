// The first exchanges on a connection (rabit/protocol.h has their wire format): the tracker's
// side of a worker's hello and the worker's side of the token proof, and both sides of a peer
// link's hello. The accepting sides are HandshakePool parsers, so that strangers who connect and
// stall delay nobody.
#pragma once

#include <cstdint>
#include <string>

#include "rabit/handshake.h"
#include "rabit/socket.h"

namespace ringboost::rabit {

// A string from the wire for a log line: control and non-ASCII bytes escaped, cut at 64 bytes.
std::string QuoteWire(const std::string& s);

// A worker's hello as the tracker reads it: plain (dmlc's, the token inside the task id when the
// tracker has one) or proven (kAuthMagic); a print's message is read too, so that a hello is
// complete once parsed.
class TrackerHello : public Handshake {
 public:
  explicit TrackerHello(std::string token) : token_(std::move(token)) {}
  Status Advance(const std::string& in, std::string* out, std::size_t* need) override;

  int32_t rank = -1;
  int32_t world_size = -1;
  std::string task_id;  // without the token
  std::string cmd;
  std::string message;  // of a print
  bool proven = false;  // by the challenge (else by the task id, or no token at all)

 private:
  Status Proof(WireReader* r, std::string* out, bool* complete);
  std::string token_;
  std::string nonce_;  // the tracker's, once sent
  bool echoed_ = false;
};

// The worker's side: after kAuthMagic, checks the tracker's proof and sends its own. Fails, naming
// the tracker, when the tracker does not know the token (or is not a ringboost tracker).
Status ProveToTracker(TcpSocket* tracker, const std::string& token, Deadline deadline);

// The acceptor's side of a peer link's hello.
class PeerHello : public Handshake {
 public:
  PeerHello(std::string token, int32_t rank, int32_t flags)
      : token_(std::move(token)), rank_(rank), flags_(flags) {}
  Status Advance(const std::string& in, std::string* out, std::size_t* need) override;

  int32_t peer_rank = -1;
  int32_t peer_flags = 0;

 private:
  std::string token_;
  int32_t rank_, flags_;
  std::string nonce_;
};

// The connector's side; *peer_rank and *peer_flags are the acceptor's, proven with the token.
Status ConnectPeerHello(TcpSocket* sock, const std::string& token, int32_t rank, int32_t flags,
                        Deadline deadline, int32_t* peer_rank, int32_t* peer_flags);

}  // namespace ringboost::rabit

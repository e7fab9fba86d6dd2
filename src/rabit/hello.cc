#include "rabit/hello.h"

#include <cstdio>
#include <sstream>

#include "rabit/auth.h"
#include "rabit/protocol.h"

namespace ringboost::rabit {
namespace {

std::string Hex(int32_t value) {
  std::ostringstream oss;
  oss << "0x" << std::hex << value;
  return oss.str();
}

// The fields a reader lacks: Advance asks for them and is called again.
Status More(const WireReader& r, std::size_t* need) {
  *need = r.missing();
  return Status::OK();
}

const char* const kNoToken =
    "failed the job token challenge (the peer has another RINGBOOST_JOB_TOKEN or none)";

}  // namespace

std::string QuoteWire(const std::string& s) {
  constexpr std::size_t kMax = 64;
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\x%02x", c);
      out += esc;
    }
  }
  return out + (s.size() > kMax ? "'..." : "'");
}

// ---- tracker hello ------------------------------------------------------------------------------

Status TrackerHello::Proof(WireReader* r, std::string* out, bool* complete) {
  std::string nonce_w, mac_w;
  if (!r->Bytes(auth::kNonceBytes, &nonce_w)) return Status::OK();
  if (nonce_.empty()) {
    nonce_ = auth::NewNonce();
    *out += auth::IntBytes(proto::kAuthMagic) + nonce_ +
            auth::Mac(token_, proto::kTrackerProof, {nonce_w, nonce_});
  }
  if (!r->Bytes(auth::kMacBytes, &mac_w)) return Status::OK();
  if (!auth::SameMac(mac_w, auth::Mac(token_, proto::kWorkerProof, {nonce_w, nonce_}))) {
    return Status::Fail(kNoToken);
  }
  *complete = true;
  return Status::OK();
}

Status TrackerHello::Advance(const std::string& in, std::string* out, std::size_t* need) {
  WireReader r(in);
  int32_t magic = 0;
  if (!r.Int(&magic)) return More(r, need);
  if (magic == proto::kMagic) {
    if (!echoed_) *out += auth::IntBytes(proto::kMagic);
    echoed_ = true;
  } else if (magic == proto::kAuthMagic) {
    Status s = Proof(&r, out, &proven);
    if (!s.ok() || !proven) return s.ok() ? More(r, need) : s;
  } else {
    return Status::Fail("wrong magic " + Hex(magic) + " (expected " + Hex(proto::kMagic) + " or " +
                        Hex(proto::kAuthMagic) + ")");
  }
  Status error;
  std::string raw_id;
  if (!r.Int(&rank) || !r.Int(&world_size) || !r.Str(&raw_id, proto::kMaxTaskIdBytes, &error) ||
      !r.Str(&cmd, proto::kMaxCommandBytes, &error)) {
    return error.ok() ? More(r, need) : error;
  }
  // A proven worker sends its bare id; a foreign one shows the token in it.
  if (!proto::TaskIdHasToken(raw_id, proven ? "" : token_, &task_id)) {
    return Status::Fail("task id " + QuoteWire(raw_id) + " does not carry the job token");
  }
  if (cmd == proto::kPrint && !r.Str(&message, proto::kMaxStringBytes, &error)) {
    return error.ok() ? More(r, need) : error.Wrap("print");
  }
  *need = 0;
  return Status::OK();
}

Status ProveToTracker(TcpSocket* tracker, const std::string& token, Deadline deadline) {
  const std::string nonce_w = auth::NewNonce();
  Status s = proto::SendInt(tracker, proto::kAuthMagic, deadline);
  if (s.ok()) s = tracker->SendAll(nonce_w.data(), nonce_w.size(), deadline);
  int32_t magic = 0;
  if (s.ok()) s = proto::RecvInt(tracker, &magic, deadline);
  if (!s.ok()) return s;
  if (magic != proto::kAuthMagic) {
    return Status::Fail(tracker->peer() + " answered " + Hex(magic) +
                        ", not a ringboost tracker's challenge: a worker with RINGBOOST_JOB_TOKEN "
                        "needs ringboost-submit's tracker (unset the token under other trackers)");
  }
  std::string nonce_t(auth::kNonceBytes, '\0'), mac_t(auth::kMacBytes, '\0');
  s = tracker->RecvAll(nonce_t.data(), nonce_t.size(), deadline);
  if (s.ok()) s = tracker->RecvAll(mac_t.data(), mac_t.size(), deadline);
  if (!s.ok()) return s;
  if (!auth::SameMac(mac_t, auth::Mac(token, proto::kTrackerProof, {nonce_w, nonce_t}))) {
    return Status::Fail(tracker->peer() + " " + kNoToken + ": not this job's tracker");
  }
  const std::string mac_w = auth::Mac(token, proto::kWorkerProof, {nonce_w, nonce_t});
  return tracker->SendAll(mac_w.data(), mac_w.size(), deadline);
}

// ---- peer hello ---------------------------------------------------------------------------------

Status PeerHello::Advance(const std::string& in, std::string* out, std::size_t* need) {
  WireReader r(in);
  int32_t magic = 0, rank = -1, flags = 0;
  std::string nonce_c, mac_c;
  if (!r.Int(&magic)) return More(r, need);
  if (magic != proto::kPeerMagic) {
    return Status::Fail("not a ringboost worker's link (hello " + Hex(magic) + ")");
  }
  if (!r.Bytes(auth::kNonceBytes, &nonce_c)) return More(r, need);
  const std::string mine = auth::IntBytes(rank_) + auth::IntBytes(flags_);
  if (nonce_.empty()) {
    nonce_ = auth::NewNonce();
    *out += auth::IntBytes(proto::kPeerMagic) + nonce_ + mine +
            auth::Mac(token_, proto::kAcceptorProof,
                      {nonce_c, nonce_, auth::IntBytes(rank_), auth::IntBytes(flags_)});
  }
  if (!r.Int(&rank) || !r.Int(&flags) || !r.Bytes(auth::kMacBytes, &mac_c)) return More(r, need);
  const std::string expected =
      auth::Mac(token_, proto::kConnectorProof,
                {nonce_c, nonce_, auth::IntBytes(rank), auth::IntBytes(flags)});
  if (!auth::SameMac(mac_c, expected)) return Status::Fail(kNoToken);
  peer_rank = rank;
  peer_flags = flags;
  *need = 0;
  return Status::OK();
}

Status ConnectPeerHello(TcpSocket* sock, const std::string& token, int32_t rank, int32_t flags,
                        Deadline deadline, int32_t* peer_rank, int32_t* peer_flags) {
  const std::string nonce_c = auth::NewNonce();
  Status s = proto::SendInt(sock, proto::kPeerMagic, deadline);
  if (s.ok()) s = sock->SendAll(nonce_c.data(), nonce_c.size(), deadline);
  int32_t magic = 0;
  if (s.ok()) s = proto::RecvInt(sock, &magic, deadline);
  if (!s.ok()) return s;
  if (magic != proto::kPeerMagic) {
    return Status::Fail(sock->peer() + " is not a ringboost worker (hello " + Hex(magic) + ")");
  }
  std::string nonce_a(auth::kNonceBytes, '\0'), mac_a(auth::kMacBytes, '\0');
  s = sock->RecvAll(nonce_a.data(), nonce_a.size(), deadline);
  if (s.ok()) s = proto::RecvInt(sock, peer_rank, deadline);
  if (s.ok()) s = proto::RecvInt(sock, peer_flags, deadline);
  if (s.ok()) s = sock->RecvAll(mac_a.data(), mac_a.size(), deadline);
  if (!s.ok()) return s;
  const std::string expected =
      auth::Mac(token, proto::kAcceptorProof,
                {nonce_c, nonce_a, auth::IntBytes(*peer_rank), auth::IntBytes(*peer_flags)});
  if (!auth::SameMac(mac_a, expected)) return Status::Fail(sock->peer() + " " + kNoToken);
  const std::string mine =
      auth::IntBytes(rank) + auth::IntBytes(flags) +
      auth::Mac(token, proto::kConnectorProof,
                {nonce_c, nonce_a, auth::IntBytes(rank), auth::IntBytes(flags)});
  return sock->SendAll(mine.data(), mine.size(), deadline);
}

}  // namespace ringboost::rabit

// Accepting on a listening socket that anyone can reach: every connection's handshake runs
// concurrently in one poll() loop (no thread per connection), each under its own deadline, with
// a cap per source address and in all, so that idle or slow strangers delay nobody. Used by the
// tracker (its hello) and by each tcp worker (its peers' hellos).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "rabit/socket.h"

namespace ringboost::rabit {

// Fields read off the front of a buffer that grows as bytes arrive: each call either takes its
// field and returns true, or returns false and leaves in missing() how many bytes are lacking.
class WireReader {
 public:
  explicit WireReader(const std::string& buffer) : buffer_(buffer) {}
  bool Int(int32_t* value);
  bool Bytes(std::size_t count, std::string* out);
  // A length-prefixed string; a length outside 0..max_bytes is *error (and false).
  bool Str(std::string* out, int32_t max_bytes, Status* error);
  std::size_t missing() const { return missing_; }

 private:
  const std::string& buffer_;
  std::size_t pos_ = 0;
  std::size_t missing_ = 0;
};

// The accepting side of one handshake, as a parser of everything received so far.
class Handshake {
 public:
  virtual ~Handshake() = default;
  // Parses `in` (all bytes received on the connection, from the first); appends to *out what to
  // send (each reply once: the handshake remembers what it sent); a failure drops the
  // connection. *need: bytes to read before calling again, 0 when the handshake is complete.
  // The pool reads no more than *need, so no byte after the handshake is taken from the stream.
  virtual Status Advance(const std::string& in, std::string* out, std::size_t* need) = 0;
};

struct HandshakeLimits {
  double timeout_s = 5;  // a connection whose handshake is not complete by then is dropped
  int per_source = 16;   // pending handshakes per source address; the oldest goes first
  int total = 256;       // pending handshakes in all; the oldest of the busiest address goes
};

// The log of connections refused on a port that anyone can reach: a line each, up to `lines` in
// each `window_s`; beyond that (a flood of strangers, each refusal a line of the job's log and
// --log-file) they are counted, and the count is logged once the window has passed and on
// Flush(). Lines go to `sink`: "WHO: refused a connection from HOST: WHY". Thread-safe.
class RefusalLog {
 public:
  static constexpr int kLines = 20;
  static constexpr double kWindowS = 60;
  using Sink = std::function<void(const std::string&)>;
  RefusalLog(std::string who, Sink sink, int lines = kLines, double window_s = kWindowS);
  void Refuse(const std::string& host, const std::string& why);
  void Flush();

 private:
  void LogUnlogged();  // mutex_ held

  const std::string who_;
  const Sink sink_;
  const int lines_;
  const double window_s_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point window_begin_ = std::chrono::steady_clock::now();
  int logged_ = 0;
  int64_t unlogged_ = 0;
};

class HandshakePool {
 public:
  using Factory = std::function<std::unique_ptr<Handshake>()>;
  // Called for every dropped connection: its source address and why.
  using OnDrop = std::function<void(const std::string& host, const std::string& why)>;
  struct Done {
    TcpSocket sock;
    std::string host;  // numeric source address
    std::unique_ptr<Handshake> handshake;
  };

  HandshakePool(TcpSocket* listener, HandshakeLimits limits, Factory factory, OnDrop on_drop);
  ~HandshakePool();

  // Waits at most wait_ms (or until `deadline`, whichever is first) for progress: accepts new
  // connections, advances handshakes, drops failed or late ones; appends completed ones to *done.
  // Fails only when poll() or accept() fails for a reason other than the peers'.
  Status Step(int wait_ms, std::vector<Done>* done);
  // Closes every pending connection (the listener stays as it is).
  void CloseAll();
  std::size_t pending() const { return pending_.size(); }

 private:
  struct Pending;
  void AcceptNew();
  void Admit(TcpSocket sock, std::string host);
  void Drop(std::size_t index, const std::string& why);
  std::size_t OldestOfBusiestSource(const std::string& host) const;
  // Reads/sends what it can; false when the connection was dropped.
  bool Progress(Pending* p, short revents, std::string* why);

  TcpSocket* listener_;
  HandshakeLimits limits_;
  Factory factory_;
  OnDrop on_drop_;
  std::vector<std::unique_ptr<Pending>> pending_;  // oldest first
  std::vector<Done> completed_;
};

}  // namespace ringboost::rabit

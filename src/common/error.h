// Three kinds of error (STYLE.md point 7):
//  * a user's mistake (bad config, malformed data, missing file): throw ringboost::Error with a
//    message naming the file/line or the key and the fix; the CLI prints `error: <message>`;
//  * a failure of the environment (network, MPI, CUDA, disk): a Status carried up, made an Error
//    at the top with ThrowIfError();
//  * a broken internal invariant: RB_CHECK, which also throws (never abort on user input).
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace ringboost {

// The one exception type of the project. `what()` is the whole message shown to the user.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when a collective lost a worker, the survivors re-linked with its replacement and all
// agreed on the last checkpoint: the caller rolls back to it (rabit::Communicator's
// LoadCheckPoint) and goes on. Not a failure of the job.
class RecoveredError : public Error {
 public:
  explicit RecoveredError(const std::string& message) : Error(message) {}
};

// Result of a call that can fail for reasons outside the program (I/O, network, MPI, CUDA).
// Carries the call, the peer or path, and errno/code as text; a failure may be marked a timeout
// (a peer that does not answer) or a recovery (see RecoveredError).
class [[nodiscard]] Status {
 public:
  enum class Kind { kOk, kFail, kTimeout, kRecovered };
  Status() = default;
  static Status OK() { return Status(); }
  static Status Fail(std::string message) { return Status(std::move(message), Kind::kFail); }
  static Status Timeout(std::string message) { return Status(std::move(message), Kind::kTimeout); }
  static Status Recovered(std::string message) {
    return Status(std::move(message), Kind::kRecovered);
  }
  bool ok() const { return kind_ == Kind::kOk; }
  bool timed_out() const { return kind_ == Kind::kTimeout; }
  bool recovered() const { return kind_ == Kind::kRecovered; }
  const std::string& message() const { return message_; }
  // Adds outer context: "context: inner message" (the kind stays).
  Status Wrap(const std::string& context) const {
    return ok() ? *this : Status(context + ": " + message_, kind_);
  }

 private:
  Status(std::string message, Kind kind) : message_(std::move(message)), kind_(kind) {}
  std::string message_;
  Kind kind_ = Kind::kOk;
};

// Turns a failed Status into an Error (a RecoveredError for a recovery) at the top of a chain.
inline void ThrowIfError(const Status& s) {
  if (s.recovered()) throw RecoveredError(s.message());
  if (!s.ok()) throw Error(s.message());
}

// Status from errno: "<call> <what>: <strerror(errno)> (errno N)".
Status ErrnoStatus(const std::string& call, const std::string& what);

// A message made safe to print on a terminal or a log line: control bytes other than '\n'
// (a message's text may quote a line of a hostile file) become `\t`, `\r` or `\xNN`, and each
// line is cut after `max_line` bytes with "... (N more bytes)" so one huge token cannot flood
// the output. The CLI prints every error through it.
std::string PrintableMessage(const std::string& message, std::size_t max_line = 400);

namespace detail {
[[noreturn]] void CheckFailed(const char* expr, const char* file, int line, const std::string& msg);
}  // namespace detail

}  // namespace ringboost

// Internal invariant. On failure throws ringboost::Error naming the expression and source line.
#define RB_CHECK(cond)                                                            \
  do {                                                                            \
    if (!(cond)) ::ringboost::detail::CheckFailed(#cond, __FILE__, __LINE__, ""); \
  } while (0)

// Same with a streamed message: RB_CHECK_MSG(n > 0, "n=" << n).
#define RB_CHECK_MSG(cond, stream_expr)                                                 \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::ostringstream rb_check_oss_;                                                 \
      rb_check_oss_ << stream_expr;                                                     \
      ::ringboost::detail::CheckFailed(#cond, __FILE__, __LINE__, rb_check_oss_.str()); \
    }                                                                                   \
  } while (0)

// Throws a user-facing ringboost::Error built from a stream expression.
#define RB_FAIL(stream_expr)                      \
  do {                                            \
    std::ostringstream rb_fail_oss_;              \
    rb_fail_oss_ << stream_expr;                  \
    throw ::ringboost::Error(rb_fail_oss_.str()); \
  } while (0)

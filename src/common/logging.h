// Verbosity-filtered messages on stderr, as XGBoost's `verbosity` (0 silent, 1 warning,
// 2 info, 3 debug). Thread-safe: each message is written with one call.
#pragma once

#include <sstream>
#include <string>

namespace ringboost {

enum class LogLevel { kWarning = 1, kInfo = 2, kDebug = 3 };

void SetVerbosity(int verbosity);
int Verbosity();
void LogMessage(LogLevel level, const std::string& message);
// A line the user expects at the default verbosity, untagged ("[ringboost] model written to F"):
// shown from verbosity 1 on, as warnings, and not at verbosity 0.
void LogNote(const std::string& message);

}  // namespace ringboost

#define RB_LOG(level, stream_expr)                                                    \
  do {                                                                                \
    if (::ringboost::Verbosity() >= static_cast<int>(::ringboost::LogLevel::level)) { \
      std::ostringstream rb_log_oss_;                                                 \
      rb_log_oss_ << stream_expr;                                                     \
      ::ringboost::LogMessage(::ringboost::LogLevel::level, rb_log_oss_.str());       \
    }                                                                                 \
  } while (0)

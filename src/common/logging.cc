#include "common/logging.h"

#include <atomic>
#include <cstdio>

namespace ringboost {

namespace {
std::atomic<int> g_verbosity{1};
}

void SetVerbosity(int verbosity) { g_verbosity.store(verbosity); }
int Verbosity() { return g_verbosity.load(); }

void LogMessage(LogLevel level, const std::string& message) {
  const char* tag = level == LogLevel::kWarning ? "warning"
                    : level == LogLevel::kInfo  ? "info"
                                                : "debug";
  std::string line = std::string("[ringboost] ") + tag + ": " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

void LogNote(const std::string& message) {
  if (Verbosity() < static_cast<int>(LogLevel::kWarning)) return;
  const std::string line = "[ringboost] " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ringboost

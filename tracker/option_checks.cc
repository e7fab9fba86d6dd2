// Checks of ringboost-submit's options that hold for every launcher (submit.h); each failure
// names the option and the fix.
#include <cmath>
#include <cstdlib>
#include <string>

#include "submit.h"

namespace ringboost::submit {
namespace {

// --connect-timeout's range (its --help and docs/submit.md say it too).
constexpr double kMinConnectTimeoutS = 0.1;
constexpr double kMaxConnectTimeoutS = 1e7;  // about 116 days

}  // namespace

Status CheckEnvNames(const EnvList& env) {
  for (const auto& kv : env) {
    for (const char* reserved : kLauncherVariables) {
      if (kv.first != reserved) continue;
      std::string names;
      for (const char* name : kLauncherVariables)
        names += std::string(names.empty() ? "" : ", ") + name;
      return Status::Fail("--env " + kv.first + "=...: " + kv.first +
                          " is set by ringboost-submit itself and cannot be given; the reserved "
                          "names are " +
                          names);
    }
  }
  return Status::OK();
}

Status ParseConnectTimeout(const std::string& text, double* seconds) {
  // Digits, one point and an exponent only: strtod alone would also take "nan", "inf", hex and
  // leading blanks.
  const bool plain =
      !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  const double value = plain ? std::strtod(text.c_str(), &end) : 0;
  if (!plain || end != text.c_str() + text.size() || !std::isfinite(value) ||
      value < kMinConnectTimeoutS || value > kMaxConnectTimeoutS) {
    return Status::Fail("--connect-timeout " + text +
                        ": expected a number of seconds from 0.1 to " + "10000000, e.g. 600");
  }
  *seconds = value;
  return Status::OK();
}

}  // namespace ringboost::submit

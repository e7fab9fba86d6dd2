// Checks of ringboost-submit's options that hold for every launcher (submit.h); each failure
// names the option and the fix.
#include <string>

#include "submit.h"

namespace ringboost::submit {

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

}  // namespace ringboost::submit

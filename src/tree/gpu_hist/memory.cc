// Host-only parts of common.h, the same in every build.
#include <sstream>

#include "common/error.h"
#include "tree/gpu_hist/common.h"

namespace ringboost {

void CheckDeviceMemoryFits(std::size_t need_bytes, std::size_t free_bytes,
                           const std::string& what) {
  if (need_bytes <= free_bytes) return;
  constexpr double kMiB = 1024.0 * 1024.0;
  RB_FAIL(what << " needs " << need_bytes << " bytes (" << need_bytes / kMiB
               << " MiB) of device memory; the device has " << free_bytes << " bytes ("
               << free_bytes / kMiB
               << " MiB) free. Use more workers (each holds a share of the rows), a smaller "
                  "max_bin, or device=cpu");
}

}  // namespace ringboost

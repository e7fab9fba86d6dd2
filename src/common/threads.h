// Thread-count helpers around OpenMP.
#pragma once

#include <omp.h>

namespace ringboost {

// nthread = 0 means OpenMP's default, as XGBoost's nthread: all cores, or OMP_NUM_THREADS when
// set (ringboost-submit --cluster local and the Kubernetes launcher set it to each worker's share
// of the cores).
inline int ResolveThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

}  // namespace ringboost

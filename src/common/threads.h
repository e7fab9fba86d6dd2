// Thread-count helpers around OpenMP.
#pragma once

#include <omp.h>

namespace ringboost {

// nthread = 0 means all cores, as XGBoost's nthread.
inline int ResolveThreads(int nthread) { return nthread > 0 ? nthread : omp_get_num_procs(); }

}  // namespace ringboost

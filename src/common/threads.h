// Thread-count helpers around OpenMP.
#pragma once

#include <omp.h>

namespace ringboost {

// nthread = 0 means OpenMP's default, as XGBoost's nthread: all cores, or OMP_NUM_THREADS when
// set (ringboost-submit --cluster local and the Kubernetes launcher set it to each worker's share
// of the cores).
inline int ResolveThreads(int nthread) { return nthread > 0 ? nthread : omp_get_max_threads(); }

// Each OpenMP thread takes a stack (OMP_STACKSIZE, else the stack size limit) from the address
// space; when `nthread` threads' stacks cannot fit in what this process may use, the OpenMP
// runtime would fail to start them and end the process, so this refuses nthread first, naming
// the size (common/memory.h).
void CheckThreadStacks(int nthread);

}  // namespace ringboost

// The reference for bench/allreduce.py: plain MPI_Allreduce (MPI_IN_PLACE, MPI_DOUBLE, MPI_SUM,
// MPI_COMM_WORLD) over the same schedule and output as allreduce_bench (allreduce_timing.h).
// Links MPI only, not ringboost.
//
//   mpirun -np N mpi_allreduce_bench [--seconds=S] [--min-iters=N] [--min-bytes=B]
//                                    [--max-bytes=B]
//
// MPI errors are fatal (MPI's default handler); a wrong sum ends the job with MPI_Abort(2).
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <string>

#include "allreduce_timing.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  ringboost::bench::AllreduceBenchOptions opts;
  for (int i = 1; i < argc; ++i) {
    std::string error;
    if (!ringboost::bench::ParseBenchFlag(argv[i], &opts, &error)) {
      if (rank == 0) std::fprintf(stderr, "mpi_allreduce_bench: %s\n", error.c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  if (opts.max_bytes / sizeof(double) > static_cast<std::size_t>(INT_MAX)) {
    if (rank == 0) std::fprintf(stderr, "mpi_allreduce_bench: --max-bytes over INT_MAX doubles\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto allreduce = [](double* buf, std::size_t count) {
    MPI_Allreduce(MPI_IN_PLACE, buf, static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  };
  auto broadcast = [](int64_t* values, std::size_t count) {
    MPI_Bcast(values, static_cast<int>(count), MPI_INT64_T, 0, MPI_COMM_WORLD);
  };
  if (!ringboost::bench::RunAllreduceSweep(rank, world, "MPI_Allreduce", opts, allreduce,
                                           broadcast)) {
    if (rank == 0) std::fprintf(stderr, "mpi_allreduce_bench: a sum came out wrong\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}

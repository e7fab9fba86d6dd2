// Allreduce (sum of doubles, 1 KB .. 64 MB) through ringboost's collective, for bench/allreduce.py.
//
//   allreduce_bench communicator=mpi|tcp|local [key=value ...] [--seconds=S] [--min-iters=N]
//                   [--min-bytes=B] [--max-bytes=B]
//
// `communicator=` picks CommunicatorConfig::backend (default auto); every other key=value goes
// to CommunicatorConfig::args unchanged. The tcp backend also reads DMLC_TRACKER_URI,
// DMLC_TRACKER_PORT, DMLC_TASK_ID, DMLC_NUM_WORKER from the environment (as the CLI does).
// Output: allreduce_timing.h (one JSON line per size from rank 0). Exit 1 on an error of the
// collective or the arguments, 2 when a sum came out wrong.
#include <cstdio>
#include <string>
#include <vector>

#include "allreduce_timing.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

// Splits argv into the communicator's config and the bench flags; throws Error on a bad one.
rabit::CommunicatorConfig ParseArgs(int argc, char** argv, bench::AllreduceBenchOptions* opts) {
  rabit::CommunicatorConfig config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string error;
    if (arg.rfind("--", 0) == 0) {
      if (!bench::ParseBenchFlag(arg, opts, &error)) RB_FAIL(error);
      continue;
    }
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) {
      RB_FAIL("argument '" << arg << "' is not key=value; usage: allreduce_bench "
                           << "communicator=mpi|tcp|local [key=value ...] "
                           << "[--seconds=S] [--max-bytes=B]");
    }
    const std::string key = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (key == "communicator") {
      config.backend = value;
    } else {
      config.args.emplace_back(key, value);
    }
  }
  return config;
}

int Run(int argc, char** argv) {
  bench::AllreduceBenchOptions opts;
  const rabit::CommunicatorConfig config = ParseArgs(argc, argv, &opts);
  std::unique_ptr<rabit::Communicator> comm = rabit::MakeCommunicator(config);
  auto allreduce = [&comm](double* buf, std::size_t count) {
    comm->Allreduce(Span<double>(buf, count), rabit::Op::kSum);
  };
  auto broadcast = [&comm](int64_t* values, std::size_t count) {
    comm->Broadcast(Span<int64_t>(values, count), 0);
  };
  const bool ok = bench::RunAllreduceSweep(comm->Rank(), comm->WorldSize(), comm->Backend(), opts,
                                           allreduce, broadcast);
  ThrowIfError(comm->Shutdown());
  if (!ok) {
    std::fprintf(stderr, "allreduce_bench: a sum came out wrong (see the lines above)\n");
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace ringboost

int main(int argc, char** argv) {
  try {
    return ringboost::Run(argc, argv);
  } catch (const ringboost::Error& e) {
    std::fprintf(stderr, "allreduce_bench: error: %s\n", e.what());
    return 1;
  }
}

// Allreduce (sum of doubles, 1 KB .. 64 MB) through ringboost's collective, for bench/allreduce.py.
//
//   allreduce_bench communicator=mpi|tcp|local [type=double|int64] [key=value ...] [--seconds=S]
//                   [--min-iters=N] [--min-bytes=B] [--max-bytes=B]
//
// type=int64: the sums run on int64 (the training's histogram cells; the tcp backend's halving
// takes only order-free sums): each call converts the doubles to int64 in place and back, about
// 1 ns an element on top of the collective.
// `communicator=` picks CommunicatorConfig::backend (default auto); every other key=value goes
// to CommunicatorConfig::args unchanged. The tcp backend also reads DMLC_TRACKER_URI,
// DMLC_TRACKER_PORT, DMLC_TASK_ID, DMLC_NUM_WORKER from the environment (as the CLI does).
// Output: allreduce_timing.h (one JSON line per size from rank 0). Exit 1 on an error of the
// collective or the arguments, 2 when a sum came out wrong.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "allreduce_timing.h"
#include "rabit/communicator.h"

namespace ringboost {
namespace {

// Splits argv into the communicator's config and the bench flags; throws Error on a bad one.
rabit::CommunicatorConfig ParseArgs(int argc, char** argv, bench::AllreduceBenchOptions* opts,
                                    bool* int64) {
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
    } else if (key == "type") {
      if (value != "double" && value != "int64") RB_FAIL("type=" << value << ": double or int64");
      *int64 = value == "int64";
    } else {
      config.args.emplace_back(key, value);
    }
  }
  return config;
}

int Run(int argc, char** argv) {
  bench::AllreduceBenchOptions opts;
  bool int64 = false;
  const rabit::CommunicatorConfig config = ParseArgs(argc, argv, &opts, &int64);
  std::unique_ptr<rabit::Communicator> comm = rabit::MakeCommunicator(config);
  auto allreduce = [&comm, int64](double* buf, std::size_t count) {
    if (!int64) {
      comm->Allreduce(Span<double>(buf, count), rabit::Op::kSum);
      return;
    }
    // The same 8 bytes an element, as int64 (the values are small integers).
    for (std::size_t i = 0; i < count; ++i) {
      const int64_t v = static_cast<int64_t>(buf[i]);
      std::memcpy(buf + i, &v, sizeof(v));
    }
    comm->Allreduce(Span<int64_t>(reinterpret_cast<int64_t*>(buf), count), rabit::Op::kSum);
    for (std::size_t i = 0; i < count; ++i) {
      int64_t v = 0;
      std::memcpy(&v, buf + i, sizeof(v));
      buf[i] = static_cast<double>(v);
    }
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

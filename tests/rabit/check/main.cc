// A worker that checks every collective (collective_checks.h) as a real process: mpirun starts it
// (tests/rabit/test_mpi.cc), and so do the trackers of tests/rabit/test_tcp_processes.cc.
//   rabit_check [communicator=auto|mpi|tcp] [expect=BACKEND] [die_rank=R] [stop_rank=R]
//               [pid_file=PATH] [allgather=tree|ring|halving] [halving=1] [small=1] [KEY=VALUE ...]
// KEY=VALUE go to the communicator (DMLC_*, rabit_*). die_rank=R: rank R exits with code 3 after
// the first allreduce, so the others' next collective meets a dead peer; stop_rank=R: rank R stops
// itself (SIGSTOP) there instead, a hung peer whose links stay open. pid_file=PATH: writes the
// process id there first (tests stop a worker at a moment of their choosing).
// allgather=tree|ring|halving: also checks by the bytes it sends that an Allgatherv of 1000 bytes a
// rank took that algorithm. halving=1 (with rabit_algorithm=halving): also checks the bytes halving
// and doubling send (CheckHalvingBytes). small=1: buffers of up to 1000 elements and a 64 KB
// broadcast only, and no check of the ring's bytes (for many processes on few cores). Prints "rank
// R of N ok" and exits 0, or prints the first mismatch or error and exits 1.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rabit/collective_checks.h"

namespace ringboost::rabit {
namespace {

int Run(int argc, char** argv) {
  CommunicatorConfig config;
  std::string expect, allgather;
  bool small = false, halving = false;
  int die_rank = -1, stop_rank = -1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      std::printf("error: argument '%s' is not KEY=VALUE\n", argv[i]);
      return 1;
    }
    std::string key = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (key == "communicator") {
      config.backend = value;
    } else if (key == "expect") {
      expect = value;
    } else if (key == "small") {
      small = value == "1";
    } else if (key == "halving") {
      halving = value == "1";
    } else if (key == "allgather") {
      allgather = value;
    } else if (key == "die_rank") {
      die_rank = std::atoi(value.c_str());
    } else if (key == "stop_rank") {
      stop_rank = std::atoi(value.c_str());
    } else if (key == "pid_file") {
      std::FILE* f = std::fopen(value.c_str(), "w");
      if (f != nullptr) {
        std::fprintf(f, "%d\n", static_cast<int>(getpid()));
        std::fclose(f);
      }
    } else {
      config.args.emplace_back(key, value);
    }
  }
  auto comm = MakeCommunicator(config);
  if (!expect.empty() && comm->Backend() != expect) {
    std::printf("picked %s, not %s\n", comm->Backend().c_str(), expect.c_str());
    return 1;
  }
  if (comm->Rank() == die_rank) {
    comm->AllreduceValue<int32_t>(1, Op::kSum);
    std::printf("rank %d exits on purpose\n", comm->Rank());
    std::fflush(stdout);
    std::_Exit(3);
  }
  if (comm->Rank() == stop_rank) {
    comm->AllreduceValue<int32_t>(1, Op::kSum);
    std::printf("rank %d stops on purpose\n", comm->Rank());
    std::fflush(stdout);
    raise(SIGSTOP);
  }
  // With rabit_recover a lost peer sends everyone back to the start of the checks (the
  // restarted peer starts there too).
  std::string error;
  for (bool first = true;; first = false) {
    try {
      if (first && (die_rank >= 0 || stop_rank >= 0)) comm->AllreduceValue<int32_t>(1, Op::kSum);
      error = small ? test::CheckEveryCollective(comm.get(), {1, 7, 1000}, 64 << 10, false)
                    : test::CheckEveryCollective(comm.get(), {1, 7, 1000, std::size_t{1} << 20},
                                                 std::size_t{3} << 20);
      break;
    } catch (const RecoveredError& e) {
      std::printf("rank %d recovered: %s\n", comm->Rank(), e.what());
    }
  }
  if (error.empty() && halving) error = test::CheckHalvingBytes(comm.get(), 10007);
  if (error.empty() && !allgather.empty()) {
    error = test::CheckAllgathervAlgorithm(comm.get(), allgather);
  }
  if (!error.empty()) {
    std::printf("%s\n", error.c_str());
    return 1;
  }
  ThrowIfError(comm->TrackerPrint("rank " + std::to_string(comm->Rank()) + " says hello"));
  std::printf("rank %d of %d ok\n", comm->Rank(), comm->WorldSize());
  std::fflush(stdout);
  ThrowIfError(comm->Shutdown());
  return 0;
}

}  // namespace
}  // namespace ringboost::rabit

int main(int argc, char** argv) {
  try {
    return ringboost::rabit::Run(argc, argv);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    std::fflush(stdout);
    return 1;
  }
}

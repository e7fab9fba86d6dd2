// The measuring loop shared by allreduce_bench (ringboost's collective) and mpi_allreduce_bench
// (plain MPI_Allreduce), so that both run exactly the same schedule, check and output; only the
// two collective calls differ. Header-only: the MPI program must not link ringboost.
//
// Per size (1 KB, 4 KB, ..., 64 MB of doubles, x4 each step):
//  1. check: rank r fills element i with (r + 1) + (i % 5), one in-place sum, every element must
//     be n(n+1)/2 + n(i % 5) (exact in double); the ranks agree on the outcome with one more
//     one-element sum, so all of them stop together when any is wrong;
//  2. probe: 3 untimed calls; rank 0 estimates the time per call from the last two;
//  3. schedule: rank 0 picks iters = clamp(seconds / estimate, min_iters, kMaxIters) and warm-up
//     = min(iters / 10, 100) and broadcasts both, so every rank makes the same number of calls;
//  4. warm-up calls, then `iters` calls each timed alone with steady_clock on every rank.
// The timed buffer holds zeros, so repeated in-place sums stay finite (no inf, no denormals).
// Rank 0 prints one JSON line per size on stdout:
//   {"bytes":B,"seconds_per_op":MEDIAN,"iters":N,"stat":"median","mean_seconds":...,
//    "min_seconds":...,"world":W,"impl":"..."}
// seconds_per_op is the median over rank 0's timed calls (robust on a shared, noisy machine).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ringboost::bench {

struct AllreduceBenchOptions {
  double seconds = 0.3;               // timed seconds aimed at per size
  int64_t min_iters = 5;              // at least this many timed calls per size
  std::size_t min_bytes = 1 << 10;    // first size
  std::size_t max_bytes = 64u << 20;  // last size (sizes go x4)
};

constexpr int64_t kMaxIters = 200000;
constexpr int64_t kMaxWarmup = 100;
constexpr int kProbeCalls = 3;

// Parses one `--seconds=S`, `--min-iters=N`, `--min-bytes=B` or `--max-bytes=B` argument.
// Returns false with *error set when `arg` is none of them or its value is bad.
inline bool ParseBenchFlag(const std::string& arg, AllreduceBenchOptions* opts,
                           std::string* error) {
  const auto eq = arg.find('=');
  const std::string key = arg.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(number > 0)) {
    *error = "bad value in '" + arg + "': want a positive number (e.g. --seconds=0.3)";
    return false;
  }
  if (key == "--seconds") {
    opts->seconds = number;
  } else if (key == "--min-iters") {
    opts->min_iters = static_cast<int64_t>(number);
  } else if (key == "--min-bytes") {
    opts->min_bytes = static_cast<std::size_t>(number);
  } else if (key == "--max-bytes") {
    opts->max_bytes = static_cast<std::size_t>(number);
  } else {
    *error = "unknown flag '" + arg + "'; known: --seconds= --min-iters= --min-bytes= --max-bytes=";
    return false;
  }
  return true;
}

namespace detail {

inline double Seconds(std::chrono::steady_clock::time_point a,
                      std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Step 1: the exact-sum check. Returns the number of ranks that saw a wrong element.
template <typename AllreduceFn>
int CheckSum(int rank, int world, std::vector<double>* buf, AllreduceFn& allreduce) {
  const std::size_t n = buf->size();
  for (std::size_t i = 0; i < n; ++i) (*buf)[i] = (rank + 1) + static_cast<double>(i % 5);
  allreduce(buf->data(), n);
  double bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double want = world * (world + 1) / 2.0 + world * static_cast<double>(i % 5);
    if ((*buf)[i] != want) {
      std::fprintf(stderr, "rank %d: allreduce of %zu doubles: element %zu is %.17g, want %.17g\n",
                   rank, n, i, (*buf)[i], want);
      bad = 1;
      break;
    }
  }
  allreduce(&bad, 1);
  return static_cast<int>(bad);
}

// Steps 2 and 3: {iters, warmup}, decided on rank 0 and broadcast.
template <typename AllreduceFn, typename BroadcastFn>
std::vector<int64_t> Schedule(int rank, const AllreduceBenchOptions& opts, std::vector<double>* buf,
                              AllreduceFn& allreduce, BroadcastFn& broadcast) {
  auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < kProbeCalls; ++k) {
    if (k == 1) start = std::chrono::steady_clock::now();  // the first call may pay setup
    allreduce(buf->data(), buf->size());
  }
  const double estimate = Seconds(start, std::chrono::steady_clock::now()) / (kProbeCalls - 1);
  std::vector<int64_t> schedule(2, 0);
  if (rank == 0) {
    const double want = std::ceil(opts.seconds / std::max(estimate, 1e-9));
    schedule[0] = std::clamp<int64_t>(static_cast<int64_t>(std::min(want, 1e9)), opts.min_iters,
                                      std::max(kMaxIters, opts.min_iters));
    schedule[1] = std::min(schedule[0] / 10, kMaxWarmup);
  }
  broadcast(schedule.data(), schedule.size());
  return schedule;
}

}  // namespace detail

// Runs the sweep; `allreduce(double* buf, size_t count)` sums in place over all ranks and
// `broadcast(int64_t* values, size_t count)` copies rank 0's values to every rank. Returns false
// when the check failed on some rank (every rank returns false then).
template <typename AllreduceFn, typename BroadcastFn>
bool RunAllreduceSweep(int rank, int world, const std::string& impl,
                       const AllreduceBenchOptions& opts, AllreduceFn allreduce,
                       BroadcastFn broadcast) {
  for (std::size_t bytes = opts.min_bytes; bytes <= opts.max_bytes; bytes *= 4) {
    std::vector<double> buf(std::max<std::size_t>(bytes / sizeof(double), 1));
    if (detail::CheckSum(rank, world, &buf, allreduce) != 0) return false;
    std::fill(buf.begin(), buf.end(), 0.0);
    const std::vector<int64_t> schedule = detail::Schedule(rank, opts, &buf, allreduce, broadcast);
    for (int64_t k = 0; k < schedule[1]; ++k) allreduce(buf.data(), buf.size());
    std::vector<double> times(schedule[0]);
    for (double& t : times) {
      const auto start = std::chrono::steady_clock::now();
      allreduce(buf.data(), buf.size());
      t = detail::Seconds(start, std::chrono::steady_clock::now());
    }
    if (rank != 0) continue;
    double mean = 0;
    for (double t : times) mean += t / times.size();
    std::sort(times.begin(), times.end());
    const std::size_t m = times.size();
    const double median = m % 2 ? times[m / 2] : (times[m / 2 - 1] + times[m / 2]) / 2;
    std::printf(
        "{\"bytes\":%zu,\"seconds_per_op\":%.9g,\"iters\":%lld,\"stat\":\"median\","
        "\"mean_seconds\":%.9g,\"min_seconds\":%.9g,\"world\":%d,\"impl\":\"%s\"}\n",
        buf.size() * sizeof(double), median, static_cast<long long>(m), mean, times[0], world,
        impl.c_str());
    std::fflush(stdout);
  }
  return true;
}

}  // namespace ringboost::bench

// The relay of workers' output through ringboost-submit, with real worker processes: the bytes of
// a line arrive as they were written (NUL bytes too), on stdout and in --log-file, and a line
// without end arrives in pieces, costing bounded memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "helpers.h"
#include "process.h"
#include "submit/submit_runner.h"

namespace ringboost::submit {
namespace {

using test::Contains;
using test::Job;
using test::Submit;

TEST(Output, NulBytesAreRelayedWithTheRestOfTheLine) {
  ringboost::test::TempDir dir;
  ringboost::test::WriteFile(dir.File("worker.sh"), "printf 'abc\\000def\\n'\n");
  Job job = Submit(dir.path(), "--num-workers 1 --log-file job.log sh worker.sh");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const std::string line("[task 0] abc\0def\n", 17);
  EXPECT_TRUE(Contains(job.out, line)) << job.out;
  EXPECT_TRUE(Contains(ringboost::test::ReadFile(dir.File("job.log")), line));
}

// A --log-file that cannot be written (a full disk: /dev/full) fails the job, naming the file,
// though the worker succeeded; its output still reaches stdout. Kubernetes too.
TEST(Output, LogFileThatCannotBeWrittenFailsTheJob) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  ringboost::test::TempDir dir;
  for (const char* args : {"-n 1 --log-file /dev/full echo hi",
                           "--cluster kubernetes -n 1 --image rb:1 -o job.yaml --log-file "
                           "/dev/full ringboost train t.conf"}) {
    Job job = Submit(dir.path(), args);
    EXPECT_EQ(job.exit_code, 1) << args << "\n" << job.err;
    EXPECT_TRUE(Contains(job.err, "ringboost-submit: error: --log-file /dev/full: cannot write"))
        << job.err;
    EXPECT_TRUE(Contains(job.err, "No space left on device")) << job.err;
  }
  EXPECT_TRUE(Contains(Submit(dir.path(), "-n 1 --log-file /dev/full echo hi").out, "] hi\n"));
}

// Runs `timeout 120 ringboost-submit ARGS...` in `dir` (test::Spawn); returns its exit code and
// sets *max_rss_kb to the peak resident memory of it and its children (the workers, and
// timeout's child ringboost-submit).
int SubmitMeasured(const std::string& dir, const std::vector<std::string>& args, long* max_rss_kb) {
  std::vector<std::string> argv = {"timeout", "120", RINGBOOST_SUBMIT};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = test::Spawn(dir, argv);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  *max_rss_kb = usage.ru_maxrss;
  return test::ExitCode(status);
}

// 32 MB without a newline: pieces of kMaxLineBytes (all but the last marked as continued) that
// hold every byte; ringboost-submit's memory stays far below the line (the whole line in one
// buffer, copied as it grew, took 68 MB and 5 s of CPU, growing as the square of the length).
TEST(Output, LineWithoutEndIsRelayedInPiecesWithBoundedMemory) {
  ringboost::test::TempDir dir;
  constexpr long kBytes = 32000000;
  ringboost::test::WriteFile(dir.File("worker.sh"),
                             "head -c " + std::to_string(kBytes) + " /dev/zero | tr '\\000' x\n");
  long max_rss_kb = 0;
  ASSERT_EQ(SubmitMeasured(dir.path(), {"--num-workers", "1", "sh", "worker.sh"}, &max_rss_kb), 0)
      << ringboost::test::ReadFile(dir.File("submit.err"));
  const std::string out = ringboost::test::ReadFile(dir.File("submit.out"));
  const std::string prefix = "[task 0] ", marker = kLineContinues;
  long relayed = 0, lines = 0;
  for (std::size_t at = 0; at < out.size(); ++lines) {
    const std::size_t nl = out.find('\n', at);
    ASSERT_NE(nl, std::string::npos);
    std::string line = out.substr(at, nl - at);
    at = nl + 1;
    ASSERT_EQ(line.compare(0, prefix.size(), prefix), 0) << line.substr(0, 40);
    line.erase(0, prefix.size());
    const bool last = at == out.size();
    if (!last) {
      ASSERT_GT(line.size(), marker.size());
      ASSERT_EQ(line.substr(line.size() - marker.size()), marker) << "line " << lines;
      line.resize(line.size() - marker.size());
    }
    ASSERT_LE(line.size(), kMaxLineBytes);
    ASSERT_EQ(line.find_first_not_of('x'), std::string::npos) << "line " << lines;
    relayed += static_cast<long>(line.size());
  }
  EXPECT_EQ(relayed, kBytes);
  EXPECT_EQ(lines, (kBytes + kMaxLineBytes - 1) / kMaxLineBytes);
  std::printf("a 32 MB line: peak memory %ld KiB\n", max_rss_kb);
  EXPECT_LT(max_rss_kb, 40 * 1024);
}

}  // namespace
}  // namespace ringboost::submit

// The relay of workers' output through ringboost-submit, with real worker processes: the bytes of
// a line arrive as they were written (NUL bytes too), on stdout and in --log-file.
#include <gtest/gtest.h>

#include <string>

#include "helpers.h"
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

}  // namespace
}  // namespace ringboost::submit

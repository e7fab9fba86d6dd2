// A newcomer's first hour (issue 25): the README's distributed commands run as written, progress
// shows where output is watched and stays out of logs, and a missing file names its config key.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool HaveScript() { return std::system("command -v script >/dev/null 2>&1") == 0; }

// dir/p.conf: 3 rounds on 200 generated rows, no eval set.
void WriteSmallJob(const test::TempDir& dir) {
  test::WriteGeneratedDense(dir.File("d.txt"), 200);
  test::WriteFile(dir.File("p.conf"),
                  "objective = binary:logistic\nnum_round = 3\nmax_depth = 3\n"
                  "data = \"d.txt\"\nmodel_out = \"m.json\"\n");
}

// The lines of README.md's code blocks that start with one of `prefixes`.
std::vector<std::string> ReadmeCommands(const std::vector<std::string>& prefixes) {
  std::ifstream readme(test::SourceDir() + "/README.md");
  std::vector<std::string> found;
  bool in_code = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    for (const std::string& prefix : prefixes) {
      if (in_code && line.rfind(prefix, 0) == 0) found.push_back(line);
    }
  }
  return found;
}

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (auto at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// The README's one-machine distributed commands, as a newcomer pastes them (as root, on a
// machine with fewer cores than workers, too): each trains and writes the model.
TEST(Readme, DistributedCommandsRunAsWritten) {
  std::vector<std::string> commands =
      ReadmeCommands({"build/ringboost-submit --cluster local",
                      "build/ringboost-submit --cluster mpi", "mpirun "});
  ASSERT_GE(commands.size(), 2u) << "README.md lost its distributed examples";
  const bool have_mpirun = std::system("command -v mpirun >/dev/null 2>&1") == 0;
  for (std::string command : commands) {
    if (!have_mpirun && (Contains(command, "mpirun") || Contains(command, "--cluster mpi"))) {
      continue;
    }
    test::TempDir dir;
    WriteSmallJob(dir);
    ReplaceAll(&command, "build/ringboost-submit", RINGBOOST_SUBMIT);
    ReplaceAll(&command, "build/ringboost ", std::string(RINGBOOST_EXE) + " ");
    ReplaceAll(&command, " CONF", " p.conf");
    test::RunResult r = test::RunInDir(dir.path(), "timeout 120 " + command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
    EXPECT_TRUE(test::FileExists(dir.File("m.json"))) << command << "\n" << r.out << r.err;
  }
}

// RINGBOOST_PROGRESS=lines: the first and last rounds as whole lines, no carriage returns.
TEST(Progress, LinesModePrintsRoundsWithoutAnEvalSet) {
  test::TempDir dir;
  WriteSmallJob(dir);
  test::RunResult r = test::RunInDir(
      dir.path(), "RINGBOOST_PROGRESS=lines '" + std::string(RINGBOOST_EXE) + "' train p.conf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "[ringboost] round 1/3, ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "[ringboost] round 3/3, ")) << r.err;
  EXPECT_TRUE(Contains(r.err, " elapsed, ETA ")) << r.err;
  EXPECT_FALSE(Contains(r.err, "\r")) << r.err;
  // Not a terminal and nothing asked: the log stays clean.
  r = test::RunRingboost(dir.path(), "train p.conf");
  EXPECT_FALSE(Contains(r.err, "round")) << r.err;
}

// ringboost-submit on a terminal asks its workers for progress lines, which it relays.
TEST(Progress, SubmitOnATerminalRelaysRankZerosProgress) {
  if (!HaveScript()) GTEST_SKIP() << "`script` (util-linux) not found: no pty";
  test::TempDir dir;
  WriteSmallJob(dir);
  const std::string cmd = "cd '" + dir.path() + "' && env -u RINGBOOST_PROGRESS script -qec \"'" +
                          RINGBOOST_SUBMIT + "' --num-workers 2 '" + RINGBOOST_EXE +
                          "' train p.conf\" /dev/null > out.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::ReadFile(dir.File("out.txt"));
  const std::string out = test::ReadFile(dir.File("out.txt"));
  EXPECT_TRUE(Contains(out, "[rank 0] [ringboost] round 3/3, ")) << out;
  EXPECT_FALSE(Contains(out, "[rank 1] [ringboost] round")) << out;
}

// scripts/demo builds the ringboost program only (here a no-op in this build folder, which keeps
// its settings) and says what each step does, then trains.
TEST(Demo, BuildsOnlyTheProgramAndSaysWhatItDoes) {
  test::TempDir dir;
  test::RunResult r = test::RunInDir(
      test::SourceDir(), "SKIP_APT=1 BUILD_DIR='" + std::string(RINGBOOST_BINARY_DIR) +
                             "' timeout 240 bash scripts/demo regression num_round=2 nthread=1 "
                             "model_out='" +
                             dir.File("m.json") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "[demo] step 1 of 2: building ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "[setup] building ringboost only with ")) << r.out;
  EXPECT_FALSE(Contains(r.out, "everything")) << r.out;
  EXPECT_TRUE(Contains(r.out, "[demo] step 2 of 2: training: ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "[1]\ttest-rmse:")) << r.out;
  EXPECT_TRUE(test::FileExists(dir.File("m.json")));
}

TEST(DataKey, MissingFilesNameTheirConfigKey) {
  test::TempDir dir;
  WriteSmallJob(dir);
  test::RunResult r = test::RunRingboost(dir.path(), "train p.conf 'eval[valid]=nope.txt'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err,
                       "error: eval[valid]: cannot open 'nope.txt': No such file or "
                       "directory (relative to "))
      << r.err;
  r = test::RunRingboost(dir.path(), "train p.conf data=gone.txt");
  EXPECT_TRUE(Contains(r.err, "error: data: cannot open 'gone.txt'")) << r.err;
  ASSERT_EQ(test::RunRingboost(dir.path(), "train p.conf").exit_code, 0);
  r = test::RunRingboost(dir.path(), "predict p.conf model_in=m.json test:data=gone.txt");
  EXPECT_TRUE(Contains(r.err, "error: test:data: cannot open 'gone.txt'")) << r.err;
}

// A CSV with a header row trains as the same rows without it.
TEST(CsvHeader, TrainsAsTheHeaderlessFile) {
  test::TempDir dir;
  std::string rows;
  for (int i = 0; i < 40; ++i) {
    rows +=
        std::to_string(i % 3 == 0) + "," + std::to_string(i) + "," + std::to_string(i % 7) + "\n";
  }
  test::WriteFile(dir.File("plain.csv"), rows);
  test::WriteFile(dir.File("named.csv"), "y,a,b\n" + rows);
  const std::string common = "train /dev/null objective=binary:logistic num_round=2 ";
  ASSERT_EQ(test::RunRingboost(dir.path(), common + "'data=plain.csv?format=csv&label_column=0' "
                                                    "model_out=plain.json")
                .exit_code,
            0);
  test::RunResult r =
      test::RunRingboost(dir.path(), common +
                                         "'data=named.csv?format=csv&header=1&label_column=y' "
                                         "model_out=named.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::ReadFile(dir.File("named.json")), test::ReadFile(dir.File("plain.json")));
}

}  // namespace
}  // namespace ringboost

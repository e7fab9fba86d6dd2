// Outputs: every path a task writes is checked before the data is read, the error naming the key
// and the path as written; writes follow symbolic links to their targets and write FIFOs and
// devices in place, never replacing them with a regular file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

class Outputs : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteFile(dir_.File("d.txt"), "1 0:1 1:2\n0 0:2 1:1\n1 0:3 1:0\n0 0:4 1:5\n");
    // A malformed line: a run that reads the data before checking its outputs fails here.
    test::WriteFile(dir_.File("bad.txt"), "1 0:1\nnot a row\n");
    test::WriteFile(dir_.File("o.conf"),
                    "objective = binary:logistic\nnum_round = 2\nmin_child_weight = 0\n"
                    "data = \"d.txt\"\ntest:data = \"d.txt\"\n");
    ASSERT_EQ(test::RunRingboost(dir_.path(), "train o.conf model_out=m.json").exit_code, 0);
  }
  // Expects `args` to fail on the output path, naming `named`, before reading bad.txt.
  void ExpectPathError(const std::string& args, const std::string& named, const std::string& why) {
    test::RunResult r = test::RunRingboost(dir_.path(), args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find(named), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find(".tmp-"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("bad.txt"), std::string::npos) << r.err;  // the data was not read
  }
  bool IsFifo(const std::string& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  }
  test::TempDir dir_;
};

TEST_F(Outputs, EveryOutputPathIsCheckedBeforeTheDataIsRead) {
  const std::string does_not_exist = "the folder 'nodir' does not exist; create it";
  ExpectPathError("train o.conf data=bad.txt model_out=nodir/m.json", "model_out=nodir/m.json",
                  does_not_exist);
  for (const char* folder : {"nodir/", "m.json/", "./"}) {
    ExpectPathError(std::string("train o.conf data=bad.txt model_out=") + folder,
                    std::string("model_out=") + folder + ": names a folder (it ends with '/')",
                    "name a file");
  }
  ExpectPathError("train o.conf data=bad.txt model_dir=nodir save_period=1", "model_dir=nodir",
                  "the folder does not exist");
  ExpectPathError("predict o.conf test:data=bad.txt model_in=m.json name_pred=nodir/p.txt",
                  "name_pred=nodir/p.txt", does_not_exist);
  ExpectPathError("predict o.conf test:data=bad.txt model_in=m.json name_pred=.", "name_pred=.",
                  "is a folder");
  ExpectPathError("dump o.conf model_in=m.json name_dump=nodir/d.txt", "name_dump=nodir/d.txt",
                  does_not_exist);
  ExpectPathError("train o.conf data=bad.txt model_out=x.json checkpoint_dir=d.txt/ck",
                  "checkpoint_dir=d.txt/ck", "'d.txt' is not a folder");
  // An output that can be written lets the run go on to the data.
  test::RunResult r = test::RunRingboost(dir_.path(), "train o.conf data=bad.txt model_out=x.json");
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
}

TEST_F(Outputs, CheckpointDirIsCreatedWithItsParents) {
  test::RunResult r =
      test::RunRingboost(dir_.path(), "train o.conf model_out=x.json checkpoint_dir=a/b/ck");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::FileExists(dir_.File("a/b/ck/checkpoint-000002.model")));
}

TEST_F(Outputs, ASymbolicLinkIsFollowedToItsTarget) {
  fs::create_directory(dir_.File("models"));
  test::WriteFile(dir_.File("models/target.json"), "old");
  fs::create_symlink("models/target.json", dir_.File("link.json"));
  fs::create_symlink("nowhere/t.json", dir_.File("dangling.json"));
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train o.conf model_out=link.json").exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir_.File("link.json")));
  EXPECT_EQ(test::ReadFile(dir_.File("models/target.json")), test::ReadFile(dir_.File("m.json")));
  // A link into a folder that does not exist names both.
  ExpectPathError("train o.conf data=bad.txt model_out=dangling.json", "model_out=dangling.json",
                  "the folder 'nowhere' does not exist (the link leads to 'nowhere/t.json')");
}

TEST_F(Outputs, AFifoIsWrittenInPlace) {
  ASSERT_EQ(::mkfifo(dir_.File("p.fifo").c_str(), 0644), 0);
  const std::string cmd =
      "cd '" + dir_.path() + "' && (timeout 20 cat p.fifo > got.txt &) && timeout 20 '" +
      RINGBOOST_EXE + "' predict o.conf model_in=m.json name_pred=p.fifo > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(IsFifo(dir_.File("p.fifo")));
  ASSERT_EQ(test::RunRingboost(dir_.path(), "predict o.conf model_in=m.json").exit_code, 0);
  for (int i = 0; i < 100 && test::ReadFile(dir_.File("got.txt")).empty(); ++i) {
    std::system("sleep 0.05");  // the reader may still be writing got.txt
  }
  EXPECT_EQ(test::ReadFile(dir_.File("got.txt")), test::ReadFile(dir_.File("pred.txt")));
}

TEST_F(Outputs, DevStdoutIsTheProcessOutput) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "predict o.conf model_in=m.json").exit_code, 0);
  const std::string expected = test::ReadFile(dir_.File("pred.txt"));
  // stdout a file (RunRingboost redirects it) and a pipe.
  test::RunResult to_file =
      test::RunRingboost(dir_.path(), "predict o.conf model_in=m.json name_pred=/dev/stdout");
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, expected);
  test::RunResult to_pipe = test::RunInDir(
      dir_.path(), "('" + std::string(RINGBOOST_EXE) +
                       "' predict o.conf model_in=m.json name_pred=/dev/stdout | cat)");
  ASSERT_EQ(to_pipe.exit_code, 0) << to_pipe.err;
  EXPECT_EQ(to_pipe.out, expected);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

// name_pred and name_dump "stdout" (XGBoost's CLI's name for it) and "-" write standard output,
// not a file of that name; a data file named "stdout" is not an output that would overwrite it.
TEST_F(Outputs, StdoutAndDashAreStandardOutput) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "predict o.conf model_in=m.json").exit_code, 0);
  ASSERT_EQ(test::RunRingboost(dir_.path(), "dump o.conf model_in=m.json").exit_code, 0);
  const std::string pred = test::ReadFile(dir_.File("pred.txt"));
  const std::string dump = test::ReadFile(dir_.File("dump.txt"));
  for (const std::string name : {"stdout", "-"}) {
    test::RunResult r =
        test::RunRingboost(dir_.path(), "predict o.conf model_in=m.json name_pred=" + name);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, pred) << name;
    r = test::RunRingboost(dir_.path(), "dump o.conf model_in=m.json name_dump=" + name);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, dump) << name;
    EXPECT_FALSE(test::FileExists(dir_.File(name))) << name;
  }
  fs::copy_file(dir_.File("d.txt"), dir_.File("stdout"));
  const test::RunResult r = test::RunRingboost(
      dir_.path(), "predict o.conf model_in=m.json test:data=stdout name_pred=stdout");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, pred);
  EXPECT_EQ(test::ReadFile(dir_.File("stdout")), test::ReadFile(dir_.File("d.txt")));
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// An output naming one of the task's inputs is refused before any work, naming both keys, and
// the input is left as it was; model_out over model_in stays a continued model.
TEST_F(Outputs, AnOutputNamingAnInputIsRefusedAndTheInputKept) {
  const std::string data = test::ReadFile(dir_.File("d.txt"));
  const std::string conf = test::ReadFile(dir_.File("o.conf"));
  const std::string model = test::ReadFile(dir_.File("m.json"));
  fs::create_symlink("d.txt", dir_.File("link.txt"));
  const struct {
    std::string args, named, input;
  } cases[] = {
      {"train o.conf model_out=d.txt", "model_out=d.txt: is also data=d.txt", "d.txt"},
      {"train o.conf model_out=./link.txt", "model_out=./link.txt: is also data=d.txt", "d.txt"},
      {"train o.conf model_out=x.json eval_train=1 eval_history=d.txt",
       "eval_history=d.txt: is also data=d.txt", "d.txt"},
      {"train o.conf model_out=x.json eval[t]=link.txt eval_history=link.txt",
       "eval_history=link.txt: is also data=d.txt", "d.txt"},
      {"train o.conf model_out=o.conf", "model_out=o.conf: is also the config file", "o.conf"},
      {"train o.conf model_out=h.csv eval_train=1 eval_history=h.csv",
       "model_out=h.csv: is also eval_history", ""},
      {"predict o.conf model_in=m.json name_pred=d.txt", "name_pred=d.txt: is also test:data",
       "d.txt"},
      {"predict o.conf model_in=m.json name_pred=m.json", "name_pred=m.json: is also model_in",
       "m.json"},
      {"dump o.conf model_in=m.json name_dump=m.json", "name_dump=m.json: is also model_in",
       "m.json"},
      {"dump m.json -o m.json", "--output=m.json: is also MODEL=m.json", "m.json"},
      {"export m.json -o m.json", "--output=m.json: is also MODEL=m.json", "m.json"},
      {"importance m.json -o m.json", "--output=m.json: is also MODEL=m.json", "m.json"},
  };
  for (const auto& c : cases) {
    const test::RunResult r = test::RunRingboost(dir_.path(), c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::ReadFile(dir_.File("d.txt")), data) << c.args;
    EXPECT_EQ(test::ReadFile(dir_.File("o.conf")), conf) << c.args;
    EXPECT_EQ(test::ReadFile(dir_.File("m.json")), model) << c.args;
    EXPECT_FALSE(test::FileExists(dir_.File("h.csv"))) << c.args;
  }
  const test::RunResult more =
      test::RunRingboost(dir_.path(), "train o.conf model_in=m.json model_out=m.json");
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(test::ReadFile(dir_.File("m.json")), model);  // four rounds now
}

// export -o - writes standard output, as dump, importance and plot do, not a file named "-".
TEST_F(Outputs, ExportToDashIsStandardOutput) {
  const test::RunResult r = test::RunRingboost(dir_.path(), "export m.json -o -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"learner\":", 0), 0u) << r.out.substr(0, 80);
  EXPECT_FALSE(test::FileExists(dir_.File("-")));
}

// Standard output that cannot be written (a full disk: /dev/full) fails the run, naming it.
TEST_F(Outputs, AFailedWriteOfStandardOutputFailsTheRun) {
  for (const char* args : {"dump m.json", "importance m.json", "export m.json -o -",
                           "train o.conf eval_train=1 model_out=m2.json"}) {
    const test::RunResult r = test::RunInDir(
        dir_.path(), "{ '" + std::string(RINGBOOST_EXE) + "' " + args + " > /dev/full; }");
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.err.find("cannot write standard output"), std::string::npos) << args << "\n"
                                                                             << r.err;
  }
}

// An eval history on a FIFO or a device is written once, whole, after the last round: rewriting
// it each round blocked on a FIFO whose reader had left, and repeated it on /dev/stdout.
TEST_F(Outputs, AnEvalHistoryOnAFifoOrStdoutIsWrittenOnce) {
  const std::string args = "train o.conf model_out=m2.json eval_train=1 num_round=4 ";
  ASSERT_EQ(test::RunRingboost(dir_.path(), args + "eval_history=h.csv").exit_code, 0);
  const std::string expected = test::ReadFile(dir_.File("h.csv"));
  EXPECT_EQ(std::count(expected.begin(), expected.end(), '\n'), 5) << expected;
  const test::RunResult out = test::RunRingboost(dir_.path(), args + "eval_history=/dev/stdout");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out.substr(out.out.find("iteration")), expected) << out.out;
  ASSERT_EQ(::mkfifo(dir_.File("h.fifo").c_str(), 0644), 0);
  const std::string cmd = "cd '" + dir_.path() +
                          "' && (timeout 60 cat h.fifo > got.csv &) && timeout 60 '" +
                          RINGBOOST_EXE + "' " + args + "eval_history=h.fifo > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  for (int i = 0; i < 100 && test::ReadFile(dir_.File("got.csv")) != expected; ++i) {
    std::system("sleep 0.05");  // the reader may still be writing got.csv
  }
  EXPECT_EQ(test::ReadFile(dir_.File("got.csv")), expected);
  EXPECT_TRUE(IsFifo(dir_.File("h.fifo")));
}

}  // namespace
}  // namespace ringboost

// checkpoint_dir belongs to one run: the same command resumes it (a larger num_round continues
// it), anything that changes the model (a parameter, the data, model_in, fewer rounds) is refused
// with a message naming what differs and how to start fresh, and checkpoint_mismatch=fresh
// trains from scratch, to the model of a run without checkpoints.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

class RunIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    test::WriteGeneratedDense(dir_.File("train.txt"), 400);
    test::WriteFile(dir_.File("a.conf"),
                    "objective = binary:logistic\nmax_depth = 3\nnum_round = 4\n"
                    "subsample = 0.8\ndata = \"train.txt\"\n");
  }
  // `ringboost train a.conf checkpoint_dir=ck model_out=OUT args`.
  test::RunResult Train(const std::string& out, const std::string& args = "") {
    return test::RunRingboost(dir_.path(),
                              "train a.conf checkpoint_dir=ck model_out=" + out + " " + args);
  }
  // The model of a run without checkpoints.
  std::string Reference(const std::string& args) {
    EXPECT_EQ(test::RunRingboost(dir_.path(), "train a.conf model_out=ref.json " + args).exit_code,
              0);
    return test::ReadFile(dir_.File("ref.json"));
  }
  // Expects a refusal that names `what` and both ways to start fresh.
  void ExpectRefused(const test::RunResult& r, const std::string& what) {
    EXPECT_NE(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("checkpoint of another run"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("checkpoint_mismatch=fresh"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("remove the folder ck"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal check"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("resuming"), std::string::npos) << r.err;
  }
  test::TempDir dir_;
};

TEST_F(RunIdentity, SameCommandResumesAndGivesTheSameModel) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  test::RunResult again = Train("m2.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resuming from round 4"), std::string::npos) << again.err;
  EXPECT_EQ(test::ReadFile(dir_.File("m2.json")), test::ReadFile(dir_.File("m1.json")));
  EXPECT_EQ(test::ReadFile(dir_.File("m1.json")), Reference(""));
}

TEST_F(RunIdentity, AnotherParameterIsRefusedNamingIt) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  ExpectRefused(Train("m2.json", "eta=0.1"), "eta was '0.3', now '0.1'");
  ExpectRefused(Train("m2.json", "max_depth=5"), "max_depth was '3', now '5'");
  EXPECT_FALSE(test::FileExists(dir_.File("m2.json")));
}

TEST_F(RunIdentity, AnotherObjectiveIsRefusedNotAnInternalCheck) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  ExpectRefused(Train("m2.json", "objective=reg:logistic"),
                "objective was 'binary:logistic', now 'reg:logistic'");
}

TEST_F(RunIdentity, ChangedDataOfTheSameSizeIsRefused) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  std::string data = test::ReadFile(dir_.File("train.txt"));
  data[0] = data[0] == '1' ? '0' : '1';  // one label flipped: same path, same size
  test::WriteFile(dir_.File("train.txt"), data);
  test::RunResult r = Train("m2.json");
  ExpectRefused(r, "data.fingerprint was");
  EXPECT_EQ(r.err.find("data.bytes"), std::string::npos) << r.err;
}

TEST_F(RunIdentity, OtherDataFileIsRefusedNamingPathAndSize) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  test::WriteGeneratedDense(dir_.File("other.txt"), 300);
  test::RunResult r = Train("m2.json", "data=other.txt");
  ExpectRefused(r, "data was '");
  EXPECT_NE(r.err.find("other.txt'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data.rows was '400', now '300'"), std::string::npos) << r.err;
}

TEST_F(RunIdentity, FreshTrainsFromScratchAndReplacesTheCheckpoint) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  test::RunResult r = Train("m2.json", "eta=0.1 checkpoint_mismatch=fresh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("training from scratch"), std::string::npos) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("m2.json")), Reference("eta=0.1"));
  // Its checkpoint is now the one the same command resumes.
  test::RunResult again = Train("m3.json", "eta=0.1");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resuming from round 4"), std::string::npos) << again.err;
}

TEST_F(RunIdentity, LargerNumRoundContinues) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  test::RunResult r = Train("m2.json", "num_round=6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming from round 4"), std::string::npos) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("m2.json")), Reference("num_round=6"));
}

// Fewer rounds are another model: refused, or trained from scratch with checkpoint_mismatch=fresh.
TEST_F(RunIdentity, SmallerNumRoundIsAnotherModel) {
  ASSERT_EQ(Train("m1.json").exit_code, 0);
  ExpectRefused(Train("m2.json", "num_round=2"), "it holds 4 rounds, more than num_round=2");
  ASSERT_EQ(Train("m2.json", "num_round=2 checkpoint_mismatch=fresh").exit_code, 0);
  EXPECT_EQ(test::ReadFile(dir_.File("m2.json")), Reference("num_round=2"));
}

// model_in's rounds are not this run's: a run continuing model_in, killed and started again,
// still adds num_round rounds to it.
TEST_F(RunIdentity, ContinuationOfModelInResumesToTheSameModel) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train a.conf num_round=2 model_out=in.json").exit_code,
            0);
  const std::string full = Reference("model_in=in.json");
  const std::string cmd = "cd '" + dir_.path() + "' && RINGBOOST_TEST_KILL_AT=0:2 '" +
                          RINGBOOST_EXE +
                          "' train a.conf model_in=in.json checkpoint_dir=ck model_out=r.json "
                          ">/dev/null 2>&1";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  ASSERT_TRUE(test::FileExists(dir_.File("ck/checkpoint-000002.model")));  // this run's rounds
  test::RunResult r = Train("r.json", "model_in=in.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming from round 2"), std::string::npos) << r.err;
  EXPECT_EQ(test::ReadFile(dir_.File("r.json")), full);
  // Another model_in is another run.
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train a.conf num_round=1 model_out=in.json").exit_code,
            0);
  ExpectRefused(Train("r.json", "model_in=in.json"), "model_in.fingerprint was");
}

// A checkpoint written before runs recorded their identity is refused, not resumed.
TEST_F(RunIdentity, CheckpointWithoutIdentityIsRefused) {
  ASSERT_EQ(test::RunRingboost(dir_.path(), "train a.conf model_out=old.model").exit_code, 0);
  std::filesystem::create_directory(dir_.File("ck"));
  std::filesystem::copy_file(dir_.File("old.model"), dir_.File("ck/checkpoint-000004.model"));
  ExpectRefused(Train("m.json"), "records no identity of its run");
}

}  // namespace
}  // namespace ringboost

namespace ringboost {
namespace {

// A checkpoint damaged in one digit of a leaf (a disk's bit flip) is found by its checksum, not
// resumed into another model.
TEST_F(RunIdentity, DamagedCheckpointIsRefusedNotResumed) {
  ASSERT_EQ(Train("m1.json", "num_round=2").exit_code, 0);
  const std::string path = dir_.File("ck/checkpoint-000002.model");
  std::string text = test::ReadFile(path);
  const std::size_t leaf = text.find("\"leaf_values\":[");
  ASSERT_NE(leaf, std::string::npos) << text.substr(0, 400);
  std::size_t digit = text.find_first_of("123456789", leaf);
  text[digit] = text[digit] == '9' ? '8' : static_cast<char>(text[digit] + 1);
  test::WriteFile(path, text);
  const test::RunResult r = Train("m2.json", "num_round=3");
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("holds a checkpoint it cannot trust"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not match the checksum written with it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("resuming"), std::string::npos) << r.err;
  EXPECT_FALSE(test::FileExists(dir_.File("m2.json")));
}

// A checkpoint that cannot be read stops every rank with the same error, naming it.
TEST(RunIdentityFiles, UnreadableCheckpointIsRefusedNamingIt) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 100);
  std::filesystem::create_directory(dir.File("ck"));
  test::WriteFile(dir.File("ck/checkpoint-000002.model"), "{\"half\": ");
  test::WriteFile(dir.File("a.conf"), "objective = binary:logistic\ndata = \"train.txt\"\n");
  test::RunResult r =
      test::RunRingboost(dir.path(), "train a.conf checkpoint_dir=ck model_out=m.json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(
      r.err.find("a checkpoint it cannot trust (ck/checkpoint-000002.model):\n  it cannot be read"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("checkpoint_mismatch=fresh"), std::string::npos) << r.err;
}

// From round 1,000,000 on a checkpoint's name has more than six digits (%06d): the newest is
// still found (here a damaged one, refused by name, where it used to be passed over).
TEST(RunIdentityFiles, CheckpointNamesPastSixDigitsAreRead) {
  test::TempDir dir;
  test::WriteGeneratedDense(dir.File("train.txt"), 100);
  std::filesystem::create_directory(dir.File("ck"));
  test::WriteFile(dir.File("ck/checkpoint-000002.model"), "{\"half\": ");
  test::WriteFile(dir.File("ck/checkpoint-1000000.model"), "{\"half\": ");
  test::WriteFile(dir.File("a.conf"), "objective = binary:logistic\ndata = \"train.txt\"\n");
  test::RunResult r =
      test::RunRingboost(dir.path(), "train a.conf checkpoint_dir=ck model_out=m.json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("a checkpoint it cannot trust (ck/checkpoint-1000000.model)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ringboost

// Must-show 4 of the core trainer: a corpus of bad inputs, each a clear error, a non-zero exit and
// nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "cli_runner.h"
#include "helpers.h"

namespace ringboost {
namespace {

namespace fs = std::filesystem;

struct BadCase {
  const char* name;
  const char* train;   // content of train.txt ("" = not created)
  const char* args;    // after `ringboost train conf`
  const char* expect;  // substring of stderr
};

const char* kConf = "objective = binary:logistic\nnum_round = 2\ndata = \"train.txt\"\n";
const char* kGood = "1 0:1 2:0.5\n0 1:1\n1 0:2 1:3\n0 2:1\n";

const BadCase kCases[] = {
    {"value_not_a_number", "1 0:1\n0 1:abc\n", "", "train.txt:2:3:"},
    {"missing_feature_id", "1 :3\n", "", "train.txt:1:3:"},
    {"token_without_colon", "1 0:1 abc\n", "", "train.txt:1:7:"},
    {"feature_id_too_large", "1 4294967296:1\n", "", "train.txt:1:3:"},
    {"nan_label", "nan 0:1\n", "", "train.txt:1:1:"},
    {"missing_label", "qid:3 0:1\n", "", "train.txt:1:1:"},
    {"label_outside_objective", "1 0:1\n2 0:1\n", "", "train.txt:2:1:"},
    {"negative_label_poisson", "1 0:1\n-1 0:1\n", "objective=count:poisson", "train.txt:2:1:"},
    {"empty_value", "1 0:\n", "", "train.txt:1:3:"},
    {"csv_not_a_number", "1,2,3\n0,x,1\n", "'data=train.txt?format=csv&label_column=0'",
     "train.txt:2:3:"},
    {"unknown_key", kGood, "etta=0.1", "did you mean 'eta'"},
    {"depth_out_of_range", kGood, "max_depth=-1", "max_depth"},
    {"eta_not_a_number", kGood, "eta=abc", "eta"},
    {"unknown_objective", kGood, "objective=binary:foo", "binary:logistic"},
    {"subsample_zero", kGood, "subsample=0", "subsample"},
    {"missing_data_file", "", "", "train.txt"},
    {"empty_data_file", "\n", "", "train.txt"},
    {"missing_model_in", kGood, "model_in=absent.model", "absent.model"},
    // No GPU here: "built without CUDA" or "no CUDA device", both naming the key's value.
    {"device_cuda_not_available", kGood, "device=cuda", "device=cuda: "},
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

std::set<std::string> ListFiles(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

TEST_P(BadInput, ClearErrorNonZeroExitNothingWritten) {
  const BadCase& c = GetParam();
  test::TempDir dir;
  test::WriteFile(dir.File("train.conf"), kConf);
  if (c.train[0] != '\0') test::WriteFile(dir.File("train.txt"), c.train);
  std::set<std::string> before = ListFiles(dir.path());
  test::RunResult r = test::RunRingboost(dir.path(), std::string("train train.conf ") + c.args);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr: " << r.err;
  before.insert(".stdout");
  before.insert(".stderr");
  std::set<std::string> after = ListFiles(dir.path());
  after.insert(".stdout");
  after.insert(".stderr");
  EXPECT_EQ(after, before) << "files were written";
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(BadInputCli, MissingConfigFile) {
  test::TempDir dir;
  test::RunResult r = test::RunRingboost(dir.path(), "train absent.conf");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("absent.conf"), std::string::npos) << r.err;
}

TEST(BadInputCli, GoodInputTrains) {
  test::TempDir dir;
  test::WriteFile(dir.File("train.conf"), kConf);
  test::WriteFile(dir.File("train.txt"), kGood);
  test::RunResult r = test::RunRingboost(dir.path(), "train train.conf model_out=m.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::FileExists(dir.File("m.json")));
}

}  // namespace
}  // namespace ringboost

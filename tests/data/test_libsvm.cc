#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/data.h"
#include "data_test_util.h"
#include "helpers.h"

namespace ringboost {
namespace {

using test::LoadError;
using test::TempDir;
using test::WriteFile;

TEST(LibSVM, ReadsRowsLabelsAndEntries) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.txt"), "1 0:0.5 3:2\n0 2:-1.5e1\n+1\n");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.NumRows(), 3u);
  EXPECT_EQ(d.row_ptr, (std::vector<uint64_t>{0, 2, 3, 3}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 3, 2}));
  EXPECT_EQ(d.value, (std::vector<float>{0.5f, 2.0f, -15.0f}));
  EXPECT_EQ(d.label, (std::vector<float>{1, 0, 1}));
  EXPECT_TRUE(d.weight.empty());
  EXPECT_TRUE(d.group_ptr.empty());
  EXPECT_EQ(d.num_col, 4u);
  EXPECT_EQ(d.name, f);
}

// A UTF-8 byte-order mark at the start of a data or side file is skipped, as XGBoost does.
TEST(LibSVM, ByteOrderMarkIsSkipped) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.txt"),
                            "\xEF\xBB\xBF"
                            "1 1:2\n0 2:3\n");
  WriteFile(f + ".weight",
            "\xEF\xBB\xBF"
            "0.5\r\n2\r\n");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(d.weight, (std::vector<float>{0.5f, 2}));
  // A second mark is no mark: bad bytes, reported.
  std::string g = WriteFile(dir.File("b.txt"),
                            "\xEF\xBB\xBF\xEF\xBB\xBF"
                            "1 1:2\n");
  EXPECT_NE(LoadError(g).find(g + ":1:4: bad label"), std::string::npos) << LoadError(g);
}

TEST(LibSVM, CommentsBlankLinesCrlfAndNoFinalNewline) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.txt"),
                            "# header comment\r\n\r\n1 1:2 # trailing\r\n   \r\n0\t4:1#x\r\n2 5:3");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0, 2}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{1, 4, 5}));
  EXPECT_EQ(d.value, (std::vector<float>{2, 1, 3}));
}

// A lone '\r' (old Mac line ends) would join two rows into one here, where XGBoost reads two:
// an error at the '\r', whichever token follows. '\r' before '\n' or blanks only is CRLF.
TEST(LibSVM, LoneCarriageReturnInsideALineIsAnError) {
  TempDir dir;
  const std::string why =
      ": a carriage return (\\r) inside a line: old Mac line ends? Convert them to \\n (tr '\\r' "
      "'\\n' < IN > OUT)";
  for (const auto& [text, column] : std::vector<std::pair<std::string, int>>{
           {"1:0.5 1:3\r0:2 2:3\r", 10},  // would be one row of weight 0.5
           {"1 1:3\r0 2:3\r", 6},
           {"1\r0 2:3\n", 2},
           {"1 qid:3 \r 0 2:3\n", 9}}) {
    const std::string f = WriteFile(dir.File("cr.txt"), text);
    EXPECT_EQ(LoadError(f), f + ":1:" + std::to_string(column) + why) << text;
  }
  const std::string f = WriteFile(dir.File("crlf.txt"), "1 1:3 \r \r\n0 2:3\r # x\r\n");
  EXPECT_EQ(LoadData(f, {}).label, (std::vector<float>{1, 0}));
}

TEST(LibSVM, NanValueIsMissingZeroIsStored) {
  TempDir dir;
  DataSet d = LoadData(WriteFile(dir.File("a"), "1 0:nan 1:0 2:NaN\n"), {});
  EXPECT_EQ(d.index, (std::vector<uint32_t>{1}));
  EXPECT_EQ(d.value, (std::vector<float>{0}));
}

TEST(LibSVM, IndexingModes) {
  TempDir dir;
  std::string one = WriteFile(dir.File("one"), "1 1:5 3:6\n");
  std::string zero = WriteFile(dir.File("zero"), "1 0:5 3:6\n");
  LoadOptions opt;
  EXPECT_EQ(LoadData(one, opt).index, (std::vector<uint32_t>{1, 3}));
  opt.indexing_mode = 1;
  DataSet d = LoadData(one, opt);
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(d.num_col, 3u);
  EXPECT_EQ(LoadError(zero, opt),
            zero + ":1:3: feature id 0 in '0:5' with indexing_mode=1 (ids start at 1)");
  opt.indexing_mode = -1;
  EXPECT_EQ(LoadData(one, opt).index, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(LoadData(zero, opt).index, (std::vector<uint32_t>{0, 3}));
  // The URI option overrides the option struct.
  EXPECT_EQ(LoadData(one + "?indexing_mode=1", {}).index, (std::vector<uint32_t>{0, 2}));
  // As the indexing_mode key: -1, 0 or 1, nothing else.
  for (const char* mode : {"5", "-7"}) {
    const std::string uri = one + "?indexing_mode=" + mode;
    EXPECT_EQ(LoadError(uri), "data URI '" + uri + "': indexing_mode=" + mode +
                                  ": expected an integer in [-1, 1] (0: ids count from 0, 1: "
                                  "from 1, -1: detect)");
  }
}

TEST(LibSVM, UnsortedRowIsSortedDuplicateIsError) {
  TempDir dir;
  DataSet d = LoadData(WriteFile(dir.File("a"), "1 5:1 2:2 9:3 0:4\n"), {});
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 2, 5, 9}));
  EXPECT_EQ(d.value, (std::vector<float>{4, 2, 1, 3}));
  std::string dup = WriteFile(dir.File("dup"), "1 1:1\n0 1:1 2:1 2:3\n");
  EXPECT_EQ(LoadError(dup), dup + ":2:11: duplicate feature id 2 in this row");
  std::string dup2 = WriteFile(dir.File("dup2"), "0 7:1 2:1 7:3\n");
  EXPECT_EQ(LoadError(dup2), dup2 + ":1:11: duplicate feature id 7 in this row");
  // A NaN entry is not stored, but its id counts: repeated out of order, it is still found.
  std::string nan = WriteFile(dir.File("nan"), "1 3:nan 1:2 3:4\n");
  EXPECT_EQ(LoadError(nan), nan + ":1:13: duplicate feature id 3 in this row");
}

TEST(LibSVM, LabelWeightToken) {
  TempDir dir;
  DataSet d = LoadData(WriteFile(dir.File("a"), "1:0.5 0:1\n0 0:2\n"), {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.weight, (std::vector<float>{0.5f, 1.0f}));
}

TEST(LibSVM, MalformedTokensNameFileLineColumn) {
  TempDir dir;
  struct Case {
    std::string text, message;
  };
  std::vector<Case> cases = {
      {"1 0:1\n1 1:abc\n", "2:3: bad feature value in '1:abc' (expected a number)"},
      {"1 :3\n", "1:3: bad feature id in ':3' (expected a non-negative integer)"},
      {"1 2:1 abc\n", "1:7: bad feature 'abc' (expected index:value)"},
      {"1  3:\n", "1:4: missing value in '3:'"},
      {"1 2147483648:1\n",
       "1:3: feature id out of range in '2147483648:1' (ids must be in [0, 2147483646])"},
      {"1 -1:1\n", "1:3: feature id out of range in '-1:1' (ids must be in [0, 2147483646])"},
      {"1 2147483647:1\n",
       "1:3: feature id out of range in '2147483647:1' (ids must be in [0, 2147483646])"},
      {"1 1:1.5x\n", "1:3: bad feature value in '1:1.5x' (expected a number)"},
      {"1 1:inf\n", "1:3: infinite feature value in '1:inf'"},
      {"abc 1:1\n", "1:1: bad label 'abc' (expected a number)"},
      {"\n  nan 1:1\n", "2:3: label 'nan' is not a finite number"},
      {"inf\n", "1:1: label 'inf' is not a finite number"},
      {"1 qid:x 1:1\n", "1:3: bad query id in 'qid:x' (expected qid:N, N >= 0)"},
      {"1:abc 1:1\n", "1:1: bad weight in '1:abc' (expected label:weight)"},
      {"1:-2 1:1\n", "1:1: weight in '1:-2' must be finite and >= 0"},
      {"1 1:2\r\n0 x\r\n", "2:3: bad feature 'x' (expected index:value)"},
  };
  for (const auto& c : cases) {
    std::string f = WriteFile(dir.File("bad"), c.text);
    EXPECT_EQ(LoadError(f), f + ":" + c.message) << c.text;
  }
}

TEST(LibSVM, CheckLabelIsReportedAtTheLabel) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a"), "0 1:1\n 2 1:1\n");
  LoadOptions opt;
  opt.check_label = [](float v) -> const char* {
    return v == 0 || v == 1 ? nullptr : "label outside [0,1] for binary:logistic";
  };
  EXPECT_EQ(LoadError(f, opt), f + ":2:2: label outside [0,1] for binary:logistic");
}

TEST(LibSVM, MissingAndEmptyFiles) {
  TempDir dir;
  std::string missing = dir.File("nope");
  EXPECT_EQ(LoadError(missing), "cannot open '" + missing + "': No such file or directory");
  std::string empty = WriteFile(dir.File("empty"), "");
  EXPECT_EQ(LoadError(empty), empty + ": no data rows");
  std::string comments = WriteFile(dir.File("comments"), "# only\n\n  \n");
  EXPECT_EQ(LoadError(comments), comments + ": no data rows");
}

TEST(LibSVM, QidTokensFormGroupsOfEqualConsecutiveQids) {
  TempDir dir;
  std::string f =
      WriteFile(dir.File("a"), "1 qid:3 1:1\n0 qid:3 1:2\n1 qid:1 2:1\n0 qid:3 1:1\n1 qid:3\n");
  DataSet d = LoadData(f, {});
  EXPECT_EQ(d.group_ptr, (std::vector<uint32_t>{0, 2, 3, 5}));
  std::string mixed = WriteFile(dir.File("mixed"), "1 qid:3 1:1\n0 1:2\n");
  EXPECT_EQ(LoadError(mixed), mixed +
                                  ":2:1: this row has no qid: but other rows of the file have "
                                  "one; give every row a qid or none");
}

TEST(LibSVM, SideWeightAndQueryFiles) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 1:1\n0 1:2\n1 1:3\n0 1:4\n1 1:5\n");
  WriteFile(f + ".weight", "0.5\n0.5\n2\n2\n2\n");
  WriteFile(f + ".query", "2\n3\n");
  testing::internal::CaptureStderr();
  DataSet d = LoadData(f, {});
  const std::string warned = testing::internal::GetCapturedStderr();
  EXPECT_EQ(d.weight, (std::vector<float>{0.5f, 0.5f, 2, 2, 2}));
  EXPECT_EQ(d.group_ptr, (std::vector<uint32_t>{0, 2, 5}));
  // XGBoost ignores side files, so each one taken is named (by part 0 only).
  const std::string tail =
      "', as LightGBM reads it (XGBoost ignores side files); rename it if "
      "it is not meant for this data\n";
  EXPECT_EQ(warned, "[ringboost] warning: side file '" + f +
                        ".weight' gives the weight of each "
                        "row of '" +
                        f + tail + "[ringboost] warning: side file '" + f +
                        ".query' gives the query group sizes of '" + f + tail);
  LoadOptions part1;
  part1.part = 1;
  part1.num_parts = 2;
  testing::internal::CaptureStderr();
  LoadData(f, part1);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Ranking reads a group's first row's weight only (query_groups::GroupWeight): a group whose
// rows weigh differently is named, once.
TEST(LibSVM, UnequalWeightsInAQueryGroupAreNamed) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 1:1\n0 1:2\n1 1:3\n0 1:4\n1 1:5\n");
  WriteFile(f + ".weight", "1\n1\n2\n3\n4\n");
  WriteFile(f + ".query", "2\n3\n");
  testing::internal::CaptureStderr();
  LoadData(f, {});
  const std::string warned = testing::internal::GetCapturedStderr();
  const std::string expected = "[ringboost] warning: data '" + f +
                               "': query group 2 (rows 3-5) has rows of weight 2 and 3; ranking "
                               "weighs each group by its first row's weight, as XGBoost takes "
                               "one weight a group (give every row of a group its group's "
                               "weight)\n";
  EXPECT_NE(warned.find(expected), std::string::npos) << warned;
  EXPECT_EQ(warned.find("query group", warned.find(expected) + expected.size()), std::string::npos)
      << warned;
  // Weights without groups, or equal within each group: no such warning.
  std::string plain = WriteFile(dir.File("p"), "1 1:1\n0 1:2\n");
  WriteFile(plain + ".weight", "1\n2\n");
  testing::internal::CaptureStderr();
  LoadData(plain, {});
  EXPECT_EQ(testing::internal::GetCapturedStderr().find("query group"), std::string::npos);
}

TEST(LibSVM, XGBoostCacheSuffixIsCutWithAWarning) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 1:1\n0 1:2\n");
  for (const std::string& uri : {f + "#dtrain.cache", f + "?format=libsvm#dtrain.cache"}) {
    testing::internal::CaptureStderr();
    DataSet d = LoadData(uri, {});
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "[ringboost] warning: data '" + uri +
                  "': '#dtrain.cache' names an XGBoost external-memory cache; ringboost reads "
                  "the data into memory (compactly) and writes no cache\n");
    EXPECT_EQ(d.NumRows(), 2u);
    EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  }
  // A file whose name holds the '#' is read as named, with no warning.
  std::string hashed = WriteFile(dir.File("a#b"), "0 1:1\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(LoadData(hashed, {}).NumRows(), 1u);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(LoadError(dir.File("none#c")),
            "cannot open '" + dir.File("none") + "': No such file or directory");
}

TEST(LibSVM, GroupFileIsTheOldXGBoostName) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 1:1\n0 1:2\n1 1:3\n");
  WriteFile(f + ".group", "1\n2\n");
  EXPECT_EQ(LoadData(f, {}).group_ptr, (std::vector<uint32_t>{0, 1, 3}));
  WriteFile(f + ".query", "3\n");
  EXPECT_EQ(LoadError(f), "both '" + f + ".query' and '" + f +
                              ".group' exist; keep one of them (group sizes, one per line)");
}

TEST(LibSVM, SideFileCountsMustMatch) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 1:1\n0 1:2\n1 1:3\n");
  WriteFile(f + ".weight", "1\n2\n");
  EXPECT_EQ(LoadError(f), "'" + f + ".weight' has 2 weights but '" + f +
                              "' has 3 data rows; give one weight per data row");
  std::remove((f + ".weight").c_str());
  WriteFile(f + ".query", "2\n2\n");
  EXPECT_EQ(LoadError(f), "'" + f + ".query' has groups of 4 rows in all but '" + f +
                              "' has 3 data rows; the group sizes must add up to the row count");
  WriteFile(f + ".query", "2\nx\n");
  EXPECT_EQ(LoadError(f), f + ".query:2:1: bad group size 'x' (expected one integer > 0 per line)");
  // 1 + (2^64 - 1) + 3 wraps around to the row count: still an error, not a group past the end.
  WriteFile(f + ".query", "1\n18446744073709551615\n3\n");
  EXPECT_EQ(LoadError(f), "'" + f +
                              ".query' has group sizes that add up to more than 2^64 rows; '" + f +
                              "' has 3 data rows and the group sizes must add up to that");
}

TEST(LibSVM, WeightsBothInlineAndInSideFileIsError) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1:2 1:1\n");
  WriteFile(f + ".weight", "1\n");
  EXPECT_EQ(LoadError(f), f +
                              ": weights are given both in the data (label:weight or "
                              "weight_column) and by '" +
                              f + ".weight'; keep one");
}

TEST(LibSVM, SeveralFilesAndDirectories) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n");
  std::string b = WriteFile(dir.File("b"), "0 2:2\n2 3:3");  // no final newline
  WriteFile(dir.File("a.weight"), "7\n");
  WriteFile(dir.File("b.weight"), "8\n9\n");
  DataSet list = LoadData(b + ";" + a, {});
  EXPECT_EQ(list.label, (std::vector<float>{0, 2, 1}));
  EXPECT_EQ(list.weight, (std::vector<float>{8, 9, 7}));
  DataSet folder = LoadData(dir.path(), {});
  EXPECT_EQ(folder.label, (std::vector<float>{1, 0, 2}));
  EXPECT_EQ(folder.weight, (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(folder.index, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(folder.num_col, 4u);
}

TEST(LibSVM, ErrorLineNumbersInLaterFilesOfAList) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n1 1:1\n");
  std::string b = WriteFile(dir.File("b"), "0 2:2\n\n0 2:z\n");
  EXPECT_EQ(LoadError(a + ";" + b), b + ":3:3: bad feature value in '2:z' (expected a number)");
}

// A control byte in a bad token is shown escaped: a NUL would cut the message short.
TEST(LibSVM, ControlBytesInMessagesAreEscaped) {
  TempDir dir;
  std::string f = WriteFile(dir.File("nul"), std::string("1 0:1\n0 0:2\0\n", 13));
  EXPECT_EQ(LoadError(f), f + ":2:3: bad feature value in '0:2\\x00' (expected a number)");
}

TEST(LibSVM, UnknownUriOption) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n");
  EXPECT_EQ(LoadError(a + "?formt=csv"),
            "data URI '" + a +
                "?formt=csv': unknown option 'formt'; known: format, label_column, "
                "weight_column, label_lower_bound_column, label_upper_bound_column, "
                "delimiter, header, indexing_mode, categorical_column");
}

TEST(LibSVM, GroupsFromBothQidAndQueryFileIsError) {
  TempDir dir;
  std::string f = WriteFile(dir.File("t"), "1 qid:1 1:1\n0 qid:1 1:2\n");
  WriteFile(f + ".query", "2\n");
  EXPECT_EQ(LoadError(f),
            f + ": query groups are given both by qid: tokens and by '" + f + ".query'; keep one");
}

TEST(LibSVM, EveryFileOfASetNeedsGroupsOrNone) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n");
  std::string b = WriteFile(dir.File("b"), "1 1:1\n");
  WriteFile(a + ".query", "1\n");
  EXPECT_EQ(LoadError(a + ";" + b),
            "'" + a + "' has query groups but '" + b +
                "' has none; give every file of the data set groups or none");
}

TEST(LibSVM, DirectorySkipsSideHiddenFilesAndSubfolders) {
  TempDir dir;
  WriteFile(dir.File("b"), "2 1:1\n");
  WriteFile(dir.File("a"), "1 1:1\n");
  WriteFile(dir.File("a.group"), "1\n");
  WriteFile(dir.File("b.group"), "1\n");
  WriteFile(dir.File(".hidden"), "garbage\n");
  std::filesystem::create_directory(dir.File("sub"));
  DataSet d = LoadData(dir.path(), {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 2}));
  EXPECT_EQ(d.group_ptr, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(LibSVM, FirstErrorInInputOrderWhateverTheThreads) {
  TempDir dir;
  std::string text;
  for (int i = 1; i <= 30000; ++i) text += i == 10 || i == 29000 ? "1 1:x\n" : "1 1:1 2:2\n";
  std::string f = WriteFile(dir.File("big"), text);
  for (int nthread : {1, 2, 4}) {
    LoadOptions opt;
    opt.nthread = nthread;
    EXPECT_EQ(LoadError(f, opt), f + ":10:3: bad feature value in '1:x' (expected a number)");
  }
}

TEST(LibSVM, SharedAgaricus) {
  RB_REQUIRE_SHARED_DATA();
  DataSet d = LoadData(test::SharedDataDir() + "/agaricus/agaricus.txt.train", {});
  EXPECT_EQ(d.NumRows(), 6513u);
  EXPECT_EQ(d.num_col, 127u);
  EXPECT_EQ(d.NumNonZero(), 6513u * 22);  // 22 one-hot categorical features per row
  EXPECT_EQ(d.label[0], 1.0f);
  EXPECT_EQ(d.index[0], 3u);
  EXPECT_TRUE(d.weight.empty());
}

TEST(LibSVM, SharedRankWithQueryFile) {
  RB_REQUIRE_SHARED_DATA();
  DataSet d = LoadData(test::SharedDataDir() + "/lightgbm/rank.train", {});
  EXPECT_EQ(d.NumRows(), 3005u);
  EXPECT_EQ(d.group_ptr.size(), 202u);
  EXPECT_EQ(d.group_ptr.back(), 3005u);
}

}  // namespace
}  // namespace ringboost

#include <gtest/gtest.h>

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

std::vector<uint32_t> GroupSizes(const DataSet& d) {
  std::vector<uint32_t> sizes;
  for (std::size_t g = 1; g < d.group_ptr.size(); ++g)
    sizes.push_back(d.group_ptr[g] - d.group_ptr[g - 1]);
  return sizes;
}

// Loads parts 0..w-1 and checks that together they are the whole data set, row for row.
void ExpectPartsTileTheWhole(const std::string& uri, int w, int nthread = 2) {
  SCOPED_TRACE("num_parts=" + std::to_string(w) + " nthread=" + std::to_string(nthread));
  LoadOptions whole_options;
  whole_options.nthread = 1;
  DataSet whole = LoadData(uri, whole_options);
  std::vector<uint64_t> row_lengths;
  std::vector<uint32_t> index, groups;
  std::vector<float> value, label, weight;
  for (int r = 0; r < w; ++r) {
    LoadOptions options;
    options.part = r;
    options.num_parts = w;
    options.nthread = nthread;
    DataSet part = LoadData(uri, options);
    EXPECT_EQ(part.first_row, 0u);
    for (uint64_t i = 0; i < part.NumRows(); ++i) {
      row_lengths.push_back(part.row_ptr[i + 1] - part.row_ptr[i]);
    }
    index.insert(index.end(), part.index.begin(), part.index.end());
    value.insert(value.end(), part.value.begin(), part.value.end());
    label.insert(label.end(), part.label.begin(), part.label.end());
    if (part.weight.empty()) part.weight.assign(part.NumRows(), 1.0f);
    weight.insert(weight.end(), part.weight.begin(), part.weight.end());
    std::vector<uint32_t> g = GroupSizes(part);
    if (!part.group_ptr.empty()) EXPECT_EQ(part.group_ptr.back(), part.NumRows());
    groups.insert(groups.end(), g.begin(), g.end());
  }
  std::vector<uint64_t> whole_lengths;
  for (uint64_t i = 0; i < whole.NumRows(); ++i) {
    whole_lengths.push_back(whole.row_ptr[i + 1] - whole.row_ptr[i]);
  }
  if (whole.weight.empty()) whole.weight.assign(whole.NumRows(), 1.0f);
  EXPECT_EQ(row_lengths, whole_lengths);
  EXPECT_EQ(index, whole.index);
  EXPECT_EQ(value, whole.value);
  EXPECT_EQ(label, whole.label);
  EXPECT_EQ(weight, whole.weight);
  EXPECT_EQ(groups, GroupSizes(whole));  // same sizes: no group was split
}

void ExpectAllSplits(const std::string& uri) {
  for (int w : {1, 2, 3, 5}) {
    for (int nthread : {1, 3}) ExpectPartsTileTheWhole(uri, w, nthread);
  }
}

TEST(Parts, LibSvmWithCommentsCrlfAndInlineWeights) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a"),
                            "# c\r\n1:2 0:1 3:2\r\n\r\n0 1:1\r\n1 2:5 # x\r\n0\r\n1:0.5 4:4\r\n"
                            "0 0:1\r\n1 1:2");
  ExpectAllSplits(f);
}

TEST(Parts, SideWeightsAndQueryGroupsFollowTheirRows) {
  TempDir dir;
  std::string text, weights;
  for (int i = 0; i < 40; ++i) {
    text += std::to_string(i % 3) + " " + std::to_string(i % 7) + ":" + std::to_string(i) + "\n";
    if (i % 9 == 4) text += "# comment\n\n";
    weights += std::to_string(i) + "\n";
  }
  std::string f = WriteFile(dir.File("r"), text);
  WriteFile(f + ".weight", weights);
  WriteFile(f + ".query", "1\n7\n3\n12\n2\n9\n6\n");
  ExpectAllSplits(f);
}

TEST(Parts, QidGroupsAreNeverSplit) {
  TempDir dir;
  std::string text;
  const int qids[] = {5, 5, 5, 5, 5, 5, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 2, 5, 5, 5};
  for (int q : qids) text += "1 qid:" + std::to_string(q) + " 1:" + std::to_string(q) + "\n";
  ExpectAllSplits(WriteFile(dir.File("q"), text));
}

TEST(Parts, SeveralFilesAreOneStream) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n0 2:2\n1 3:3\n");
  std::string b = WriteFile(dir.File("b"), "0 1:4\n1 2:5\n");
  std::string c = WriteFile(dir.File("c"), "0 4:6\n1 1:7\n0 2:8\n1 3:9");
  WriteFile(b + ".weight", "2\n3\n");
  ExpectAllSplits(a + ";" + b + ";" + c);
  ExpectAllSplits(dir.path());
}

TEST(Parts, SeveralFilesWithQueryGroups) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a"), "1 1:1\n0 2:2\n1 3:3\n0 1:1\n");
  std::string b = WriteFile(dir.File("b"), "0 1:4\n1 2:5\n1 2:6\n");
  WriteFile(a + ".query", "3\n1\n");
  WriteFile(b + ".query", "2\n1\n");
  ExpectAllSplits(a + ";" + b);
}

TEST(Parts, Csv) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 30; ++i) text += std::to_string(i % 2) + "\t" + std::to_string(i) + "\t0\n";
  ExpectAllSplits(WriteFile(dir.File("t.tsv"), text));
}

// The header line of a CSV is no row: side files count the rows after it in every part.
TEST(Parts, CsvHeaderWithSideWeightsAndGroups) {
  TempDir dir;
  std::string text = "# names\ny,a\n", weights;
  for (int i = 0; i < 40; ++i) {
    text += std::to_string(i % 2) + "," + std::to_string(i) + "\n";
    weights += std::to_string(i) + "\n";
  }
  std::string f = WriteFile(dir.File("h.csv"), text);
  WriteFile(f + ".weight", weights);
  WriteFile(f + ".group", "1\n7\n3\n12\n2\n9\n6\n");
  std::string g = WriteFile(dir.File("g.csv"), text);
  WriteFile(g + ".weight", weights);
  WriteFile(g + ".group", "40\n");
  ExpectAllSplits(f + "?format=csv&header=1&label_column=y");
  ExpectAllSplits(f + ";" + g + "?format=csv&header=1&label_column=y");
}

TEST(Parts, EveryRowOnceEvenWhenPartsOutnumberRows) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a"), "1 1:1\n0 2:2\n");
  for (int w : {2, 3, 5, 8}) ExpectPartsTileTheWhole(f, w);
}

TEST(Parts, ErrorsKeepTheFileLineNumbers) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 50; ++i) text += "1 1:1\n";
  text += "1 1:x\n";
  std::string f = WriteFile(dir.File("a"), text);
  LoadOptions options;
  options.part = 1;
  options.num_parts = 2;
  EXPECT_EQ(LoadError(f, options), f + ":51:3: bad feature value in '1:x' (expected a number)");
  options.part = 2;
  EXPECT_EQ(LoadError(f, options),
            "data '" + f + "': part 2 of 2 does not exist; need 0 <= part < num_parts");
}

TEST(Parts, SharedRankQueryGroups) {
  RB_REQUIRE_SHARED_DATA();
  ExpectAllSplits(test::SharedDataDir() + "/lightgbm/rank.train");
}

TEST(Parts, SharedBinaryWithWeightFile) {
  RB_REQUIRE_SHARED_DATA();
  ExpectAllSplits(test::SharedDataDir() + "/lightgbm/binary.train");
}

TEST(Parts, SharedAgaricus) {
  RB_REQUIRE_SHARED_DATA();
  ExpectAllSplits(test::SharedDataDir() + "/agaricus/agaricus.txt.train");
}

}  // namespace
}  // namespace ringboost

// The reader parses big inputs in several chunks written straight into the final arrays at
// offsets from counted upper bounds; these tests make the bounds loose (comments, NaNs,
// label:weight, qid:, CSV label columns) in some chunks and not others and check that every
// thread count gives the rows of the file, in order, with no gap.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "data/data.h"
#include "data/text_input.h"
#include "data_test_util.h"
#include "helpers.h"

namespace ringboost {
namespace {

using test::LoadError;
using test::TempDir;
using test::WriteFile;

constexpr int kRows = 20000;  // about 400 KB of text: several chunks for 2 and 4 threads

TEST(Chunks, CountNewlinesAndMatchesAPlainCount) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "ab:\n:c\n#"[i % 8];
  for (std::size_t len : {0, 1, 15, 16, 17, 4079, 4080, 4081, 5000}) {
    const char* b = text.data();
    ByteCounts c = CountNewlinesAnd(b, b + len, ':');
    EXPECT_EQ(c.newlines, static_cast<uint64_t>(std::count(b, b + len, '\n'))) << len;
    EXPECT_EQ(c.seps, static_cast<uint64_t>(std::count(b, b + len, ':'))) << len;
  }
}

TEST(Chunks, ReleasedPagesReadTheSameAgain) {
  TempDir dir;
  std::string text;
  for (int i = 0; text.size() < 3 * 4096 + 100; ++i) text += std::to_string(i) + "\n";
  MappedFile file(WriteFile(dir.File("f"), text));
  file.Release(file.begin() + 5000, file.begin() + 9000);
  EXPECT_EQ(std::string(file.begin(), file.end()), text);
  file.Release(file.begin(), file.end());
  file.Release(file.end(), file.end() + 10);  // outside the file: ignored
  EXPECT_EQ(std::string(file.begin(), file.end()), text);
}

TEST(Chunks, CountFileDataRowsOverManyWindows) {
  TempDir dir;
  std::string text;
  while (text.size() < (std::size_t{9} << 20)) text += "1 1:1\n# c\n\n";  // 11 bytes, 1 row
  MappedFile file(WriteFile(dir.File("f"), text));
  EXPECT_EQ(CountFileDataRows(file, file.begin(), file.end()), text.size() / 11);
}

// Row i: label i % 3, weight 0.5 from row 12000 on, entries 1:i and 7:(i % 5); 4:nan is missing.
// Every 100th row is preceded by a comment holding colons and by a blank line.
std::string GappyLibSvm() {
  std::string text;
  for (int i = 0; i < kRows; ++i) {
    if (i % 100 == 0) text += "# comment 1:2 3:4\n\n";
    text += std::to_string(i % 3) + (i >= 12000 ? ":0.5" : "") + " 1:" + std::to_string(i) +
            " 4:nan 7:" + std::to_string(i % 5) + "\n";
  }
  return text;
}

TEST(Chunks, GapsFromCommentsNanAndWeightsAreClosed) {
  TempDir dir;
  std::string f = WriteFile(dir.File("g"), GappyLibSvm());
  for (int nthread : {1, 2, 4}) {
    SCOPED_TRACE("nthread=" + std::to_string(nthread));
    LoadOptions options;
    options.nthread = nthread;
    DataSet d = LoadData(f, options);
    ASSERT_EQ(d.NumRows(), uint64_t{kRows});
    ASSERT_EQ(d.NumNonZero(), uint64_t{2 * kRows});
    ASSERT_EQ(d.weight.size(), std::size_t{kRows});
    EXPECT_EQ(d.num_col, 8u);
    for (int i = 0; i < kRows; ++i) {
      ASSERT_EQ(d.row_ptr[i + 1], uint64_t(2 * i + 2)) << i;
      ASSERT_EQ(d.label[i], float(i % 3)) << i;
      ASSERT_EQ(d.weight[i], i >= 12000 ? 0.5f : 1.0f) << i;
      ASSERT_EQ(d.index[2 * i], 1u) << i;
      ASSERT_EQ(d.index[2 * i + 1], 7u) << i;
      ASSERT_EQ(d.value[2 * i], float(i)) << i;
      ASSERT_EQ(d.value[2 * i + 1], float(i % 5)) << i;
    }
    EXPECT_TRUE(d.group_ptr.empty());
  }
}

TEST(Chunks, OneBasedIdsAreShiftedInEveryChunk) {
  TempDir dir;
  std::string f = WriteFile(dir.File("g"), GappyLibSvm());
  LoadOptions options;
  options.nthread = 4;
  options.indexing_mode = 1;
  DataSet d = LoadData(f, options);
  EXPECT_EQ(d.num_col, 7u);
  EXPECT_EQ(d.index[0], 0u);
  EXPECT_EQ(d.index[2 * kRows - 1], 6u);
  EXPECT_EQ(std::count(d.index.begin(), d.index.end(), 0u), kRows);
}

TEST(Chunks, QidGroupsAcrossChunks) {
  TempDir dir;
  std::string text, mixed;
  for (int i = 0; i < kRows; ++i) {
    std::string row = std::to_string(i % 2) + " qid:" + std::to_string(i / 50) + " 2:1.5\n";
    text += row;
    mixed += i < 15000 ? "1 2:1.5\n" : row;  // the first 15000 rows have no qid
  }
  std::string f = WriteFile(dir.File("q"), text);
  std::string m = WriteFile(dir.File("m"), mixed);
  for (int nthread : {1, 4}) {
    LoadOptions options;
    options.nthread = nthread;
    DataSet d = LoadData(f, options);
    ASSERT_EQ(d.group_ptr.size(), std::size_t{kRows / 50 + 1});
    for (std::size_t g = 0; g < d.group_ptr.size(); ++g) EXPECT_EQ(d.group_ptr[g], 50 * g);
    EXPECT_EQ(LoadError(m, options), m + ":1:1: this row has no qid: but other rows of the file "
                                         "have one; give every row a qid or none");
  }
}

TEST(Chunks, CsvLabelColumnGapsAreClosed) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < kRows; ++i)
    text += std::to_string(i % 2) + "," + std::to_string(i) + ",,3.5\n";
  std::string f = WriteFile(dir.File("c"), text);
  LoadOptions options;
  options.nthread = 4;
  DataSet d = LoadData(f + "?format=csv&label_column=0", options);
  ASSERT_EQ(d.NumRows(), uint64_t{kRows});
  ASSERT_EQ(d.NumNonZero(), uint64_t{2 * kRows});
  EXPECT_EQ(d.num_col, 3u);
  for (int i = 0; i < kRows; ++i) {
    ASSERT_EQ(d.row_ptr[i + 1], uint64_t(2 * i + 2)) << i;
    ASSERT_EQ(d.label[i], float(i % 2)) << i;
    ASSERT_EQ(d.index[2 * i], 0u) << i;
    ASSERT_EQ(d.index[2 * i + 1], 2u) << i;
    ASSERT_EQ(d.value[2 * i], float(i)) << i;
    ASSERT_EQ(d.value[2 * i + 1], 3.5f) << i;
  }
  EXPECT_TRUE(d.weight.empty());
}

}  // namespace
}  // namespace ringboost

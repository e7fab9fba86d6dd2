// CSV files with a header row (header=1), label and weight columns named by it, and messages that
// name the config key of a missing file.
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

TEST(CsvHeader, HeaderIsSkippedAndNamesPickTheLabelAndWeight) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "label,a,w,b\n1,0.5,2,3\n0,1.5,1,4\n");
  DataSet d = LoadData(f + "?format=csv&header=1&label_column=label&weight_column=w", {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.weight, (std::vector<float>{2, 1}));
  EXPECT_EQ(d.index, (std::vector<uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(d.value, (std::vector<float>{0.5f, 3, 1.5f, 4}));
  EXPECT_EQ(d.num_col, 2u);
}

// Detected CSV (no format=): label in column 0 as before, the header line skipped; numbers still
// work as column positions.
TEST(CsvHeader, DetectedFormatAndColumnNumbers) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "y,x1,x2\n1,5,6\n0,7,8\n");
  DataSet d = LoadData(f + "?header=1", {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.value, (std::vector<float>{5, 6, 7, 8}));
  DataSet by_number = LoadData(f + "?header=true&format=csv&label_column=2", {});
  EXPECT_EQ(by_number.label, (std::vector<float>{6, 8}));
  EXPECT_EQ(by_number.value, (std::vector<float>{1, 5, 0, 7}));
}

// Every file of a URI has its header; a part that does not start a file skips nothing.
TEST(CsvHeader, EachFilesHeaderIsSkippedInEveryPart) {
  TempDir dir;
  std::string text = "label,a\n";
  for (int i = 0; i < 400; ++i) text += std::to_string(i % 2) + "," + std::to_string(i) + "\n";
  std::string f1 = WriteFile(dir.File("a.csv"), text);
  std::string f2 = WriteFile(dir.File("b.csv"), text);
  const std::string uri = f1 + ";" + f2 + "?header=1&label_column=label";
  std::size_t rows = 0;
  for (int part = 0; part < 3; ++part) {
    LoadOptions options;
    options.part = part;
    options.num_parts = 3;
    rows += LoadData(uri, options).NumRows();
  }
  EXPECT_EQ(rows, 800u);
}

TEST(CsvHeader, MistakesNameTheUriAndTheFix) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "label,a\n1,2\n");
  EXPECT_EQ(LoadError(f + "?format=csv&header=1&label_column=lbl"),
            "data URI '" + f +
                "?format=csv&header=1&label_column=lbl': label_column='lbl' is not a column of "
                "the header of " +
                f + "; its columns: label, a");
  EXPECT_EQ(LoadError(f + "?format=csv&label_column=label"),
            "data URI '" + f +
                "?format=csv&label_column=label': label_column='label' names a column; add "
                "header=1 (the first line holds the column names) or give the column's number "
                "(0 = the first)");
  EXPECT_EQ(LoadError(f + "?header=2"),
            "data URI '" + f + "?header=2': header='2' must be 0, 1, true or false");
  std::string libsvm = WriteFile(dir.File("a.txt"), "1 0:1\n");
  EXPECT_NE(LoadError(libsvm + "?header=1")
                .find("categorical_column apply to CSV, but the data is LibSVM"),
            std::string::npos);
}

// A quoted name holds its delimiter: the header splits into the columns the rows have.
TEST(CsvHeader, QuotedNameWithTheDelimiterIsOneColumn) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "\"a,b\",c,y,z\n5,1,0,9\n6,0,1,8\n");
  DataSet d = LoadData(f + "?format=csv&header=1&label_column=y", {});
  EXPECT_EQ(d.label, (std::vector<float>{0, 1}));
  EXPECT_EQ(d.value, (std::vector<float>{5, 1, 9, 6, 0, 8}));
  EXPECT_EQ(LoadError(f + "?format=csv&header=1&label_column=q"),
            "data URI '" + f +
                "?format=csv&header=1&label_column=q': label_column='q' is not a column of the "
                "header of " +
                f + "; its columns: a,b, c, y, z");
}

// A file of column names and nothing else has no rows, as an empty file: never 0 rows trained on.
TEST(CsvHeader, OnlyAHeaderIsNoDataRows) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "# names\ny,a\n\n");
  EXPECT_EQ(LoadError(f + "?format=csv&header=1&label_column=y"),
            f + ": no data rows (only a header)");
  std::string g = WriteFile(dir.File("b.csv"), "y,a\n1,2\n");
  EXPECT_EQ(LoadData(f + ";" + g + "?format=csv&header=1&label_column=y", {}).NumRows(), 1u);
}

// Without header=1, the header row is the first bad label: the message says what to add.
TEST(CsvHeader, HeaderReadAsDataSuggestsTheOption) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "label,a\n1,2\n");
  EXPECT_EQ(LoadError(f),
            f + ":1:1: bad label 'label' (expected a number; if the first line holds column "
                "names, add header=1 to the data URI, e.g. "
                "train.csv?format=csv&header=1&label_column=NAME)");
}

// Column numbers and names come from the first file's header: a file whose columns are in
// another order would swap features unseen, and one without a header line would lose its first
// row. Both stop the run at that file's header line.
TEST(CsvHeader, EveryFileHasTheFirstFilesHeader) {
  TempDir dir;
  std::string a = WriteFile(dir.File("a.csv"), "label,x,y\n1,5,0\n");
  std::string swapped = WriteFile(dir.File("b.csv"), "# made later\nlabel, y ,x\r\n1,0,7\n");
  std::string none = WriteFile(dir.File("c.csv"), "1,0,7\n0,1,2\n");
  std::string fewer = WriteFile(dir.File("d.csv"), "label,x\n1,0\n");
  const std::string opts = "?format=csv&header=1&label_column=label";
  EXPECT_EQ(LoadError(a + ";" + swapped + opts),
            swapped +
                ":2:1: header=1, but column 1 of this header line is 'y' where the header "
                "of '" +
                a +
                "' has 'x'; every file of the data needs the same header line "
                "(its first line), with the columns in the same order");
  EXPECT_NE(LoadError(a + ";" + none + opts)
                .find(none +
                      ":1:1: header=1, but column 0 of this "
                      "header line is '1' where the header of '" +
                      a + "' has 'label';"),
            std::string::npos);
  EXPECT_NE(LoadError(a + ";" + fewer + opts)
                .find("column 2 of this header line is none where "
                      "the header of '" +
                      a + "' has 'y';"),
            std::string::npos);
  // The same names with other blanks, quotes and line ends are the same header.
  std::string same = WriteFile(dir.File("e.csv"), "\"label\", x ,y\r\n0,1,2\r\n");
  DataSet d = LoadData(a + ";" + same + opts, {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.value, (std::vector<float>{5, 0, 1, 2}));
}

// Excel's "CSV UTF-8" starts the file with a byte-order mark: the first column's name is still
// `label`, and without a header the first field is still a number.
TEST(CsvHeader, ByteOrderMarkIsNotPartOfTheFirstName) {
  TempDir dir;
  std::string f = WriteFile(dir.File("a.csv"), "\xEF\xBB\xBFlabel,x\r\n1,5\r\n0,6\r\n");
  DataSet d = LoadData(f + "?format=csv&header=1&label_column=label", {});
  EXPECT_EQ(d.label, (std::vector<float>{1, 0}));
  EXPECT_EQ(d.value, (std::vector<float>{5, 6}));
  std::string g = WriteFile(dir.File("b.csv"),
                            "\xEF\xBB\xBF"
                            "1,5\n0,6\n");
  EXPECT_EQ(LoadData(g + "?format=csv&label_column=0", {}).label, (std::vector<float>{1, 0}));
  // The header hint still comes with a header read as data.
  EXPECT_NE(LoadError(f + "?format=csv&label_column=0").find("add header=1"), std::string::npos);
}

TEST(DataKey, MissingFileNamesTheKeyThatNamedIt) {
  TempDir dir;
  LoadOptions options;
  options.key = "eval[test]";
  EXPECT_EQ(LoadError(dir.File("nope.csv"), options),
            "eval[test]: cannot open '" + dir.File("nope.csv") + "': No such file or directory");
}

}  // namespace
}  // namespace ringboost

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/file_io.h"
#include "helpers.h"

namespace ringboost {

TEST(Error, CheckThrowsWithExpressionAndMessage) {
  try {
    int n = 3;
    RB_CHECK_MSG(n == 4, "n=" << n);
    FAIL() << "no throw";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("n == 4"), std::string::npos) << what;
    EXPECT_NE(what.find("n=3"), std::string::npos) << what;
  }
}

TEST(Error, StatusWrapKeepsInnerMessage) {
  Status s = Status::Fail("connect refused").Wrap("peer 2");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "peer 2: connect refused");
  EXPECT_TRUE(Status::OK().Wrap("x").ok());
  EXPECT_THROW(ThrowIfError(s), Error);
}

TEST(FileIO, AtomicWriteReplacesWholeFile) {
  test::TempDir dir;
  std::string path = dir.File("model.json");
  WriteFileAtomic(path, "first");
  WriteFileAtomic(path, "second");
  EXPECT_EQ(ReadWholeFile(path), "second");
  EXPECT_THROW(WriteFileAtomic(dir.File("no/such/dir/x"), "y"), Error);
  EXPECT_THROW(ReadWholeFile(dir.File("absent")), Error);
}

}  // namespace ringboost

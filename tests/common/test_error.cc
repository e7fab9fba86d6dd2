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

namespace ringboost {

TEST(PrintableMessage, EscapesControlBytesAndKeepsNewlines) {
  EXPECT_EQ(PrintableMessage("a\tb\rc\x1b[31md\x7f\n2nd line"),
            "a\\tb\\rc\\x1b[31md\\x7f\n2nd line");
  EXPECT_EQ(PrintableMessage(std::string("nul\0byte", 8)), "nul\\x00byte");
  EXPECT_EQ(PrintableMessage("plain, caf\xc3\xa9"), "plain, caf\xc3\xa9");  // UTF-8 stays
}

TEST(PrintableMessage, CutsEachLongLine) {
  const std::string message = std::string(1000, 'x') + "\nshort\n" + std::string(500, 'y');
  EXPECT_EQ(PrintableMessage(message, 400), std::string(400, 'x') +
                                                "... (600 more bytes)\nshort\n" +
                                                std::string(400, 'y') + "... (100 more bytes)");
  EXPECT_EQ(PrintableMessage(std::string(400, 'z'), 400), std::string(400, 'z'));
}

}  // namespace ringboost

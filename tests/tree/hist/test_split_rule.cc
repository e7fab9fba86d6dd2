#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "rabit/communicator.h"
#include "tree/bins/bundles.h"
#include "tree/hist/split_rule.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

// f0 numeric, f1 categorical (codes 0..6), f2/f3 never present together; `holes`: f0 and f1
// missing in some rows (the matrix is then bundled), else f0 and f1 present in every row and
// f2/f3 absent (a dense matrix whose columns 2 and 3 have no values).
std::vector<std::vector<float>> Rows(bool holes) {
  std::vector<std::vector<float>> rows(700, std::vector<float>(4, NAN));
  uint64_t s = 7;
  for (auto& r : rows) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    r[0] = static_cast<float>((s >> 33) % 5000) * 0.01f;
    r[1] = static_cast<float>((s >> 20) % 7);
    if (!holes) continue;
    if ((s >> 50) % 5 == 0) r[0] = NAN;
    if ((s >> 45) % 4 == 0) r[1] = NAN;
    if ((s >> 40) % 3 != 0) r[2 + (s >> 30) % 2] = static_cast<float>((s >> 10) % 40);
  }
  return rows;
}

// The side a split sends `value` to, from the value and the cuts alone (the split's contract).
bool ExpectedLeft(const HistogramCuts& cuts, const SplitCandidate& s, float value) {
  if (std::isnan(value)) return s.default_left;
  if (s.is_cat) {
    const auto code = static_cast<uint32_t>(value);
    return std::find(s.categories.begin(), s.categories.end(), code) == s.categories.end();
  }
  const uint32_t global = cuts.SearchBin(s.feature, value);
  return static_cast<int32_t>(global - cuts.ptr[s.feature]) <= s.split_bin;
}

// Returns the matrix's bin bytes.
int ExpectDecisions(const std::vector<std::vector<float>>& rows, int max_bin, bool bundle) {
  auto comm = rabit::MakeLocalCommunicator();
  const DataSet data = test::DenseRows(rows, std::vector<float>(rows.size(), 0.f));
  HistogramCuts cuts = ComputeCuts(data, 4, max_bin, comm.get(), 2);
  ApplyCategories(data, {0, 1, 0, 0}, comm.get(), &cuts);
  const FeatureBundles bundles =
      bundle ? DecideBundles(data, cuts, {"true", 0.0}, comm.get(), 2) : FeatureBundles{};
  BinnedMatrix m = BinnedMatrix::Build(data, cuts, 2, &bundles);
  EXPECT_EQ(m.layout(), BinnedMatrix::Layout::kDense);
  EXPECT_EQ(m.bundled(), bundle);
  m.BuildColumns(2);
  std::vector<SplitCandidate> splits;
  for (uint32_t f : {0u, 2u, 3u}) {
    for (int32_t bin : {0, 3, 17, static_cast<int32_t>(cuts.FeatureBins(f)) - 1}) {
      for (bool default_left : {false, true}) {
        SplitCandidate s;
        s.feature = f;
        s.split_bin = std::min(bin, static_cast<int32_t>(cuts.FeatureBins(f)) - 1);
        s.default_left = default_left;
        splits.push_back(s);
      }
    }
  }
  for (const std::vector<uint32_t>& codes : {std::vector<uint32_t>{1, 4}, {0, 2, 3, 5, 6}, {6}}) {
    for (bool default_left : {false, true}) {
      SplitCandidate s;
      s.feature = 1;
      s.is_cat = true;
      s.categories = codes;
      s.default_left = default_left;
      splits.push_back(s);
    }
  }
  // Blocks longer and shorter than kDecideAhead, of consecutive and of scattered rows.
  std::vector<std::vector<uint32_t>> blocks(3);
  for (uint32_t r = 0; r < rows.size(); ++r) {
    blocks[0].push_back(r);
    if (r % 7 == 3) blocks[1].push_back(r);
    if (r % 61 == 5) blocks[2].push_back(r);
  }
  EXPECT_GT(blocks[1].size(), kDecideAhead);
  EXPECT_LT(blocks[2].size(), kDecideAhead);
  for (const SplitCandidate& s : splits) {
    const SplitRule rule(m, cuts, s);
    for (const std::vector<uint32_t>& block : blocks) {
      std::vector<uint8_t> side(block.size(), 2);
      const uint64_t n_left =
          m.BinBytes() == 1
              ? rule.DecideDense(rule.bins8, block.data(), block.size(), side.data())
              : rule.DecideDense(rule.bins16, block.data(), block.size(), side.data());
      uint64_t expected_left = 0;
      for (std::size_t j = 0; j < block.size(); ++j) {
        const bool left = ExpectedLeft(cuts, s, rows[block[j]][s.feature]);
        EXPECT_EQ(side[j], left ? 1 : 0)
            << "feature " << s.feature << " bin " << s.split_bin << " row " << block[j];
        expected_left += left;
      }
      EXPECT_EQ(n_left, expected_left);
    }
  }
  return m.BinBytes();
}

}  // namespace

// The column view's side decisions, a block at a time, are those the values and cuts give:
// numeric and categorical splits, 1- and 2-byte bins, missing values (bundled columns: another
// member's bin or none), features without a column.
TEST(SplitRule, DenseBlocksDecideAsTheValues) {
  EXPECT_EQ(ExpectDecisions(Rows(false), 256, false), 1);
  EXPECT_EQ(ExpectDecisions(Rows(false), 1024, false), 2);
  EXPECT_EQ(ExpectDecisions(Rows(true), 64, true), 1);
  EXPECT_EQ(ExpectDecisions(Rows(true), 1024, true), 2);
}

// DecideThreshold's two ways (eight rows a step by gathers, and a row a step) give the formula's
// sides, with 8- and 16-bit bins, ranges that start at 0 or inside the column (bundled members),
// splits before the first bin and at the last, rows whose gathers would read past the column
// (past gather_rows: the rest is decided a row at a time), consecutive and scattered rows.
template <typename BinT>
void ExpectThresholdDecisions() {
  constexpr uint32_t kRows = 1000;
  std::vector<BinT> column(kRows);
  uint64_t s = 11;
  for (BinT& b : column) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    b = static_cast<BinT>((s >> 33) % (sizeof(BinT) == 1 ? 256 : 1000));
  }
  // As SplitRule sets it for a column that ends the columns: a 4-byte read stays inside.
  const uint64_t gather_rows = kRows - (sizeof(BinT) == 1 ? 3 : 1);
  std::vector<std::vector<uint32_t>> blocks(3);
  for (uint32_t r = 0; r < kRows; ++r) {
    blocks[0].push_back(r);
    if (r % 5 == 1 || r + 3 >= kRows) blocks[1].push_back(r);  // ends with the last rows
    if (r % 37 == 2) blocks[2].push_back(r);
  }
  for (uint32_t first : {0u, 5u, 200u}) {
    for (uint32_t width : {3u, 40u, 256u}) {
      for (int32_t split : {-1, 0, 2, static_cast<int32_t>(width) - 1}) {
        for (bool missing_left : {false, true}) {
          for (const std::vector<uint32_t>& block : blocks) {
            std::vector<uint8_t> expected(block.size());
            uint64_t expected_left = 0;
            for (std::size_t j = 0; j < block.size(); ++j) {
              const uint32_t bin = column[block[j]];
              const bool inside = bin >= first && bin < first + width;
              expected[j] = inside ? static_cast<int32_t>(bin - first) <= split : missing_left;
              expected_left += expected[j];
            }
            for (bool vector : {true, false}) {
              std::vector<uint8_t> side(block.size(), 2);
              const uint64_t n_left =
                  DecideThreshold(column.data(), gather_rows, block.data(), block.size(),
                                  side.data(), first, width, split, missing_left, vector);
              EXPECT_EQ(side, expected) << "first " << first << " width " << width << " split "
                                        << split << " vector " << vector;
              EXPECT_EQ(n_left, expected_left);
            }
          }
        }
      }
    }
  }
}

TEST(SplitRule, ThresholdDecisionsBothWaysAreTheFormulas) {
  ExpectThresholdDecisions<uint8_t>();
  ExpectThresholdDecisions<uint16_t>();
}

}  // namespace ringboost

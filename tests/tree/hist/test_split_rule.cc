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

}  // namespace ringboost

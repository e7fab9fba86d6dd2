// Cuts of tiny columns derived by hand from quantile.h's rule, and the rule's independence of
// row order and thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "common/error.h"
#include "data/data.h"
#include "helpers.h"
#include "rabit/communicator.h"
#include "tree/quantile.h"

namespace ringboost {
namespace {

// A data set with one feature per inner vector entry: rows[i] lists (feature, value) pairs.
DataSet MakeData(const std::vector<std::vector<std::pair<uint32_t, float>>>& rows,
                 std::vector<float> weight = {}) {
  DataSet d;
  for (const auto& row : rows) {
    for (const auto& [f, v] : row) {
      d.index.push_back(f);
      d.value.push_back(v);
      d.num_col = std::max(d.num_col, f + 1);
    }
    d.row_ptr.push_back(d.index.size());
    d.label.push_back(0.0f);
  }
  d.weight = std::move(weight);
  return d;
}

// One feature holding `values`, one row each.
DataSet Column(const std::vector<float>& values, std::vector<float> weight = {}) {
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (float v : values) rows.push_back({{0u, v}});
  return MakeData(rows, std::move(weight));
}

HistogramCuts Cuts(const DataSet& d, uint32_t num_features, int max_bin, int nthread = 1) {
  auto comm = rabit::MakeLocalCommunicator();
  return ComputeCuts(d, num_features, max_bin, comm.get(), nthread);
}

std::vector<float> FeatureCuts(const HistogramCuts& c, uint32_t f) {
  return std::vector<float>(c.values.begin() + c.ptr[f], c.values.begin() + c.ptr[f + 1]);
}

float Last(float u) { return u + (std::fabs(u) + 1e-5f); }  // XGBoost's final cut, in float

TEST(Quantile, AgaricusLikeSingleValueMatchesXGBoost) {
  HistogramCuts c = Cuts(Column({1.0f, 1.0f, 1.0f}), 1, 256);
  ASSERT_EQ(c.ptr, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(c.values[0], 2.00001001f);  // XGBoost 1.7.4 dumps `f29<2.00001001` on agaricus
  EXPECT_EQ(c.min_values[0], -1e-5f);   // 1 - 1 - 1e-5
}

TEST(Quantile, FewDistinctValuesGiveOneBinEach) {
  HistogramCuts c = Cuts(Column({3.0f, 1.0f, 2.0f, 2.0f}), 1, 256);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{2.0f, 3.0f, Last(3.0f)}));
  EXPECT_FLOAT_EQ(c.values[2], 6.00001f);
  EXPECT_EQ(c.min_values[0], -1e-5f);
  // k == max_bin is still one bin per value.
  c = Cuts(Column({3.0f, 1.0f, 2.0f}), 1, 3);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{2.0f, 3.0f, Last(3.0f)}));
}

TEST(Quantile, NegativeValues) {
  HistogramCuts c = Cuts(Column({2.0f, -1.0f, 0.0f, -3.0f}), 1, 256);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{-1.0f, 0.0f, 2.0f, Last(2.0f)}));
  EXPECT_EQ(c.min_values[0], -3.0f - 3.0f - 1e-5f);
  c = Cuts(Column({-5.0f, -2.0f}), 1, 256);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{-2.0f, -2.0f + (2.0f + 1e-5f)}));
  EXPECT_GT(c.values[1], -2.0f);
}

TEST(Quantile, NegativeZeroIsZero) {
  HistogramCuts c = Cuts(Column({-0.0f, 0.0f, 1.0f}), 1, 256);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{1.0f, Last(1.0f)}));
  EXPECT_EQ(c.min_values[0], -1e-5f);
}

// Values 1..8, unit weights, W = 8 units: W(x < v) = (v - 1) units.
TEST(Quantile, MoreValuesThanBinsUnitWeights) {
  const DataSet d = Column({8, 3, 1, 6, 2, 7, 5, 4});
  // max_bin 2: t_1 = 4 -> v - 1 >= 4 -> 5.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 2), 0), (std::vector<float>{5.0f, Last(8.0f)}));
  // max_bin 3: t_1 = floor(8/3 units) (2.67), t_2 = floor(16/3 units) (5.33) -> 4, 7.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{4.0f, 7.0f, Last(8.0f)}));
  // max_bin 4: t = 2, 4, 6 -> 3, 5, 7.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 4), 0), (std::vector<float>{3.0f, 5.0f, 7.0f, Last(8.0f)}));
  EXPECT_EQ(Cuts(d, 1, 4).min_values[0], -1e-5f);
}

TEST(Quantile, DuplicatesMergeEqualCuts) {
  // 1 x6, 2, 3, 4; W = 9; max_bin 3: t = 3, 6; W(x < 2) = 6 meets both -> one cut at 2.
  const DataSet d = Column({1, 1, 4, 1, 1, 2, 1, 3, 1});
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{2.0f, Last(4.0f)}));
  // max_bin 2: t_1 = 4.5 units floored; W(x < 2) = 6 -> 2.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 2), 0), (std::vector<float>{2.0f, Last(4.0f)}));
}

TEST(Quantile, NonUnitWeights) {
  // Values 1..5 weighing 1, .5, .5, 2, .25: W = 4.25; max_bin 3: t_1 = 1.4167, t_2 = 2.8333.
  // W(x<2) = 1, W(x<3) = 1.5 >= t_1 -> 3; W(x<4) = 2, W(x<5) = 4 >= t_2 -> 5.
  const DataSet d = Column({1, 2, 3, 4, 5}, {1.0f, 0.5f, 0.5f, 2.0f, 0.25f});
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{3.0f, 5.0f, Last(5.0f)}));
  // Weights 5, 1, 1, 1 on 1..4, max_bin 2: t_1 = 4; W(x < 2) = 5 -> 2.
  const DataSet heavy_first = Column({4, 3, 2, 1}, {1.0f, 1.0f, 1.0f, 5.0f});
  EXPECT_EQ(FeatureCuts(Cuts(heavy_first, 1, 2), 0), (std::vector<float>{2.0f, Last(4.0f)}));
  // Weights 1, 1, 1, 5: t_1 = 4 > W(x < 4) = 3: no quantile cut, only the final one.
  const DataSet heavy_last = Column({1, 2, 3, 4}, {1.0f, 1.0f, 1.0f, 5.0f});
  EXPECT_EQ(FeatureCuts(Cuts(heavy_last, 1, 2), 0), (std::vector<float>{Last(4.0f)}));
}

TEST(Quantile, WeightsScaleInvariantWhenExact) {
  // Doubling every weight doubles W and every W(x < u): same cuts.
  const DataSet a = Column({1, 2, 3, 4, 5}, {1.0f, 0.5f, 0.5f, 2.0f, 0.25f});
  const DataSet b = Column({1, 2, 3, 4, 5}, {2.0f, 1.0f, 1.0f, 4.0f, 0.5f});
  EXPECT_EQ(Cuts(a, 1, 3).values, Cuts(b, 1, 3).values);
}

TEST(Quantile, BadWeightIsAnError) {
  const DataSet d = Column({1, 2}, {1.0f, -1.0f});
  try {
    Cuts(d, 1, 256);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Cuts(Column({1, 2}), 1, 0), Error);  // max_bin 0
}

TEST(Quantile, FeatureWithNoValuesHasOneBin) {
  // Feature 1 is never present; feature 3 lies beyond num_features and is ignored.
  const DataSet d = MakeData({{{0, 1.0f}, {2, 5.0f}, {3, 9.0f}}, {{0, 2.0f}}});
  const HistogramCuts c = Cuts(d, 3, 256);
  ASSERT_EQ(c.NumFeatures(), 3u);
  EXPECT_EQ(c.ptr, (std::vector<uint32_t>{0, 2, 3, 4}));
  EXPECT_EQ(FeatureCuts(c, 1), (std::vector<float>{1e-5f + (1e-5f + 1e-5f)}));
  EXPECT_EQ(c.min_values[1], 1e-5f);
  EXPECT_EQ(FeatureCuts(c, 2), (std::vector<float>{Last(5.0f)}));
  EXPECT_EQ(c.min_values[2], 0.0f - 1e-5f);
}

TEST(Quantile, SearchBinAtAndAroundCuts) {
  // Feature 0: one value (cut 2.00001); feature 1: 1..8 with max_bin 4 -> 3, 5, 7, 16.00001.
  std::vector<std::vector<std::pair<uint32_t, float>>> rows;
  for (int v = 1; v <= 8; ++v) rows.push_back({{0u, 1.0f}, {1u, static_cast<float>(v)}});
  const HistogramCuts c = Cuts(MakeData(rows), 2, 4);
  ASSERT_EQ(c.ptr, (std::vector<uint32_t>{0, 1, 5}));
  EXPECT_EQ(c.SearchBin(0, 1.0f), 0u);
  EXPECT_EQ(c.SearchBin(0, 100.0f), 0u);  // clamped to the feature's last bin
  EXPECT_EQ(c.SearchBin(1, -100.0f), 1u);
  EXPECT_EQ(c.SearchBin(1, 2.9f), 1u);
  EXPECT_EQ(c.SearchBin(1, 3.0f), 2u);  // a cut value starts the next bin
  EXPECT_EQ(c.SearchBin(1, 4.99f), 2u);
  EXPECT_EQ(c.SearchBin(1, 5.0f), 3u);
  EXPECT_EQ(c.SearchBin(1, 7.0f), 4u);
  EXPECT_EQ(c.SearchBin(1, 8.0f), 4u);
  EXPECT_EQ(c.SearchBin(1, 1e30f), 4u);  // clamped
}

// The rule written the plainest way: sort (value, fixed weight) pairs, then follow quantile.h.
std::vector<float> ReferenceCuts(std::vector<std::pair<float, uint64_t>> column, int max_bin) {
  std::sort(column.begin(), column.end());
  std::map<float, uint64_t> weight_of;
  uint64_t total = 0;
  for (const auto& [v, w] : column) {
    weight_of[v] += w;
    total += w;
  }
  std::vector<float> cuts;
  if (weight_of.size() <= static_cast<std::size_t>(max_bin)) {
    for (auto it = std::next(weight_of.begin()); it != weight_of.end(); ++it) {
      cuts.push_back(it->first);
    }
  } else {
    for (int j = 1; j < max_bin; ++j) {
      const auto t = static_cast<uint64_t>(static_cast<unsigned __int128>(j) * total / max_bin);
      uint64_t below = 0;
      for (auto it = weight_of.begin(); it != weight_of.end(); ++it) {
        if (it != weight_of.begin() && below >= t) {
          if (cuts.empty() || it->first > cuts.back()) cuts.push_back(it->first);
          break;
        }
        below += it->second;
      }
    }
  }
  cuts.push_back(Last(weight_of.rbegin()->first));
  return cuts;
}

// 3000 rows, 3 features (feature 2 sparse), rounded values so that duplicates occur.
DataSet RandomData(uint32_t seed, bool weighted) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<std::vector<std::pair<uint32_t, float>>> rows(3000);
  std::vector<float> weight;
  for (auto& row : rows) {
    row.push_back({0u, std::round(normal(rng) * 10.0f) / 10.0f});
    row.push_back({1u, static_cast<float>(static_cast<int>(unit(rng) * 7))});
    if (unit(rng) < 0.3f) row.push_back({2u, normal(rng)});
    if (weighted) weight.push_back(std::round(unit(rng) * 100.0f) / 50.0f);
  }
  return MakeData(rows, weight);
}

TEST(Quantile, MatchesReferenceOnRandomData) {
  for (bool weighted : {false, true}) {
    const DataSet d = RandomData(7, weighted);
    for (int max_bin : {2, 5, 16, 256}) {
      const HistogramCuts c = Cuts(d, 3, max_bin, 2);
      for (uint32_t f = 0; f < 3; ++f) {
        std::vector<std::pair<float, uint64_t>> column;
        for (uint64_t i = 0; i < d.NumRows(); ++i) {
          for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
            if (d.index[k] != f) continue;
            column.push_back(
                {d.value[k], static_cast<uint64_t>(std::llround(d.Weight(i) * kWeightScale))});
          }
        }
        EXPECT_EQ(FeatureCuts(c, f), ReferenceCuts(column, max_bin))
            << "feature " << f << " max_bin " << max_bin << " weighted " << weighted;
      }
    }
  }
}

TEST(Quantile, IndependentOfRowOrderAndThreads) {
  for (bool weighted : {false, true}) {
    const DataSet d = RandomData(11, weighted);
    // The same rows in reverse order.
    DataSet r;
    r.row_ptr = {0};
    for (uint64_t i = d.NumRows(); i-- > 0;) {
      for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
        r.index.push_back(d.index[k]);
        r.value.push_back(d.value[k]);
      }
      r.row_ptr.push_back(r.index.size());
      if (weighted) r.weight.push_back(d.weight[i]);
    }
    const HistogramCuts one = Cuts(d, 3, 16, 1);
    const HistogramCuts two = Cuts(d, 3, 16, 2);
    const HistogramCuts reversed = Cuts(r, 3, 16, 2);
    EXPECT_EQ(one.ptr, two.ptr);
    EXPECT_EQ(one.values, two.values);
    EXPECT_EQ(one.min_values, two.min_values);
    EXPECT_EQ(one.values, reversed.values);
    EXPECT_EQ(one.min_values, reversed.min_values);
    EXPECT_GT(one.FeatureBins(0), 8u);  // not a trivial column
  }
}

TEST(Quantile, LargeColumnUsesSameRule) {
  // 5000 values (radix-sorted path) 0..4999 in a scrambled order, max_bin 4: t = 1250, 2500,
  // 3750 units; W(x < v) = v units -> cuts 1250, 2500, 3750.
  std::vector<float> values(5000);
  for (int i = 0; i < 5000; ++i) values[i] = static_cast<float>((i * 7919) % 5000);
  const HistogramCuts c = Cuts(Column(values), 1, 4, 2);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{1250.0f, 2500.0f, 3750.0f, Last(4999.0f)}));
  EXPECT_EQ(c.min_values[0], -1e-5f);
}

TEST(Quantile, AgaricusCutsAreXGBoosts) {
  RB_REQUIRE_SHARED_DATA();
  const DataSet d = LoadData(test::SharedDataDir() + "/agaricus/agaricus.txt.train", {});
  const HistogramCuts c = Cuts(d, d.num_col, 256, 2);
  ASSERT_EQ(c.NumFeatures(), 127u);
  // Every present value is 1: one bin cut at 2.00001001 (`f29<2.00001001` in XGBoost's dump).
  // Ten features never occur in the training file (0, 33, 35, ...): the empty-column cut.
  std::vector<bool> present(c.NumFeatures(), false);
  for (uint32_t f : d.index) present[f] = true;
  EXPECT_EQ(std::count(present.begin(), present.end(), false), 10);
  for (uint32_t f = 0; f < c.NumFeatures(); ++f) {
    const float cut = present[f] ? 2.00001001f : 1e-5f + (1e-5f + 1e-5f);
    EXPECT_EQ(FeatureCuts(c, f), (std::vector<float>{cut})) << "feature " << f;
    EXPECT_EQ(c.min_values[f], present[f] ? -1e-5f : 1e-5f) << "feature " << f;
  }
}

}  // namespace
}  // namespace ringboost

// Cuts of tiny columns derived by hand from quantile.h's rule, the rule written out plainly and
// compared on random columns, and the rule's independence of row order and thread count.
//
// Reading the hand derivations. The exact summary has one entry per distinct value v:
// rmin = weight below v, rmax = weight up to and including v, wmin = weight of v; below, an
// entry is written v[rmin, rmax). SetPrune(src, maxsize) keeps the first and last entries and,
// for k = 1 .. n-1 with n = maxsize - 1,
//   dx2 = 2 * (k * range / n + begin),  begin = rmax of the first, range = rmin of the last - begin
// (in float). i is the last entry (from 1 on) with rmin + rmax <= dx2; entry i is kept when
// dx2 < (rmin_i + wmin_i) + (rmax_{i+1} - wmin_{i+1}), else entry i + 1; an entry already kept by
// the previous k is not kept twice (XGBoost's lastidx). In every summary here rmin + wmin = rmax,
// so with d = dx2 / 2 the test reads d < (rmax_i + rmin_{i+1}) / 2: the entry on d's side of the
// middle of the gap after i; on an exact summary (rmax_i = rmin_{i+1}) that is the entry whose
// [rmin, rmax) holds d. The column is pruned to min(rows, 8 * max_bin) entries, then to
// max_bin + 1; the cuts are the kept values at index 1 .. min(size, max_bin) - 1 (increasing),
// then Last(u_max).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/sort_util.h"
#include "data/data.h"
#include "helpers.h"
#include "rabit/communicator.h"
#include "tree/bins/quantile.h"
#include "tree/bins/quantile_data.h"

namespace ringboost {
namespace {

using test::MakeData;
using test::RandomData;

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

TEST(Quantile, MaxBinPlusOneValuesAreNotPruned) {
  // 1..5, max_bin 4: the 5-entry summary fits max_bin + 1 = 5 as it is; the cuts are the values
  // at index 1 .. min(5, 4) - 1 = 2, 3, 4, then Last(5): 4 and 5 share the last bin.
  const DataSet d = Column({5, 4, 3, 2, 1});
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 4), 0), (std::vector<float>{2.0f, 3.0f, 4.0f, Last(5.0f)}));
}

// Values 1..8, unit weights, 8 rows (8 * max_bin >= 8: the first prune keeps all 8 entries).
// Summary: v[v - 1, v); rmin + rmax = 2v - 1. begin = 1, range = 7 - 1 = 6.
TEST(Quantile, MoreValuesThanBinsUnitWeights) {
  const DataSet d = Column({8, 3, 1, 6, 2, 7, 5, 4});
  // max_bin 2 -> 3 entries, n = 2. k = 1: dx2 = 2 * (6/2 + 1) = 8; i = 4 (7 <= 8 < 9);
  // 8 < (3 + 1) + (5 - 1) = 8? no -> 5. Kept 1, 5, 8; index 1 .. 1: cut 5.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 2), 0), (std::vector<float>{5.0f, Last(8.0f)}));
  // max_bin 3 -> 4 entries, n = 3. k = 1: dx2 = 2 * (2 + 1) = 6; i = 3 (5 <= 6 < 7); 6 < 3 + 3?
  // no -> 4. k = 2: dx2 = 2 * (4 + 1) = 10; i = 5 (9 <= 10 < 11); 10 < 5 + 5? no -> 6.
  // Kept 1, 4, 6, 8; index 1 .. 2: cuts 4, 6.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{4.0f, 6.0f, Last(8.0f)}));
  // max_bin 4 -> 5 entries, n = 4. k = 1: dx2 = 2 * (1.5 + 1) = 5; i = 3 (5 <= 5 < 7);
  // 5 < 3 + 3 -> 3. k = 2: dx2 = 8; i = 4; 8 < 4 + 4? no -> 5. k = 3: dx2 = 2 * (4.5 + 1) = 11;
  // i = 6 (11 <= 11 < 13); 11 < 6 + 6 -> 6. Kept 1, 3, 5, 6, 8; index 1 .. 3: cuts 3, 5, 6.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 4), 0), (std::vector<float>{3.0f, 5.0f, 6.0f, Last(8.0f)}));
  EXPECT_EQ(Cuts(d, 1, 4).min_values[0], -1e-5f);
}

// 1, 2, 3 x10, 4, 5 (14 rows). Summary: 1[0,1) 2[1,2) 3[2,12) 4[12,13) 5[13,14);
// rmin + rmax: 1, 3, 14, 25, 27. begin = 1, range = 13 - 1 = 12.
TEST(Quantile, DuplicatesMergeEqualCuts) {
  const DataSet d = Column({3, 1, 3, 3, 5, 3, 3, 2, 3, 3, 4, 3, 3, 3});
  // max_bin 3 -> 4 entries, n = 3. k = 1: dx2 = 2 * (4 + 1) = 10; i = 2 (3 <= 10 < 14);
  // 10 < 2 + 2? no -> 3. k = 2: dx2 = 2 * (8 + 1) = 18; i = 3 (14 <= 18 < 25); 18 < 12 + 12
  // -> 3 again, already kept (lastidx): skipped. Kept 1, 3, 5; index 1 .. 2: cuts 3, 5.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{3.0f, 5.0f, Last(5.0f)}));
  // max_bin 2 -> 3 entries, n = 2. k = 1: dx2 = 2 * (6 + 1) = 14; i = 3 (14 <= 14 < 25);
  // 14 < 24 -> 3. Kept 1, 3, 5; index 1 .. 1: cut 3.
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 2), 0), (std::vector<float>{3.0f, Last(5.0f)}));
}

TEST(Quantile, WeightEqualsRepetition) {
  // 1..5 weighing 1, 1, 10, 1, 1 is DuplicatesMergeEqualCuts' summary: same cuts.
  const DataSet d = Column({1, 2, 3, 4, 5}, {1.0f, 1.0f, 10.0f, 1.0f, 1.0f});
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 3), 0), (std::vector<float>{3.0f, 5.0f, Last(5.0f)}));
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 2), 0), (std::vector<float>{3.0f, Last(5.0f)}));
}

TEST(Quantile, NonUnitWeights) {
  // 1..5 weighing 1, .5, .5, 2, .25: 1[0,1) 2[1,1.5) 3[1.5,2) 4[2,4) 5[4,4.25);
  // rmin + rmax: 1, 2.5, 3.5, 6, 8.25. max_bin 3 -> 4 entries, n = 3; begin = 1,
  // range = 4 - 1 = 3. k = 1: dx2 = 2 * (1 + 1) = 4; i = 3 (3.5 <= 4 < 6); 4 < 2 + 2? no -> 4.
  // k = 2: dx2 = 6; i = 4 (6 <= 6 < 8.25); 6 < 4 + 4 -> 4 again, skipped. Kept 1, 4, 5;
  // index 1 .. 2: cuts 4, 5.
  const DataSet a = Column({1, 2, 3, 4, 5}, {1.0f, 0.5f, 0.5f, 2.0f, 0.25f});
  EXPECT_EQ(FeatureCuts(Cuts(a, 1, 3), 0), (std::vector<float>{4.0f, 5.0f, Last(5.0f)}));
  // 1..6 weighing 2, .5, .5, 1, 3, 1: 1[0,2) 2[2,2.5) 3[2.5,3) 4[3,4) 5[4,7) 6[7,8);
  // rmin + rmax: 2, 4.5, 5.5, 7, 11, 15. max_bin 4 -> 5 entries, n = 4; begin = 2,
  // range = 7 - 2 = 5. k = 1: dx2 = 2 * (1.25 + 2) = 6.5; i = 3 (5.5 <= 6.5 < 7);
  // 6.5 < 3 + 3? no -> 4. k = 2: dx2 = 9; i = 4 (7 <= 9 < 11); 9 < 4 + 4? no -> 5.
  // k = 3: dx2 = 11.5; i = 5 (11 <= 11.5 < 15); 11.5 < 7 + 7 -> 5 again, skipped.
  // Kept 1, 4, 5, 6; index 1 .. 3: cuts 4, 5, 6.
  const DataSet b = Column({1, 2, 3, 4, 5, 6}, {2.0f, 0.5f, 0.5f, 1.0f, 3.0f, 1.0f});
  EXPECT_EQ(FeatureCuts(Cuts(b, 1, 4), 0), (std::vector<float>{4.0f, 5.0f, 6.0f, Last(6.0f)}));
}

TEST(Quantile, ExtremeWeightsDoNotMoveCuts) {
  // range runs from the first entry's rmax to the last one's rmin: the weights of the smallest
  // and largest values do not move the cuts. max_bin 2 -> 3 entries, n = 2, one k.
  // Unit 1..4: 1[0,1) 2[1,2) 3[2,3) 4[3,4); begin 1, range 2; dx2 = 2 * (1 + 1) = 4;
  //   i = 2 (3 <= 4 < 5); 4 < 2 + 2? no -> 3.
  // 5, 1, 1, 1: 1[0,5) 2[5,6) 3[6,7) 4[7,8); begin 5, range 2; dx2 = 2 * (1 + 5) = 12;
  //   i = 2 (11 <= 12 < 13); 12 < 6 + 6? no -> 3.
  // 1, 1, 1, 5: 1[0,1) 2[1,2) 3[2,3) 4[3,8); begin 1, range 2; as unit -> 3.
  const std::vector<float> expected{3.0f, Last(4.0f)};
  EXPECT_EQ(FeatureCuts(Cuts(Column({4, 3, 2, 1}), 1, 2), 0), expected);
  EXPECT_EQ(FeatureCuts(Cuts(Column({4, 3, 2, 1}, {1, 1, 1, 5}), 1, 2), 0), expected);
  EXPECT_EQ(FeatureCuts(Cuts(Column({1, 2, 3, 4}, {1, 1, 1, 5}), 1, 2), 0), expected);
}

// 1, 2, 2, 3, ..., 20: 21 rows, 20 distinct values; max_bin 2: first to min(21, 16) = 16
// entries, then to 3. Summary: 1[0,1) 2[1,3) and v[v, v+1) for v >= 3.
TEST(Quantile, FirstPruneStageMatters) {
  std::vector<float> values{2};
  for (int v = 1; v <= 20; ++v) values.push_back(static_cast<float>(v));
  // Stage 1: begin = 1, range = 20 - 1 = 19, n = 15; d = dx2 / 2 = 1 + 19k/15 for k = 1..14:
  // 2.27 3.53 4.80 6.07 7.33 8.60 9.87 11.13 12.40 13.67 14.93 16.20 17.47 18.73 (dx2 = 4.53,
  // 7.07, 9.60, 12.13, 14.67, 17.20, 19.73, 22.27, 24.80, 27.33, 29.87, 32.40, 34.93, 37.47),
  // each in [rmin, rmax) of 2 3 4 6 7 8 9 11 12 13 14 16 17 18: 5, 10, 15 and 19 are dropped.
  // Stage 2 (16 entries -> 3): begin = 1, range = 20 - 1 = 19, n = 2. k = 1: dx2 = 2 * (9.5 + 1)
  // = 21; i = 9[9,10) (19 <= 21 < 23 of 11[11,12)); 21 < (9 + 1) + (12 - 1) = 21? no -> 11.
  // Kept 1, 11, 20; index 1 .. 1: cut 11.
  EXPECT_EQ(FeatureCuts(Cuts(Column(values), 1, 2), 0), (std::vector<float>{11.0f, Last(20.0f)}));
  // Pruning the exact summary once to 3 entries would keep 10: the same k finds
  // i = 10[10,11) (21 <= 21 < 23) and 21 < 11 + 11.
}

TEST(Quantile, WeightsScaleInvariantWhenExact) {
  // Doubling every weight doubles every rank exactly (powers of two in float): same cuts.
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

// Rows of weight 0 are no part of the column (XGBoost's sketch drops them on Push). x = 0..9, the
// row of x = 5 weighing 0: the distinct values are 0..4 and 6..9, one bin each, so the cuts are
// 1, 2, 3, 4, 6, 7, 8, 9 and Last(9) (a split between 4 and 6 is at x < 6, not x < 5).
TEST(Quantile, ZeroWeightRowsMakeNoCuts) {
  std::vector<float> weight(10, 1.0f);
  weight[5] = 0.0f;
  const DataSet d = Column({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, weight);
  EXPECT_EQ(FeatureCuts(Cuts(d, 1, 256), 0),
            (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9, Last(9.0f)}));
  // The smallest value weighing 0 sets no min_value: 1 - |1| - 1e-5.
  weight = std::vector<float>(10, 1.0f);
  weight[0] = 0.0f;
  const HistogramCuts c = Cuts(Column({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, weight), 1, 256);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 9, Last(9.0f)}));
  EXPECT_EQ(c.min_values[0], -1e-5f);
  // More values than bins: 0.5 weighing 0 before WeightEqualsRepetition's column leaves its
  // summary, hence its cuts, as they were (0.5 would be the kept first entry, 1 a cut).
  const DataSet p = Column({0.5f, 1, 2, 3, 4, 5}, {0.0f, 1.0f, 1.0f, 10.0f, 1.0f, 1.0f});
  EXPECT_EQ(FeatureCuts(Cuts(p, 1, 3), 0), (std::vector<float>{3.0f, 5.0f, Last(5.0f)}));
  // Every entry weighing 0: cut as a feature with no value.
  const HistogramCuts e = Cuts(Column({1, 2}, {0.0f, 0.0f}), 1, 256);
  EXPECT_EQ(FeatureCuts(e, 0), (std::vector<float>{1e-5f + (1e-5f + 1e-5f)}));
  EXPECT_EQ(e.min_values[0], 1e-5f);
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
  // Feature 0: one value (cut 2.00001); feature 1: 1..8 with max_bin 4 -> 3, 5, 6, 16.00001
  // (MoreValuesThanBinsUnitWeights).
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
  EXPECT_EQ(c.SearchBin(1, 5.99f), 3u);
  EXPECT_EQ(c.SearchBin(1, 6.0f), 4u);
  EXPECT_EQ(c.SearchBin(1, 8.0f), 4u);
  EXPECT_EQ(c.SearchBin(1, 1e30f), 4u);  // clamped
}

// ---- The rule written the plainest way, for random columns. ----

struct RefEntry {
  float rmin, rmax, wmin, value;
};

// XGBoost 1.7's WQSummary::SetPrune, step by step as the file-top comment describes.
std::vector<RefEntry> RefPrune(const std::vector<RefEntry>& src, std::size_t maxsize) {
  if (src.size() <= maxsize) return src;
  const std::size_t last = src.size() - 1;
  const float begin = src.front().rmax;
  const float range = src.back().rmin - begin;
  const std::size_t n = maxsize - 1;
  std::vector<RefEntry> out{src.front()};
  std::size_t i = 1;
  std::size_t kept = 0;  // index in src of the entry kept last
  for (std::size_t k = 1; k < n; ++k) {
    const float dx2 = 2.0f * (static_cast<float>(k) * range / static_cast<float>(n) + begin);
    while (i < last && dx2 >= src[i + 1].rmax + src[i + 1].rmin) ++i;
    if (i == last) break;
    const float rmin_next = src[i].rmin + src[i].wmin;
    const float rmax_prev = src[i + 1].rmax - src[i + 1].wmin;
    std::size_t pick = i + 1;
    if (dx2 < rmin_next + rmax_prev) pick = i;
    if (pick == kept) continue;
    out.push_back(src[pick]);
    kept = pick;
  }
  if (kept != last) out.push_back(src.back());
  return out;
}

// Cuts of one column of (value, fixed-point weight) pairs: sort, sum equal values (those of
// weight 0 left out), build the exact summary (each rank the exact fixed-point sum / kWeightScale
// as a double, then float), prune twice, add cuts.
std::vector<float> ReferenceCuts(std::vector<std::pair<float, uint64_t>> column, int max_bin) {
  std::sort(column.begin(), column.end());
  std::vector<std::pair<float, uint64_t>> distinct;  // value, summed weight
  for (const auto& [v, w] : column) {
    if (w == 0) continue;
    if (distinct.empty() || distinct.back().first != v) {
      distinct.push_back({v, w});
    } else {
      distinct.back().second += w;
    }
  }
  std::vector<float> cuts;
  if (distinct.empty()) return {1e-5f + (1e-5f + 1e-5f)};  // no value: the empty column's cut
  if (distinct.size() <= static_cast<std::size_t>(max_bin)) {
    for (std::size_t j = 1; j < distinct.size(); ++j) cuts.push_back(distinct[j].first);
    cuts.push_back(Last(distinct.back().first));
    return cuts;
  }
  std::vector<RefEntry> summary;
  auto to_float = [](uint64_t fixed) {
    return static_cast<float>(static_cast<double>(fixed) / kWeightScale);
  };
  uint64_t below = 0;  // exact sums, each rounded to float once
  for (const auto& [v, w] : distinct) {
    summary.push_back({to_float(below), to_float(below + w), to_float(w), v});
    below += w;
  }
  const std::size_t stage1 = std::min<std::size_t>(column.size(), 8 * max_bin);
  const std::size_t stage2 = std::min<std::size_t>(stage1, max_bin) + 1;
  summary = RefPrune(RefPrune(summary, stage1), stage2);
  const std::size_t end = std::min<std::size_t>(summary.size(), stage2 - 1);
  for (std::size_t j = 1; j < end; ++j) {
    if (cuts.empty() || summary[j].value > cuts.back()) cuts.push_back(summary[j].value);
  }
  cuts.push_back(Last(summary.back().value));
  return cuts;
}

// Feature f's column of d as (value, fixed-point weight) pairs, as quantile.cc weighs rows.
std::vector<std::pair<float, uint64_t>> ColumnOf(const DataSet& d, uint32_t f) {
  std::vector<std::pair<float, uint64_t>> column;
  for (uint64_t i = 0; i < d.NumRows(); ++i) {
    for (uint64_t k = d.row_ptr[i]; k < d.row_ptr[i + 1]; ++k) {
      if (d.index[k] != f) continue;
      column.push_back(
          {d.value[k], static_cast<uint64_t>(std::llround(d.Weight(i) * kWeightScale))});
    }
  }
  return column;
}

TEST(Quantile, ReferenceAgreesWithHandDerivations) {
  // The reference must itself follow the rule: FirstPruneStageMatters and NonUnitWeights.
  std::vector<std::pair<float, uint64_t>> column{{2.0f, 1}};
  for (int v = 1; v <= 20; ++v) column.push_back({static_cast<float>(v), 1});
  EXPECT_EQ(ReferenceCuts(column, 2), (std::vector<float>{11.0f, Last(20.0f)}));
  const auto half = static_cast<uint64_t>(kWeightScale / 2);
  column = {{1.0f, 2 * half}, {2.0f, half}, {3.0f, half}, {4.0f, 4 * half}, {5.0f, half / 2}};
  EXPECT_EQ(ReferenceCuts(column, 3), (std::vector<float>{4.0f, 5.0f, Last(5.0f)}));
}

// Small columns (std::sort path) and large ones (radix path), with max_bin below, near and
// above the number of distinct values, and with and without the first prune stage.
TEST(Quantile, MatchesReferenceOnRandomData) {
  for (int rows : {300, 3000}) {
    for (bool weighted : {false, true}) {
      const DataSet d = RandomData(7, weighted, rows);
      for (int max_bin : {2, 3, 5, 16, 64, 256}) {
        const HistogramCuts c = Cuts(d, 3, max_bin, 2);
        for (uint32_t f = 0; f < 3; ++f) {
          EXPECT_EQ(FeatureCuts(c, f), ReferenceCuts(ColumnOf(d, f), max_bin))
              << "rows " << rows << " feature " << f << " max_bin " << max_bin << " weighted "
              << weighted;
        }
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
  // 5000 values 0..4999 (radix-sorted path) in a scrambled order, max_bin 4. Summary v[v, v+1).
  // Stage 1 (to min(5000, 32) = 32 entries): begin 1, range 4999 - 1 = 4998, n = 31;
  // d = 1 + 4998k/31 (fraction (7k mod 31)/31, never near an integer) keeps floor(d):
  // ... 1129 (k 7), 1290 (k 8) ... 2419 (k 15), 2580 (k 16) ... 3709 (k 23), 3870 (k 24) ...
  // Stage 2 (to 5): begin 1, range 4998, n = 4; d = 1250.5, 2500, 3749.5 against the gap
  // middles (1129 + 1 + 1290) / 2 = 1210, (2420 + 2580) / 2 = 2500, (3710 + 3870) / 2 = 3790:
  // 1250.5 >= 1210 -> 1290; 2500 >= 2500 -> 2580 (dx2 = 5000 = 2420 + 2580 exactly);
  // 3749.5 < 3790 -> 3709. (One prune of the exact summary would give 1250, 2500, 3749.)
  std::vector<float> values(5000);
  for (int i = 0; i < 5000; ++i) values[i] = static_cast<float>((i * 7919) % 5000);
  const HistogramCuts c = Cuts(Column(values), 1, 4, 2);
  EXPECT_EQ(FeatureCuts(c, 0), (std::vector<float>{1290.0f, 2580.0f, 3709.0f, Last(4999.0f)}));
  EXPECT_EQ(c.min_values[0], -1e-5f);
  // The same column weighted, and a long weighted column with few distinct values, against the
  // reference, at several max_bin.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(0, 40);
  std::vector<float> weight(values.size()), few(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    weight[i] = static_cast<float>(small(rng)) / 7.0f;
    few[i] = static_cast<float>(small(rng)) - 20.0f;
  }
  for (const DataSet& d : {Column(values, weight), Column(few, weight), Column(few)}) {
    for (int max_bin : {2, 4, 16, 256}) {
      EXPECT_EQ(FeatureCuts(Cuts(d, 1, max_bin, 2), 0), ReferenceCuts(ColumnOf(d, 0), max_bin))
          << "max_bin " << max_bin;
    }
  }
}

// A column above the parallel radix sort's minimum, alone in its batch, is sorted by all the
// threads (RadixSortByKeyOnThreads): the same cuts for 1, 2 and 3 threads, unweighted and
// weighted, and the reference's.
TEST(Quantile, ColumnSortedOnThreadsGivesTheSameCuts) {
  const std::size_t n = detail::kParallelRadixSortMinSize * 2 + 17;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  std::uniform_int_distribution<int> small(1, 40);
  std::vector<float> values(n), weight(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = i % 5 == 0 ? 3.0f : value(rng);  // a fifth of the rows tie on one value
    weight[i] = static_cast<float>(small(rng)) / 8.0f;
  }
  for (const DataSet& d : {Column(values), Column(values, weight)}) {
    const std::vector<float> want = ReferenceCuts(ColumnOf(d, 0), 256);
    for (int nthread : {1, 2, 3}) {
      EXPECT_EQ(FeatureCuts(Cuts(d, 1, 256, nthread), 0), want) << nthread << " threads";
    }
  }
}

// The one-worker cuts read a sorted column's summary forward (the first entry, the last, and a
// window of two that only moves on): runs of equal values at both ends, distinct counts just
// above max_bin, at 8 * max_bin (no first prune) and above it, weighted and not, against the
// reference.
TEST(Quantile, SortedColumnSummaryEdges) {
  const int max_bin = 4;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> small(0, 9);
  for (int distinct : {max_bin + 1, max_bin + 2, 8 * max_bin, 8 * max_bin + 1, 200}) {
    std::vector<float> values, weight;
    for (int v = 0; v < distinct; ++v) {
      const int copies = v == 0 || v == distinct - 1 ? 50 : 1 + small(rng) % 3;
      for (int c = 0; c < copies; ++c) {
        values.push_back(static_cast<float>(v) * 0.25f - 3.0f);
        weight.push_back(static_cast<float>(small(rng)) / 4.0f);
      }
    }
    std::shuffle(values.begin(), values.end(), rng);
    for (const DataSet& d : {Column(values), Column(values, weight)}) {
      EXPECT_EQ(FeatureCuts(Cuts(d, 1, max_bin, 2), 0), ReferenceCuts(ColumnOf(d, 0), max_bin))
          << "distinct " << distinct << " weighted " << !d.weight.empty();
    }
  }
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

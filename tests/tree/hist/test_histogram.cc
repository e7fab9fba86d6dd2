#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "tree/bins/bundles.h"
#include "tree/hist/histogram.h"
#include "tree/hist/histogram_kernels.h"
#include "tree/tree_builders.h"

namespace ringboost {
namespace {

// Random rows (a third of the entries missing when sparse) and random quantized gradients.
struct HistFixture {
  DataSet data;
  HistogramCuts cuts;
  std::unique_ptr<BinnedMatrix> matrix;
  std::vector<GradientSum> gpair;

  // levels[f], where given and not 0: feature f takes that many values (else up to 300).
  HistFixture(bool sparse, int rows, int features = 5, int max_bin = 64,
              const std::vector<int>& levels = {}) {
    std::vector<std::vector<float>> values;
    uint64_t s = 7;
    auto next = [&s] {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      return s >> 33;
    };
    for (int i = 0; i < rows; ++i) {
      std::vector<float> r;
      for (int f = 0; f < features; ++f) {
        const uint64_t values =
            f < static_cast<int>(levels.size()) && levels[f] != 0 ? levels[f] : 300;
        float v = static_cast<float>(next() % values);
        r.push_back(sparse && next() % 3 == 0 ? NAN : v);
      }
      values.push_back(r);
      gpair.push_back(GradientSum{static_cast<int64_t>(next() % 2001) - 1000,
                                  static_cast<int64_t>(next() % 1000)});
    }
    data = test::DenseRows(values, std::vector<float>(rows, 0.0f));
    auto comm = rabit::MakeLocalCommunicator();
    cuts = ComputeCuts(data, data.num_col, max_bin, comm.get(), 2);
    matrix = std::make_unique<BinnedMatrix>(BinnedMatrix::Build(data, cuts, 2));
  }

  // Direct sum over the rows of a node.
  Histogram Naive(const RowPartitioner& p, int nid) const { return Naive(p, nid, gpair); }
  Histogram Naive(const RowPartitioner& p, int nid, const std::vector<GradientSum>& g) const {
    Histogram h(cuts.TotalBins());
    auto r = p.NodeRange(nid);
    for (uint64_t i = 0; i < r.size(); ++i) {
      uint32_t row = p.NodeRows(nid)[i];
      for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
        int64_t bin = matrix->GetBin(row, f, cuts);
        if (bin >= 0) h[bin] += g[row];
      }
    }
    return h;
  }
};

TEST(Histogram, EqualsDirectSumAnyThreadsAndLayout) {
  for (bool sparse : {false, true}) {
    HistFixture fx(sparse, 9000);  // several row blocks
    EXPECT_EQ(fx.matrix->layout() == BinnedMatrix::Layout::kSparse, sparse);
    RowPartitioner p(fx.data.NumRows());
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 3 != 0; }, 2);
    for (int threads : {1, 2, 3}) {
      HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads);
      Histogram h1, h2;
      builder.Build(fx.gpair, p, {1, 2}, {&h1, &h2});
      EXPECT_EQ(h1, fx.Naive(p, 1)) << "threads " << threads;
      EXPECT_EQ(h2, fx.Naive(p, 2)) << "threads " << threads;
      // Built twice: equal bit for bit.
      Histogram again;
      builder.Build(fx.gpair, p, {1}, {&again});
      EXPECT_EQ(again, h1);
    }
  }
}

// Dense rows narrow enough for a record (16 bytes of gradient and the bins, up to 256 bytes): the
// root's build stores each row's gradient beside its bins, and the deeper builds that reuse the
// gradients read it from there, not from gpair. 8-bit and 16-bit bins; 5 and 19 features, so
// that the dense loop's 8-byte words of bins (8 or 4 bins each) come whole and with a rest.
TEST(Histogram, DenseRecordsKeepTheRootsGradients) {
  for (auto [max_bin, features] : {std::pair{64, 5}, {64, 19}, {512, 5}, {512, 19}}) {
    SCOPED_TRACE(testing::Message() << "max_bin " << max_bin << ", features " << features);
    HistFixture fx(false, 9000, features, max_bin);
    ASSERT_EQ(fx.matrix->BinBytes(), max_bin == 64 ? 1 : 2);
    RowPartitioner root(fx.data.NumRows());
    RowPartitioner p(fx.data.NumRows());
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 5 < 2; }, 2);
    for (int threads : {1, 2}) {
      HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads);
      ASSERT_TRUE(builder.UsesRecords());
      std::vector<GradientSum> first = fx.gpair, second = fx.gpair;
      for (GradientSum& g : second) g = GradientSum{3 * g.g + 1, g.h / 2};
      for (const auto* g : {&first, &second}) {  // two trees, new gradients each
        Histogram h0, h1, h2;
        builder.Build(*g, root, {0}, {&h0});
        EXPECT_EQ(h0, fx.Naive(root, 0, *g)) << "threads " << threads;
        builder.Build(*g, p, {1, 2}, {&h1, &h2}, /*reuse_gradients=*/true);
        EXPECT_EQ(h1, fx.Naive(p, 1, *g)) << "threads " << threads;
        EXPECT_EQ(h2, fx.Naive(p, 2, *g)) << "threads " << threads;
      }
      // Reusing reads the stored gradients: the second tree's, whatever gpair now says.
      Histogram stale;
      builder.Build(first, p, {1}, {&stale}, /*reuse_gradients=*/true);
      EXPECT_EQ(stale, fx.Naive(p, 1, second));
    }
  }
}

// Rows too wide for a record (300 features): the builder reads the matrix's rows and gpair.
TEST(Histogram, WideDenseRowsWithoutRecords) {
  HistFixture fx(false, 3000, 300);
  RowPartitioner p(fx.data.NumRows());
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 7 < 3; }, 2);
  HistogramBuilder builder(fx.matrix.get(), &fx.cuts, 2);
  EXPECT_FALSE(builder.UsesRecords());
  Histogram h1, h2;
  builder.Build(fx.gpair, p, {1, 2}, {&h1, &h2}, /*reuse_gradients=*/true);
  EXPECT_EQ(h1, fx.Naive(p, 1));
  EXPECT_EQ(h2, fx.Naive(p, 2));
}

TEST(Histogram, SubtractionGivesSibling) {
  HistFixture fx(true, 3000);
  RowPartitioner p(fx.data.NumRows());
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row < 1000; }, 2);
  HistogramBuilder builder(fx.matrix.get(), &fx.cuts, 2);
  Histogram root, left;
  builder.Build(fx.gpair, RowPartitioner(fx.data.NumRows()), {0}, {&root});
  builder.Build(fx.gpair, p, {1}, {&left});
  HistogramBuilder::Subtract({&left}, {&root}, 2);  // the root's becomes the right child's
  EXPECT_EQ(root, fx.Naive(p, 2));
}

// A level with a large node and a small one: with 2 threads the small one (an eighth of the
// level's rows) is built whole into its output, the large one in blocks over private histograms;
// with 3 threads both in blocks, with 1 both whole. Outputs that held other values come out right.
TEST(Histogram, WholeNodesAndBlockedNodesInOneLevel) {
  HistFixture fx(false, 40000);
  RowPartitioner p(fx.data.NumRows());
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 8 != 0; }, 2);
  ASSERT_EQ(p.NodeRange(2).size(), 5000u);
  for (int threads : {1, 2, 3}) {
    HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads);
    Histogram h1(fx.cuts.TotalBins(), GradientSum{7, 7}), h2(3, GradientSum{1, 1});
    builder.Build(fx.gpair, p, {1, 2}, {&h1, &h2});
    EXPECT_EQ(h1, fx.Naive(p, 1)) << "threads " << threads;
    EXPECT_EQ(h2, fx.Naive(p, 2)) << "threads " << threads;
  }
}

// The wide way builds one node at a time, touched chunks only, and clears what it used: the
// same histogram as Build for every node, built in any order, for sparse and dense layouts.
TEST(Histogram, WideEqualsBuildAndListsTouchedChunks) {
  for (bool sparse : {true, false}) {
    HistFixture fx(sparse, 5000);
    RowPartitioner p(fx.data.NumRows());
    p.Partition(
        {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 4 == 0; }, 2);
    // 1-4 threads own stripes of bins; more use private histograms merged over touched chunks.
    for (int threads : {1, 2, 3, 6}) {
      HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads);
      for (int nid : {1, 2, 0, 1}) {
        builder.BuildWide(fx.gpair, p, nid);
        Histogram expected;
        HistogramBuilder(fx.matrix.get(), &fx.cuts, 1).Build(fx.gpair, p, {nid}, {&expected});
        ASSERT_EQ(builder.wide_hist(), expected) << "node " << nid;
        const auto& chunks = builder.wide_chunks();
        EXPECT_TRUE(std::is_sorted(chunks.begin(), chunks.end()));
        for (std::size_t b = 0; b < expected.size(); ++b) {
          if (expected[b] == GradientSum{}) continue;
          EXPECT_TRUE(
              std::binary_search(chunks.begin(), chunks.end(), b >> HistogramBuilder::kChunkShift))
              << "bin " << b;
        }
      }
    }
  }
}

// A packed 16+16 cell is g * 2^16 + h in one word: sums of packed rows, wrapping, decode to the
// sums of g and of h wherever both stay within +-32767, whatever their signs (the low half is
// borrowed from or carried into the high one on the way).
TEST(Histogram, PackedCellsDecodeTheirSums) {
  const std::vector<std::pair<int64_t, int64_t>> sums = {
      {0, 0},          {1, -1},         {-1, 1},         {32767, 32767}, {-32767, -32767},
      {32767, -32767}, {-32767, 32767}, {-32768, 12345}, {-2, 32767}};
  for (const auto& [g, h] : sums) {
    EXPECT_EQ(Packed16::Unpack(Packed16::Pack(g, h)), (GradientSum{g, h})) << g << " " << h;
    // As a build reaches it: rows of -7..7 each, added one word at a time.
    uint32_t word = 0;
    int64_t left_g = g, left_h = h;
    while (left_g != 0 || left_h != 0) {
      const int64_t dg = std::clamp<int64_t>(left_g, -7, 7);
      const int64_t dh = std::clamp<int64_t>(left_h, -7, 7);
      word += Packed16::Pack(dg, dh);
      left_g -= dg;
      left_h -= dh;
    }
    EXPECT_EQ(Packed16::Unpack(word), (GradientSum{g, h})) << g << " " << h;
  }
}

// Low-bit builds (2-byte gradients in the records, rows summed in chunks of at most
// 32767 / kLevels into packed 16-bit cells, each chunk widened) sum what the direct sum gives: a
// root of 12,000 rows (three chunks a task at one thread, in blocks at more) and children of
// 1,000 rows (one task) and 11,000 (blocks), the children from the records' gradients. 63 bins
// a feature: the widening's four-cell steps end with a partial step. 21 features: two words of
// bins and a rest in the dense loop.
TEST(Histogram, LowBitNarrowCellsEqualDirectSum) {
  HistFixture fx(false, 12000, 21, 63);
  ASSERT_NE(fx.cuts.TotalBins() % 4, 0u);
  for (GradientSum& g : fx.gpair) {  // values a low-bit quantizer gives: |q| <= kLevels
    g.g = g.g % (LowBitPolicy::kLevels + 1);
    g.h = g.h % (LowBitPolicy::kLevels + 1);
  }
  RowPartitioner p(fx.data.NumRows());
  for (int threads : {1, 2, 3}) {
    HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads, /*low_bit=*/true);
    ASSERT_TRUE(builder.UsesRecords());
    Histogram root;
    builder.Build(fx.gpair, p, {0}, {&root});
    EXPECT_EQ(root, fx.Naive(p, 0)) << "threads " << threads;
  }
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 12 == 0; }, 2);
  ASSERT_EQ(p.NodeRange(1).size(), 1000u);
  for (int threads : {1, 2, 3}) {
    HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads, /*low_bit=*/true);
    Histogram root, h1, h2;
    RowPartitioner all(fx.data.NumRows());
    builder.Build(fx.gpair, all, {0}, {&root});  // stores the gradients into the records
    const std::vector<GradientSum> zeros(fx.gpair.size());
    builder.Build(zeros, p, {1, 2}, {&h1, &h2}, /*reuse_gradients=*/true);
    EXPECT_EQ(h1, fx.Naive(p, 1)) << "threads " << threads;
    EXPECT_EQ(h2, fx.Naive(p, 2)) << "threads " << threads;
  }
}

// A low-bit chunk's packed 16+16-bit cells widened into 64+64-bit ones: the AVX2 lanes (where
// the CPU has them) and the baseline give Packed16::Unpack's values, written over or added to
// random cells, for lengths that leave every remainder of the lanes' 8 and the baseline's 4, and
// for words at both halves' extremes (+-32767, so that every sign combination reaches the shifts)
// as well as random ones.
TEST(Histogram, WideningLanesGiveTheUnpackedSums) {
  uint64_t s = 11;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
  };
  constexpr int64_t kMax = INT16_MAX;
  auto half = [&] { return static_cast<int64_t>(next() % (2 * kMax + 1)) - kMax; };
  for (std::size_t n : {0, 1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 63, 257}) {
    std::vector<uint32_t> src(n);
    std::vector<GradientSum> sums(n);
    for (std::size_t b = 0; b < n; ++b) {
      const int64_t extremes[4][2] = {{kMax, -kMax}, {-kMax, kMax}, {-kMax, -kMax}, {kMax, kMax}};
      sums[b] = b % 3 == 0 ? GradientSum{extremes[b / 3 % 4][0], extremes[b / 3 % 4][1]}
                           : GradientSum{half(), half()};
      src[b] = Packed16::Pack(sums[b].g, sums[b].h);
      ASSERT_EQ(Packed16::Unpack(src[b]), sums[b]);
    }
    for (bool add : {false, true}) {
      std::vector<GradientSum> start(n);
      for (GradientSum& c : start) {
        c = GradientSum{static_cast<int64_t>(next()) - (int64_t{1} << 30),
                        static_cast<int64_t>(next()) - (int64_t{1} << 30)};
      }
      std::vector<GradientSum> lanes = start, baseline = start;
      hist_kernels::Widen(src.data(), lanes.data(), n, add, /*vector=*/true);
      hist_kernels::Widen(src.data(), baseline.data(), n, add, /*vector=*/false);
      for (std::size_t b = 0; b < n; ++b) {
        const GradientSum want = add ? start[b] + sums[b] : sums[b];
        EXPECT_EQ(lanes[b], want) << "n " << n << ", add " << add << ", cell " << b;
        EXPECT_EQ(baseline[b], want) << "n " << n << ", add " << add << ", cell " << b;
      }
    }
  }
}

// Dense features of few bins are held in a record as joint bins (the mixed-radix number of a
// group's bins, at most 256 values) and each joint cell is added to its members' bins after the
// rows: the histograms are the direct sums. Groups here, fewest bins first: the 1-bin feature and
// eight 2-bin ones (256 joint bins), the 3-, 5- and one 6-bin feature (90), two 6-bin ones (36; the
// 100-bin feature would pass 256 and stays single). Exact and low-bit, 8- and 16-bit bins, 1-3
// threads, a root (stored gradients) and two children (the records' gradients).
TEST(Histogram, JointBinsOfFewBinFeaturesEqualDirectSum) {
  const std::vector<int> levels = {2, 300, 2, 3, 2, 2, 1, 6, 2, 5, 2, 2, 300, 6, 2, 6, 100};
  for (int max_bin : {64, 512}) {
    for (bool low_bit : {false, true}) {
      SCOPED_TRACE(testing::Message() << "max_bin " << max_bin << ", low_bit " << low_bit);
      HistFixture fx(false, 9000, static_cast<int>(levels.size()), max_bin, levels);
      ASSERT_EQ(fx.matrix->BinBytes(), max_bin == 64 ? 1 : 2);
      for (uint32_t f = 0; f < levels.size(); ++f) {
        if (levels[f] <= 6) ASSERT_EQ(fx.cuts.FeatureBins(f), static_cast<uint32_t>(levels[f]));
      }
      if (low_bit) {
        for (GradientSum& g : fx.gpair) {
          g.g = g.g % (LowBitPolicy::kLevels + 1);
          g.h = g.h % (LowBitPolicy::kLevels + 1);
        }
      }
      RowPartitioner root(fx.data.NumRows());
      RowPartitioner p(fx.data.NumRows());
      p.Partition(
          {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 7 < 2; }, 2);
      for (int threads : {1, 2, 3}) {
        HistogramBuilder builder(fx.matrix.get(), &fx.cuts, threads, low_bit);
        ASSERT_TRUE(builder.UsesRecords());
        EXPECT_EQ(builder.JointGroups(), 3u);
        Histogram h0, h1, h2;
        builder.Build(fx.gpair, root, {0}, {&h0});
        EXPECT_EQ(h0, fx.Naive(root, 0)) << "threads " << threads;
        builder.Build(fx.gpair, p, {1, 2}, {&h1, &h2}, /*reuse_gradients=*/true);
        EXPECT_EQ(h1, fx.Naive(p, 1)) << "threads " << threads;
        EXPECT_EQ(h2, fx.Naive(p, 2)) << "threads " << threads;
      }
    }
  }
}

// Bundled columns of few bins join too: four pairs of 3-value features, never present together
// (a bundle of 1 + 3 + 3 = 7 bins each), make one group of 7^2 and one of 7^2 joint bins (a third
// 7 would pass 256); built and mapped to the features' bins, the histograms are the direct sums.
TEST(Histogram, JointBinsOfBundledColumnsEqualDirectSum) {
  std::vector<std::vector<float>> rows;
  uint64_t s = 5;
  for (int i = 0; i < 6000; ++i) {
    std::vector<float> r(8, NAN);
    for (int pair = 0; pair < 4; ++pair) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      if ((s >> 40) % 4 == 0) continue;  // both missing
      r[2 * pair + (s >> 30) % 2] = static_cast<float>((s >> 33) % 3);
    }
    rows.push_back(r);
  }
  const DataSet data = test::DenseRows(rows, std::vector<float>(rows.size(), 0.0f));
  auto comm = rabit::MakeLocalCommunicator();
  const HistogramCuts cuts = ComputeCuts(data, data.num_col, 64, comm.get(), 2);
  const FeatureBundles bundles = DecideBundles(data, cuts, {"true", 0.0}, comm.get(), 2);
  const BinnedMatrix matrix = BinnedMatrix::Build(data, cuts, 2, &bundles);
  ASSERT_TRUE(matrix.bundled());
  ASSERT_EQ(matrix.NumColumns(), 4u);
  std::vector<GradientSum> gpair;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    gpair.push_back(GradientSum{static_cast<int64_t>((s >> 33) % 2001) - 1000,
                                static_cast<int64_t>((s >> 20) % 1000)});
  }
  RowPartitioner root(rows.size());
  RowPartitioner p(rows.size());
  p.Partition(
      {{0, 1, 2}}, [](std::size_t, uint32_t row) { return row % 3 == 0; }, 2);
  auto naive = [&](const RowPartitioner& part, int nid) {
    Histogram h(cuts.TotalBins());
    for (uint64_t i = 0; i < part.NodeRange(nid).size(); ++i) {
      const uint32_t row = part.NodeRows(nid)[i];
      for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
        const int64_t bin = matrix.GetBin(row, f, cuts);
        if (bin >= 0) h[bin] += gpair[row];
      }
    }
    return h;
  };
  for (int threads : {1, 2}) {
    HistogramBuilder builder(&matrix, &cuts, threads);
    ASSERT_TRUE(builder.UsesRecords());
    EXPECT_EQ(builder.JointGroups(), 2u);
    Histogram h0, h1, h2;
    builder.Build(gpair, root, {0}, {&h0});
    EXPECT_EQ(h0, naive(root, 0)) << "threads " << threads;
    builder.Build(gpair, p, {1, 2}, {&h1, &h2}, /*reuse_gradients=*/true);
    EXPECT_EQ(h1, naive(p, 1)) << "threads " << threads;
    EXPECT_EQ(h2, naive(p, 2)) << "threads " << threads;
  }
}

}  // namespace
}  // namespace ringboost

// The fast value -> bin searches (tree/bins/bin_search.h) give HistogramCuts::SearchBin's answer
// for every value: at each cut and one float either side of it, below the first and above the last
// cut, at the infinities and at signed zeros, for features whose cut counts fill a block exactly,
// miss it by one, or span many blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tree/bins/bin_search.h"
#include "tree/bins/quantile.h"

namespace ringboost {
namespace {

// Features of 1, 2, 15, 16, 17, 31, 32, 33, 255, 256 and 1000 ascending cuts (the last cut of a
// feature is above every value seen, as ComputeCuts makes it); feature 3 has negative cuts and
// one at zero.
HistogramCuts MakeCuts() {
  HistogramCuts cuts;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> step(0.001f, 3.0f);
  for (uint32_t n : {1u, 2u, 15u, 16u, 17u, 31u, 32u, 33u, 255u, 256u, 1000u}) {
    const uint32_t f = cuts.NumFeatures();
    float v = f == 3 ? -20.0f : static_cast<float>(f);
    for (uint32_t i = 0; i < n; ++i) {
      if (f == 3 && i == 7) v = 0.0f;
      cuts.values.push_back(v);
      v += step(rng);
    }
    cuts.ptr.push_back(static_cast<uint32_t>(cuts.values.size()));
    cuts.min_values.push_back(-1e30f);
  }
  return cuts;
}

// The values to try for feature f: every cut, its float neighbours, the cuts' midpoints, values
// below and above them all, the infinities, +0 and -0, and random values over the range.
std::vector<float> Probes(const HistogramCuts& cuts, uint32_t f) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> probes = {
      -kInf, kInf, 0.0f, -0.0f, -1e30f, 1e30f, std::numeric_limits<float>::denorm_min()};
  const float* c = cuts.values.data() + cuts.ptr[f];
  const uint32_t n = cuts.FeatureBins(f);
  for (uint32_t i = 0; i < n; ++i) {
    probes.push_back(c[i]);
    probes.push_back(std::nextafter(c[i], -kInf));
    probes.push_back(std::nextafter(c[i], kInf));
    if (i + 1 < n) probes.push_back(0.5f * (c[i] + c[i + 1]));
  }
  std::mt19937 rng(f);
  std::uniform_real_distribution<float> any(c[0] - 5.0f, c[n - 1] + 5.0f);
  for (int i = 0; i < 2000; ++i) probes.push_back(any(rng));
  return probes;
}

TEST(BinSearch, BlockAndPaddedSearchesGiveSearchBin) {
  const HistogramCuts cuts = MakeCuts();
  const detail::BlockSearch block(cuts);
  const detail::PaddedBinarySearch padded(cuts);
  for (uint32_t f = 0; f < cuts.NumFeatures(); ++f) {
    for (float v : Probes(cuts, f)) {
      const uint32_t expected = cuts.SearchBin(f, v) - cuts.ptr[f];
      ASSERT_EQ(block.LocalBin(f, v), expected) << "block search, feature " << f << " value " << v;
      ASSERT_EQ(block.InBlock(f, block.Block(f, v), v), expected) << "feature " << f << " " << v;
      ASSERT_EQ(padded.LocalBin(f, v), expected)
          << "padded search, feature " << f << " value " << v;
    }
  }
}

}  // namespace
}  // namespace ringboost

// The feature blocks of hist_sync=reduce_scatter: contiguous, ascending, cut where the bins before
// are nearest r / P of all bins, the same for every rank (values by hand).
#include <gtest/gtest.h>

#include <vector>

#include "tree/histogram_sync.h"

namespace ringboost {
namespace {

HistogramCuts CutsWithBins(const std::vector<uint32_t>& ptr) {
  HistogramCuts cuts;
  cuts.ptr = ptr;
  cuts.values.assign(ptr.back(), 0.0f);
  return cuts;
}

TEST(HistogramSync, FeatureBlocksSplitTheBinsEvenly) {
  const HistogramCuts even = CutsWithBins({0, 10, 20, 30, 40});
  EXPECT_EQ(HistogramSync::FeatureBlocks(even, 1), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(HistogramSync::FeatureBlocks(even, 2), (std::vector<uint32_t>{0, 2, 4}));
  // Targets 13.3 and 26.7 bins: boundaries 10 (nearer than 20) and 30 (nearer than 20).
  EXPECT_EQ(HistogramSync::FeatureBlocks(even, 3), (std::vector<uint32_t>{0, 1, 3, 4}));
  // More ranks than features: ties keep the lower boundary, so every other rank owns nothing.
  EXPECT_EQ(HistogramSync::FeatureBlocks(even, 8),
            (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3, 4}));
  // One wide feature: the half of the bins (115) is nearer 200 than 0, so rank 0 takes it alone.
  const HistogramCuts wide = CutsWithBins({0, 200, 210, 220, 230});
  EXPECT_EQ(HistogramSync::FeatureBlocks(wide, 2), (std::vector<uint32_t>{0, 1, 4}));
}

}  // namespace
}  // namespace ringboost

// Host side of the device histograms (histogram.h): feature groups and block tasks.
#include "tree/gpu_hist/histogram.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/error.h"

namespace ringboost {
namespace {

// Slots that hold features [fb, fe): dense, the range of their columns; sparse, all slots.
void AssignSlots(const std::vector<int32_t>& column_of, uint32_t row_stride, FeatureGroup* g) {
  if (column_of.empty()) {
    g->slot_begin = 0;
    g->slot_end = row_stride;
    return;
  }
  g->slot_begin = row_stride;
  g->slot_end = 0;
  for (uint32_t f = g->feature_begin; f < g->feature_end; ++f) {
    if (column_of[f] < 0) continue;
    g->slot_begin = std::min(g->slot_begin, static_cast<uint32_t>(column_of[f]));
    g->slot_end = std::max(g->slot_end, static_cast<uint32_t>(column_of[f]) + 1);
  }
  if (g->slot_begin >= g->slot_end) g->slot_begin = g->slot_end = 0;  // no column: no slot
}

}  // namespace

std::vector<FeatureGroup> GroupFeatures(const HistogramCuts& cuts, uint32_t max_cells,
                                        uint32_t max_shared_groups,
                                        const std::vector<int32_t>& column_of, uint32_t row_stride,
                                        uint32_t lane_align) {
  const bool dense = !column_of.empty();
  // Lanes of a table: a multiple of lane_align from lane_align lanes on, else the next power of
  // two (a narrow group is not padded to a full bank row).
  const auto round_up = [&](uint64_t lanes) {
    if (lanes >= lane_align) return (lanes + lane_align - 1) / lane_align * lane_align;
    uint64_t p = 1;
    while (p < lanes) p *= 2;
    return p;
  };
  std::vector<FeatureGroup> groups;
  const uint32_t nf = cuts.NumFeatures();
  uint32_t f = 0;
  while (f < nf) {
    FeatureGroup g;
    g.feature_begin = f;
    g.bin_begin = cuts.ptr[f];
    uint64_t depth = 0, lanes = 0;  // of [feature_begin, f)
    while (f < nf) {
      const uint64_t d = std::max<uint64_t>(depth, cuts.FeatureBins(f));
      const uint64_t l = lanes + (!dense || column_of[f] >= 0 ? 1 : 0);
      if (d * round_up(std::max<uint64_t>(l, 1)) > max_cells) break;
      depth = d;
      lanes = l;
      ++f;
    }
    if (f == g.feature_begin) {  // too wide alone: global atomics
      g.shared = false;
      ++f;
    }
    g.feature_end = f;
    g.bin_end = cuts.ptr[f];
    g.depth = static_cast<uint32_t>(depth);
    g.lane_stride = static_cast<uint32_t>(round_up(std::max<uint64_t>(lanes, 1)));
    groups.push_back(g);
  }
  if (groups.size() > max_shared_groups) {  // one pass with global atomics beats many passes
    FeatureGroup all;
    all.feature_end = nf;
    all.bin_end = cuts.TotalBins();
    all.shared = false;
    groups.assign(1, all);
  }
  for (FeatureGroup& g : groups) {
    AssignSlots(column_of, row_stride, &g);
    if (!g.shared) g.depth = g.lane_stride = 0;
  }
  return groups;
}

HistTiles DefaultHistTiles() {
  const char* value = std::getenv("RINGBOOST_HIST_TILES");
  if (value == nullptr || *value == '\0') return HistTiles::kWarp;
  const std::string v = value;
  if (v == "warp") return HistTiles::kWarp;
  if (v == "block") return HistTiles::kBlock;
  RB_FAIL("RINGBOOST_HIST_TILES=" << v << ": allowed values are warp and block");
}

std::vector<HistBlockTask> MakeHistBlockTasks(const std::vector<HistNode>& nodes,
                                              uint64_t rows_per_task) {
  std::vector<HistBlockTask> tasks;
  for (const HistNode& n : nodes) {
    for (uint64_t b = 0; b < n.size; b += rows_per_task) {
      tasks.push_back(HistBlockTask{n.rows, b, std::min(n.size, b + rows_per_task), n.out});
    }
  }
  return tasks;
}

}  // namespace ringboost

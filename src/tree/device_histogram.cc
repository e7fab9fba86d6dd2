// Host side of the device histograms (device_histogram.h): feature groups and block tasks.
#include "tree/device_histogram.h"

#include <algorithm>

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

std::vector<FeatureGroup> GroupFeatures(const HistogramCuts& cuts, uint32_t max_group_bins,
                                        uint32_t max_shared_groups,
                                        const std::vector<int32_t>& column_of,
                                        uint32_t row_stride) {
  std::vector<FeatureGroup> groups;
  const uint32_t nf = cuts.NumFeatures();
  uint32_t f = 0;
  while (f < nf) {
    FeatureGroup g;
    g.feature_begin = f;
    g.bin_begin = cuts.ptr[f];
    if (cuts.FeatureBins(f) > max_group_bins) {
      g.shared = false;  // alone, global atomics
      ++f;
    } else {
      while (f < nf && cuts.ptr[f + 1] - g.bin_begin <= max_group_bins) ++f;
    }
    g.feature_end = f;
    g.bin_end = cuts.ptr[f];
    groups.push_back(g);
  }
  if (groups.size() > max_shared_groups) {  // one pass with global atomics beats many passes
    FeatureGroup all;
    all.feature_end = nf;
    all.bin_end = cuts.TotalBins();
    all.shared = false;
    groups.assign(1, all);
  }
  for (FeatureGroup& g : groups) AssignSlots(column_of, row_stride, &g);
  return groups;
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

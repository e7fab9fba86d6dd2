#include "learner/columns.h"

#include <algorithm>

#include "common/error.h"

namespace ringboost {

ColumnMap ColumnMap::Agree(const DataSet& train, uint32_t num_col, rabit::Communicator* comm) {
  ColumnMap map;
  if (num_col <= kMaxDenseColumns) return map;  // the same answer on every worker: num_col agreed
  std::vector<uint32_t> mine(train.index);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  std::vector<char> all;
  ThrowIfError(comm->AllgathervRaw(mine.data(), mine.size() * sizeof(uint32_t), &all));
  RB_CHECK(all.size() % sizeof(uint32_t) == 0);
  map.ids_.resize(all.size() / sizeof(uint32_t));
  std::copy(all.begin(), all.end(), reinterpret_cast<char*>(map.ids_.data()));
  std::sort(map.ids_.begin(), map.ids_.end());
  map.ids_.erase(std::unique(map.ids_.begin(), map.ids_.end()), map.ids_.end());
  map.active_ = num_col / 4 > map.ids_.size();
  if (!map.active_) map.ids_.clear();
  return map;
}

void ColumnMap::Renumber(DataSet* data) const {
  RB_CHECK(active_);
  uint64_t kept = 0;
  for (uint64_t r = 0; r < data->NumRows(); ++r) {
    const uint64_t end = data->row_ptr[r + 1];
    for (uint64_t k = data->row_ptr[r]; k < end; ++k) {
      const auto it = std::lower_bound(ids_.begin(), ids_.end(), data->index[k]);
      if (it == ids_.end() || *it != data->index[k]) continue;
      data->index[kept] = static_cast<uint32_t>(it - ids_.begin());
      data->value[kept] = data->value[k];
      ++kept;
    }
    data->row_ptr[r + 1] = kept;
  }
  data->index.resize(kept);
  data->value.resize(kept);
  data->num_col = NumColumns();
}

void ColumnMap::RestoreIds(RegTree* tree) const {
  if (!active_) return;
  for (TreeNode& node : tree->nodes()) {
    if (!node.IsLeaf()) node.feature = ids_[node.feature];
  }
}

}  // namespace ringboost

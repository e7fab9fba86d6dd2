// The feature columns a training run works on (issue 24, item 7). The trainer's per-feature state
// (cuts, histograms, column sampling, split evaluation) is sized by the column count, 1 + the
// largest feature id. When the ids are sparse, far more ids than features the data holds (one id
// 2147483646 in 20 rows), the learner renumbers the features the data holds to 0..k-1, trains on
// those and writes each tree back in the data's ids: memory follows the features that exist.
// Data whose ids are dense enough, the normal case, is not touched (its models stay the same byte
// for byte). Renumbered, column sampling draws among the k features the data holds.
#pragma once

#include <cstdint>
#include <vector>

#include "data/data.h"
#include "model/tree.h"
#include "rabit/communicator.h"

namespace ringboost {

class ColumnMap {
 public:
  // Column counts up to this are used as they are: per-feature state of 2^20 columns is a few
  // tens of MB, and renumbering would change column sampling for ordinary data.
  static constexpr uint32_t kMaxDenseColumns = 1u << 20;

  // The map every worker agrees on for training data whose agreed column count is `num_col`: a
  // collective (every worker calls it, with its own rows). Inactive unless renumbering pays:
  // num_col above kMaxDenseColumns and more than 4 times the features held.
  static ColumnMap Agree(const DataSet& train, uint32_t num_col, rabit::Communicator* comm);

  bool active() const { return active_; }
  uint32_t NumColumns() const { return static_cast<uint32_t>(ids_.size()); }
  // The data's feature id of `column`.
  uint32_t IdOf(uint32_t column) const { return ids_[column]; }
  // The data's feature id of each column, ascending (active maps only).
  const std::vector<uint32_t>& ids() const { return ids_; }
  // Renumbers the entries of *data to columns; entries of features outside the map are dropped
  // (no tree can split on them, so they read as missing either way). Sets num_col.
  void Renumber(DataSet* data) const;
  // The split features of *tree, columns, back to the data's ids.
  void RestoreIds(RegTree* tree) const;

 private:
  std::vector<uint32_t> ids_;  // the data's feature id of each column, ascending
  bool active_ = false;
};

}  // namespace ringboost

#include "tree/hist/split_rule.h"

#include "common/error.h"
#include "tree/categorical_split.h"

namespace ringboost {

SplitRule::SplitRule(const BinnedMatrix& m, const HistogramCuts& cuts, const SplitCandidate& s)
    : split_bin(s.split_bin), default_left(s.default_left) {
  if (s.is_cat) {
    cat_left = CategoryLeftBins(cuts, s);
    cat = cat_left.data();
  }
  if (m.layout() == BinnedMatrix::Layout::kDense) {
    // A feature with no values in this worker's shard (its rows are dense in other features,
    // another worker's are not): every row here is missing, and goes default.
    const int32_t column = m.ColumnOf(s.feature);
    if (column < 0) return;
    RB_CHECK_MSG(!m.columns8().empty() || !m.columns16().empty(),
                 "BinnedMatrix::BuildColumns() was not called");
    const uint64_t offset = static_cast<uint64_t>(column) * m.NumRows();
    lo = m.MemberOffset(s.feature);
    hi = lo + cuts.FeatureBins(s.feature);
    if (m.BinBytes() == 1) bins8 = m.columns8().data() + offset;
    if (m.BinBytes() == 2) bins16 = m.columns16().data() + offset;
  } else {
    row_ptr = m.row_ptr().data();
    sparse = m.sparse_bins().data();
    lo = cuts.ptr[s.feature];
    hi = cuts.ptr[s.feature + 1];
  }
}

}  // namespace ringboost

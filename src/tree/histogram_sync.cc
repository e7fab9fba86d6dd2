#include "tree/histogram_sync.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace ringboost {
namespace {

// How a cell (g, h) travels. 64- and 32-bit cells: two elements. 16-bit cells: histograms whose
// every sum, partial or whole, is within +-32767 (CellBits::k16) send a cell as one int32, the
// builder's packed word (Packed16, tree/gradient.h): g * 2^16 + h, whose sums are exact
// (|G * 2^16 + H| < 2^31) and decode uniquely.
template <typename T>
struct Pair {
  using Type = T;
  static constexpr std::size_t kPerCell = 2;
  static void Put(const GradientSum& s, T* out) {
    out[0] = static_cast<T>(s.g);
    out[1] = static_cast<T>(s.h);
  }
  static void Get(const T* in, GradientSum* s) {
    s->g = in[0];
    s->h = in[1];
  }
};
struct Packed16Wire {
  using Type = int32_t;
  static constexpr std::size_t kPerCell = 1;
  static void Put(const GradientSum& s, int32_t* out) {
    *out = static_cast<int32_t>(Packed16::Pack(s.g, s.h));
  }
  static void Get(const int32_t* in, GradientSum* s) {
    *s = Packed16::Unpack(static_cast<uint32_t>(*in));
  }
};

// A candidate on the wire: its fixed fields, then its categories.
struct WireCandidate {
  float loss_chg;
  float split_cond;
  uint32_t feature;
  int32_t split_bin;
  int64_t left_g, left_h, right_g, right_h;
  uint32_t n_categories;
  uint8_t default_left, is_cat, found, pad;
};

void Append(std::vector<char>* out, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  out->insert(out->end(), c, c + n);
}

void Write(const SplitCandidate& c, std::vector<char>* out) {
  WireCandidate w{};
  w.loss_chg = c.loss_chg;
  w.split_cond = c.split_cond;
  w.feature = c.feature;
  w.split_bin = c.split_bin;
  w.left_g = c.left_sum.g;
  w.left_h = c.left_sum.h;
  w.right_g = c.right_sum.g;
  w.right_h = c.right_sum.h;
  w.n_categories = static_cast<uint32_t>(c.categories.size());
  w.default_left = c.default_left;
  w.is_cat = c.is_cat;
  w.found = c.found;
  Append(out, &w, sizeof(w));
  Append(out, c.categories.data(), c.categories.size() * sizeof(uint32_t));
}

// Reads one candidate at *at of `all` (what some worker wrote); false when it is cut short.
bool Read(const std::vector<char>& all, std::size_t* at, SplitCandidate* c) {
  WireCandidate w;
  if (all.size() - *at < sizeof(w)) return false;
  std::memcpy(&w, all.data() + *at, sizeof(w));
  *at += sizeof(w);
  if ((all.size() - *at) / sizeof(uint32_t) < w.n_categories) return false;
  c->loss_chg = w.loss_chg;
  c->split_cond = w.split_cond;
  c->feature = w.feature;
  c->split_bin = w.split_bin;
  c->left_sum = GradientSum{w.left_g, w.left_h};
  c->right_sum = GradientSum{w.right_g, w.right_h};
  c->default_left = w.default_left != 0;
  c->is_cat = w.is_cat != 0;
  c->found = w.found != 0;
  c->categories.resize(w.n_categories);
  std::memcpy(c->categories.data(), all.data() + *at, w.n_categories * sizeof(uint32_t));
  *at += w.n_categories * sizeof(uint32_t);
  return true;
}

}  // namespace

HistogramSync::HistogramSync(const HistogramCuts* cuts, HistSync mode, rabit::Communicator* comm,
                             bool low_bit)
    : cuts_(cuts), comm_(comm), low_bit_(low_bit) {
  const int world = comm->WorldSize();
  // auto: where the communicator says a reduce-scatter of one node's histogram (64-bit cells:
  // the root's level, the smallest; deeper ones carry more nodes) and the candidates' allgather
  // cost less than its allreduce: up to 32 workers, and beyond where tcp's cost model says so
  // over the hypercube (docs/collective.md, "Training").
  scatter_ =
      world > 1 &&
      (mode == HistSync::kReduceScatter ||
       (mode == HistSync::kAuto && comm->ReduceScatterPays(std::size_t{cuts->TotalBins()} * 16,
                                                           sizeof(WireCandidate) * world)));
  end_feature_ = cuts->NumFeatures();
  bin_blocks_ = {0, cuts->TotalBins()};
  if (!scatter_) return;
  const std::vector<uint32_t> blocks = FeatureBlocks(*cuts, world);
  bin_blocks_.clear();
  for (uint32_t f : blocks) bin_blocks_.push_back(cuts->ptr[f]);
  first_feature_ = blocks[comm->Rank()];
  end_feature_ = blocks[comm->Rank() + 1];
}

std::vector<uint32_t> HistogramSync::FeatureBlocks(const HistogramCuts& cuts, int world) {
  const uint32_t n = cuts.NumFeatures();
  const uint64_t total = cuts.TotalBins();
  std::vector<uint32_t> blocks(world + 1, n);
  blocks[0] = 0;
  uint32_t f = 0;
  for (int r = 1; r < world; ++r) {
    const uint64_t target = total * r / world;
    // The boundary at or after f whose bin count is nearest the target (the lower one on a tie).
    while (f < n && cuts.ptr[f + 1] <= target) ++f;
    if (f < n && cuts.ptr[f] < target && cuts.ptr[f + 1] - target < target - cuts.ptr[f]) ++f;
    blocks[r] = f;
  }
  return blocks;
}

std::vector<uint32_t> HistogramSync::Owned(const std::vector<uint32_t>& features) const {
  std::vector<uint32_t> out;
  for (uint32_t f : features) {
    if (f >= first_feature_ && f < end_feature_) out.push_back(f);
  }
  return out;
}

// The cells of hists[which] travel in one buffer, block after block (a block: rank r's bins of
// every histogram in turn), so each rank's share is contiguous; with allreduce there is one
// block, all bins, and the buffer is what the allreduce always sent.
template <typename Codec>
void HistogramSync::SyncAs(const std::vector<GradientSum*>& hists,
                           const std::vector<std::size_t>& which) const {
  using T = typename Codec::Type;
  if (which.empty()) return;
  const std::size_t blocks = bin_blocks_.size() - 1;
  std::vector<std::size_t> counts(blocks);
  std::vector<T> buf(which.size() * cuts_->TotalBins() * Codec::kPerCell);
  T* out = buf.data();
  for (std::size_t r = 0; r < blocks; ++r) {
    for (std::size_t k : which) {
      const GradientSum* hist = hists[k];
      for (uint32_t b = bin_blocks_[r]; b < bin_blocks_[r + 1]; ++b, out += Codec::kPerCell) {
        Codec::Put(hist[b], out);
      }
    }
    counts[r] = which.size() * (bin_blocks_[r + 1] - bin_blocks_[r]) * Codec::kPerCell;
  }
  std::size_t mine = 0;
  if (scatter_) {
    comm_->ReduceScatter(Span<T>(buf), counts, rabit::Op::kSum);
    for (int r = 0; r < comm_->Rank(); ++r) mine += counts[r];
  } else {
    comm_->Allreduce(Span<T>(buf), rabit::Op::kSum);
  }
  const std::size_t r = scatter_ ? comm_->Rank() : 0;
  const T* in = buf.data() + mine;
  for (std::size_t k : which) {
    GradientSum* hist = hists[k];
    for (uint32_t b = bin_blocks_[r]; b < bin_blocks_[r + 1]; ++b, in += Codec::kPerCell) {
      Codec::Get(in, &hist[b]);
    }
  }
}

void HistogramSync::Sync(const std::vector<GradientSum*>& hists,
                         const std::vector<uint64_t>& rows) const {
  if (comm_->WorldSize() == 1 || hists.empty()) return;
  std::vector<std::size_t> by_bits[3];  // k16, k32, k64
  for (std::size_t k = 0; k < hists.size(); ++k) {
    const CellBits bits = low_bit_ ? CellBitsFor(rows[k]) : CellBits::k64;
    by_bits[static_cast<int>(bits)].push_back(k);
  }
  SyncAs<Pair<int64_t>>(hists, by_bits[static_cast<int>(CellBits::k64)]);
  SyncAs<Pair<int32_t>>(hists, by_bits[static_cast<int>(CellBits::k32)]);
  SyncAs<Packed16Wire>(hists, by_bits[static_cast<int>(CellBits::k16)]);
}

void HistogramSync::AgreeOnSplits(std::vector<SplitCandidate>* best) const {
  if (!scatter_ || best->empty()) return;
  std::vector<char> mine;
  for (const SplitCandidate& c : *best) Write(c, &mine);
  std::vector<char> all;
  ThrowIfError(comm_->AllgathervRaw(mine.data(), mine.size(), &all));
  std::vector<SplitCandidate> agreed(best->size());
  std::size_t at = 0;
  for (int r = 0; r < comm_->WorldSize(); ++r) {
    for (SplitCandidate& a : agreed) {
      SplitCandidate c;
      RB_CHECK_MSG(Read(all, &at, &c), "the workers' split candidates are cut short");
      a.Update(c);
    }
  }
  RB_CHECK_MSG(at == all.size(), "the workers sent more split candidates than nodes");
  *best = std::move(agreed);
}

}  // namespace ringboost

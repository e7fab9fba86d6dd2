// The tcp communicator's collectives over its links: tree, ring, recursive halving and doubling
// (over the hypercube's links), each picked by the cost model (rabit/cost_model.h).
#include <algorithm>
#include <cstring>
#include <vector>

#include "rabit/tcp_communicator_impl.h"

namespace ringboost::rabit {

// Sends `send` to `next` while receiving `recv` from `prev` (the same socket in a ring of two),
// calling on_receive(bytes received so far) as data arrives.
template <typename OnReceive>
Status TcpCommunicator::Exchange(TcpSocket* next, const char* send, std::size_t send_bytes,
                                 TcpSocket* prev, char* recv, std::size_t recv_bytes,
                                 OnReceive on_receive) {
  Deadline deadline = Wait();
  std::size_t sent = 0, received = 0;
  while (sent < send_bytes || received < recv_bytes) {
    const std::size_t before_sent = sent, before_received = received;
    Status s = next->SendSome(send, send_bytes, &sent);
    if (s.ok()) s = prev->RecvSome(recv, recv_bytes, &received);
    if (!s.ok()) return s;
    if (received != before_received) on_receive(received);
    if (sent == before_sent && received == before_received) {
      TcpSocket* socks[2] = {next, prev};
      bool want_read[2] = {false, received < recv_bytes};
      bool want_write[2] = {sent < send_bytes, false};
      s = PollLinks(socks, want_read, want_write, 2, deadline, Where());
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status TcpCommunicator::TreeAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const std::size_t bytes = count * SizeOf(type);
  std::vector<char> incoming(bytes);
  Deadline deadline = Wait();
  for (int r : tree_) {
    if (r == parent_) continue;
    Status s = links_[r].RecvAll(incoming.data(), bytes, deadline);
    if (!s.ok()) return s;
    Reduce(buf, incoming.data(), count, type, op);
  }
  if (parent_ >= 0) {
    Status s = links_[parent_].SendAll(buf, bytes, deadline);
    if (s.ok()) s = links_[parent_].RecvAll(buf, bytes, deadline);
    if (!s.ok()) return s;
  }
  for (int r : tree_) {
    if (r == parent_) continue;
    Status s = links_[r].SendAll(buf, bytes, deadline);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Reduce-scatter then allgather around the ring: chunk i (of world_ chunks) ends up reduced on
// rank i - 1, then travels once around. Each rank sends and receives 2 (P-1)/P of the buffer.
Status TcpCommunicator::RingAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const std::size_t esize = SizeOf(type);
  std::vector<std::size_t> offsets(world_ + 1);
  for (int i = 0; i <= world_; ++i) offsets[i] = count * i / world_ * esize;
  Status s = RingReduceScatter(buf, offsets, type, op, 1);
  if (!s.ok()) return s;
  return RingAllgather(buf, offsets, (rank_ + 1) % world_);
}

// At step k this rank sends block rank + shift - 1 - k to the next rank and folds block
// rank + shift - 2 - k from the previous one in as its bytes arrive; after P - 1 steps block
// rank + shift has passed through every rank. Each rank sends every block but its own once.
Status TcpCommunicator::RingReduceScatter(char* buf, const std::vector<std::size_t>& offsets,
                                          DataType type, Op op, int shift) {
  const std::size_t esize = SizeOf(type);
  auto chunk = [&](int i) { return (i % world_ + world_) % world_; };
  TcpSocket* next = &links_[ring_next_];
  TcpSocket* prev = &links_[ring_prev_];
  std::size_t largest = 0;
  for (int i = 0; i < world_; ++i) largest = std::max(largest, offsets[i + 1] - offsets[i]);
  std::vector<char> incoming(largest);
  for (int k = 0; k < world_ - 1; ++k) {
    const int send_i = chunk(rank_ + shift - 1 - k), recv_i = chunk(rank_ + shift - 2 - k);
    char* dst = buf + offsets[recv_i];
    std::size_t reduced = 0;  // elements of the incoming chunk folded in so far
    Status s =
        Exchange(next, buf + offsets[send_i], offsets[send_i + 1] - offsets[send_i], prev,
                 incoming.data(), offsets[recv_i + 1] - offsets[recv_i], [&](std::size_t got) {
                   const std::size_t whole = got / esize;
                   Reduce(dst + reduced * esize, incoming.data() + reduced * esize, whole - reduced,
                          type, op);
                   reduced = whole;
                 });
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// Passes blocks around the ring until every rank has all of them: this rank starts with block
// `held` (offsets[i] to offsets[i + 1] of `out` is block i), at step k it sends block held - k to
// the next rank and receives block held - k - 1 from the previous one.
Status TcpCommunicator::RingAllgather(char* out, const std::vector<std::size_t>& offsets,
                                      int held) {
  auto block = [&](int i) { return (i % world_ + world_) % world_; };
  TcpSocket* next = &links_[ring_next_];
  TcpSocket* prev = &links_[ring_prev_];
  for (int k = 0; k < world_ - 1; ++k) {
    const int send_i = block(held - k), recv_i = block(held - k - 1);
    Status s =
        Exchange(next, out + offsets[send_i], offsets[send_i + 1] - offsets[send_i], prev,
                 out + offsets[recv_i], offsets[recv_i + 1] - offsets[recv_i], [](std::size_t) {});
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// The P' virtual ranks' blocks: virtual rank v < E holds ranks 2v and 2v+1's blocks (adjacent),
// the others rank v + E's.
std::vector<std::size_t> TcpCommunicator::VirtualOffsets(
    const std::vector<std::size_t>& offsets) const {
  const proto::Hypercube h(world_);
  std::vector<std::size_t> v(h.size + 1);
  for (int i = 0; i < h.size; ++i) v[i] = offsets[h.Real(i)];
  v[h.size] = offsets[world_];
  return v;
}

// At step d = P'/2, ..., 1 this virtual rank holds 2d blocks reduced over the 2^k ranks that
// differ from it in the bits above d; it keeps the half with its own block, sends the other to
// v XOR d and folds that partner's copy of its half in as the bytes arrive. log2 P' steps, each
// rank sends every block but its own once.
Status TcpCommunicator::HalvingReduceScatter(char* buf, const std::vector<std::size_t>& voffsets,
                                             DataType type, Op op) {
  const proto::Hypercube h(world_);
  const int v = h.Virtual(rank_);
  const std::size_t esize = SizeOf(type);
  std::vector<char> incoming;
  int lo = 0, hi = h.size;
  for (int d = h.size / 2; d >= 1; d /= 2) {
    const bool low = (v & d) == 0;
    const int keep_lo = low ? lo : lo + d, keep_hi = low ? lo + d : hi;
    const int send_lo = low ? lo + d : lo, send_hi = low ? hi : lo + d;
    TcpSocket* peer = &links_[h.Real(v ^ d)];
    char* dst = buf + voffsets[keep_lo];
    incoming.resize(voffsets[keep_hi] - voffsets[keep_lo]);
    std::size_t reduced = 0;  // elements folded in so far
    Status s = Exchange(peer, buf + voffsets[send_lo], voffsets[send_hi] - voffsets[send_lo], peer,
                        incoming.data(), incoming.size(), [&](std::size_t got) {
                          const std::size_t whole = got / esize;
                          Reduce(dst + reduced * esize, incoming.data() + reduced * esize,
                                 whole - reduced, type, op);
                          reduced = whole;
                        });
    if (!s.ok()) return s;
    lo = keep_lo;
    hi = keep_hi;
  }
  return Status::OK();
}

// At step d = 1, 2, ..., P'/2 this virtual rank holds the d blocks of its aligned group and
// swaps them with v XOR d for that rank's d: log2 P' steps, every block but its own received once.
Status TcpCommunicator::DoublingAllgather(char* buf, const std::vector<std::size_t>& voffsets) {
  const proto::Hypercube h(world_);
  const int v = h.Virtual(rank_);
  for (int d = 1; d < h.size; d *= 2) {
    const int lo = v / d * d, peer_lo = (v ^ d) / d * d;
    TcpSocket* peer = &links_[h.Real(v ^ d)];
    Status s = Exchange(peer, buf + voffsets[lo], voffsets[lo + d] - voffsets[lo], peer,
                        buf + voffsets[peer_lo], voffsets[peer_lo + d] - voffsets[peer_lo],
                        [](std::size_t) {});
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status TcpCommunicator::FoldIn(char* buf, std::size_t bytes, DataType type, Op op, bool reduce) {
  const proto::Hypercube h(world_);
  if (rank_ >= 2 * h.extra || bytes == 0) return Status::OK();
  if (rank_ % 2 == 1) return links_[rank_ - 1].SendAll(buf, bytes, Wait());
  TcpSocket* odd = &links_[rank_ + 1];
  if (!reduce) return odd->RecvAll(buf, bytes, Wait());
  const std::size_t esize = SizeOf(type);
  std::vector<char> incoming(bytes);
  std::size_t reduced = 0;
  return Exchange(odd, nullptr, 0, odd, incoming.data(), bytes, [&](std::size_t got) {
    const std::size_t whole = got / esize;
    Reduce(buf + reduced * esize, incoming.data() + reduced * esize, whole - reduced, type, op);
    reduced = whole;
  });
}

// The unfold: rank 2i sends bytes [0, bytes) of `buf` to rank 2i+1, which receives them there.
Status TcpCommunicator::FoldOut(char* buf, std::size_t bytes) {
  const proto::Hypercube h(world_);
  if (rank_ >= 2 * h.extra || bytes == 0) return Status::OK();
  if (rank_ % 2 == 0) return links_[rank_ + 1].SendAll(buf, bytes, Wait());
  return links_[rank_ - 1].RecvAll(buf, bytes, Wait());
}

Status TcpCommunicator::HalvingAllreduce(char* buf, std::size_t count, DataType type, Op op) {
  const proto::Hypercube h(world_);
  const std::size_t esize = SizeOf(type);
  Status s = FoldIn(buf, count * esize, type, op, /*reduce=*/true);
  if (s.ok() && h.Virtual(rank_) >= 0) {
    std::vector<std::size_t> voffsets(h.size + 1);
    for (int i = 0; i <= h.size; ++i) voffsets[i] = count * i / h.size * esize;
    s = HalvingReduceScatter(buf, voffsets, type, op);
    if (s.ok()) s = DoublingAllgather(buf, voffsets);
  }
  return s.ok() ? FoldOut(buf, count * esize) : s;
}

Status TcpCommunicator::HalvingReduceScatterBlocks(char* buf,
                                                   const std::vector<std::size_t>& offsets,
                                                   DataType type, Op op) {
  Status s = FoldIn(buf, offsets[world_], type, op, /*reduce=*/true);
  if (s.ok() && proto::Hypercube(world_).Virtual(rank_) >= 0) {
    s = HalvingReduceScatter(buf, VirtualOffsets(offsets), type, op);
  }
  if (!s.ok() || rank_ >= 2 * proto::Hypercube(world_).extra) return s;
  const int odd = rank_ | 1;  // the folded rank of this pair gets its block back
  return FoldOut(buf + offsets[odd], offsets[odd + 1] - offsets[odd]);
}

Status TcpCommunicator::DoublingAllgatherBlocks(char* buf,
                                                const std::vector<std::size_t>& offsets) {
  Status s = Status::OK();
  if (rank_ < 2 * proto::Hypercube(world_).extra) {
    const int odd = rank_ | 1;
    s = FoldIn(buf + offsets[odd], offsets[odd + 1] - offsets[odd], DataType::kUInt64, Op::kBitOr,
               /*reduce=*/false);
  }
  if (s.ok() && proto::Hypercube(world_).Virtual(rank_) >= 0) {
    s = DoublingAllgather(buf, VirtualOffsets(offsets));
  }
  return s.ok() ? FoldOut(buf, offsets[world_]) : s;
}

Status TcpCommunicator::AllreduceOnce(void* buf, std::size_t count, DataType type, Op op) {
  if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
    return Status::Fail("Allreduce: bitwise or of floating-point values");
  }
  if (world_ == 1 || count == 0) return Status::OK();
  char* p = static_cast<char*>(buf);
  Status s = Status::OK();
  const bool halving = hypercube_ && OrderFree(type, op);
  const Algorithm picked =
      PickAllreduce(count, SizeOf(type), world_, settings_.ring_min_count, model_, halving);
  switch (Forced(picked, /*tree=*/true, count >= static_cast<std::size_t>(world_), halving)) {
    case Algorithm::kRing:
      s = RingAllreduce(p, count, type, op);
      break;
    case Algorithm::kHalving:
      s = HalvingAllreduce(p, count, type, op);
      break;
    case Algorithm::kTree:
      s = TreeAllreduce(p, count, type, op);
      break;
  }
  return s.Wrap(Where() + ": Allreduce of " + std::to_string(count * SizeOf(type)) + " bytes");
}

// The ring or, over the hypercube, recursive halving (never the tree: it would move the whole
// buffer); the blocks are the callers' (a histogram's features).
Status TcpCommunicator::ReduceScatterOnce(void* buf, const std::vector<std::size_t>& counts,
                                          DataType type, Op op) {
  if (counts.size() != static_cast<std::size_t>(world_)) {
    return Status::Fail(Where() + ": ReduceScatter: " + std::to_string(counts.size()) +
                        " blocks for a world of " + std::to_string(world_));
  }
  if (op == Op::kBitOr && (type == DataType::kFloat || type == DataType::kDouble)) {
    return Status::Fail("ReduceScatter: bitwise or of floating-point values");
  }
  if (world_ == 1) return Status::OK();
  std::vector<std::size_t> offsets(world_ + 1, 0);
  for (int r = 0; r < world_; ++r) offsets[r + 1] = offsets[r] + counts[r] * SizeOf(type);
  char* p = static_cast<char*>(buf);
  const bool halving = hypercube_ && OrderFree(type, op);
  const Algorithm picked = PickReduceScatter(offsets[world_], world_, model_, halving);
  Status s = Forced(picked, /*tree=*/false, /*ring=*/true, halving) == Algorithm::kHalving
                 ? HalvingReduceScatterBlocks(p, offsets, type, op)
                 : RingReduceScatter(p, offsets, type, op, 0);
  return s.Wrap(Where() + ": ReduceScatter of " + std::to_string(offsets[world_]) + " bytes");
}

// Down the tree from `root`: the one neighbour that sends is the way to the root; the data goes
// on to the others in pieces, so a large broadcast streams through the tree.
Status TcpCommunicator::BroadcastOnce(void* buf, std::size_t bytes, int root) {
  if (root < 0 || root >= world_) {
    return Status::Fail("Broadcast: root " + std::to_string(root) + " outside a world of " +
                        std::to_string(world_));
  }
  if (world_ == 1 || bytes == 0) return Status::OK();
  const std::string what = Where() + ": Broadcast of " + std::to_string(bytes) +
                           " bytes from rank " + std::to_string(root);
  Deadline deadline = Wait();
  int in_link = -1;
  if (rank_ != root) {
    const std::size_t n = tree_.size();
    std::vector<TcpSocket*> socks;
    for (int r : tree_) socks.push_back(&links_[r]);
    std::unique_ptr<bool[]> want_read(new bool[n]), want_write(new bool[n]), ready(new bool[n]);
    std::fill_n(want_read.get(), n, true);
    std::fill_n(want_write.get(), n, false);
    Status s =
        PollLinks(socks.data(), want_read.get(), want_write.get(), n, deadline, what, ready.get());
    if (!s.ok()) return s;
    for (std::size_t i = 0; i < n && in_link < 0; ++i) {
      if (ready[i]) in_link = tree_[i];
    }
  }
  constexpr std::size_t kPiece = 4 << 20;
  char* p = static_cast<char*>(buf);
  for (std::size_t done = 0; done < bytes; done += kPiece) {
    const std::size_t n = std::min(kPiece, bytes - done);
    Status s = in_link < 0 ? Status::OK() : links_[in_link].RecvAll(p + done, n, deadline);
    for (int r : tree_) {
      if (s.ok() && r != in_link) s = links_[r].SendAll(p + done, n, deadline);
    }
    if (!s.ok()) return s.Wrap(what);
  }
  return Status::OK();
}

// Sizes first (an allreduce of one slot per rank), then the blocks around the ring.
Status TcpCommunicator::AllgathervOnce(const void* in, std::size_t bytes, std::vector<char>* out) {
  std::vector<int64_t> sizes(world_, 0);
  sizes[rank_] = static_cast<int64_t>(bytes);
  Status s = AllreduceOnce(sizes.data(), sizes.size(), DataType::kInt64, Op::kSum);
  if (!s.ok()) return s;
  // Each rank's size comes from that rank alone: ours must have come back unchanged, and the sum
  // is bounded before anything is allocated.
  std::vector<std::size_t> offsets(world_ + 1, 0);
  for (int r = 0; r < world_; ++r) {
    if (sizes[r] < 0 || sizes[r] > proto::kMaxAllgathervBytes - static_cast<int64_t>(offsets[r]) ||
        (r == rank_ && sizes[r] != static_cast<int64_t>(bytes))) {
      return Status::Fail(Where() + ": Allgatherv: rank " + std::to_string(r) + " announced " +
                          std::to_string(sizes[r]) + " bytes (allowed: a total of 0 to " +
                          std::to_string(proto::kMaxAllgathervBytes) + ")");
    }
    offsets[r + 1] = offsets[r] + static_cast<std::size_t>(sizes[r]);
  }
  out->resize(offsets[world_]);
  if (bytes != 0) std::memcpy(out->data() + offsets[rank_], in, bytes);
  if (world_ == 1) return Status::OK();
  const Algorithm algorithm =
      Forced(PickAllgather(offsets[world_], world_, model_, hypercube_), true, true, hypercube_);
  if (algorithm == Algorithm::kRing) {
    return RingAllgather(out->data(), offsets, rank_).Wrap(Where() + ": Allgatherv");
  }
  if (algorithm == Algorithm::kHalving) {
    return DoublingAllgatherBlocks(out->data(), offsets).Wrap(Where() + ": Allgatherv");
  }
  // Few bytes or many ranks: 2 L steps up and down the tree instead of the ring's P - 1. Every
  // rank's block in its place and zeros elsewhere, or-ed together: the blocks are disjoint, so
  // the result is the ring's byte for byte.
  std::vector<uint64_t> words((offsets[world_] + 7) / 8, 0);
  char* w = reinterpret_cast<char*>(words.data());
  if (bytes != 0) std::memcpy(w + offsets[rank_], in, bytes);
  s = TreeAllreduce(w, words.size(), DataType::kUInt64, Op::kBitOr);
  if (!s.ok()) return s.Wrap(Where() + ": Allgatherv");
  std::memcpy(out->data(), w, offsets[world_]);
  return Status::OK();
}

}  // namespace ringboost::rabit

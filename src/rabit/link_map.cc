// The tree and ring of a Rabit world, laid out exactly as XGBoost 1.7's RabitTracker lays them
// out (get_link_map), so that ringboost workers and XGBoost workers under either tracker see the
// same neighbours. Steps: a binary heap tree over 0..n-1; a ring that walks the tree depth first,
// the last child's walk reversed (so the ring tends to reuse tree links); then every rank is
// renumbered by its position on that ring, so the ring becomes 0, 1, ..., n-1.
#include <algorithm>
#include <utility>
#include <vector>

#include "rabit/protocol.h"

namespace ringboost::rabit::proto {
namespace {

// Heap children of `node` in the order XGBoost's tracker walks them. It iterates a Python set of
// small ints, whose order is the hash-table slot order (value mod 8 for sets this small), not
// the numeric order: children c and c+1 with c % 8 == 7 come out as c+1, c. Reproduced so that
// the ring matches XGBoost's for every world size, not only for those below nine.
std::vector<int> WalkOrderChildren(int node, int world_size) {
  std::vector<int> children;
  for (int child : {2 * node + 1, 2 * node + 2}) {
    if (child < world_size) children.push_back(child);
  }
  if (children.size() == 2 && children[0] % 8 == 7) std::swap(children[0], children[1]);
  return children;
}

// The ring as a list of heap nodes, starting at `node` (find_share_ring of XGBoost's tracker).
// Iterative would avoid deep recursion, but the depth is log2(world size), at most 17.
std::vector<int> ShareRing(int node, int world_size) {
  std::vector<int> ring{node};
  const std::vector<int> children = WalkOrderChildren(node, world_size);
  for (std::size_t i = 0; i < children.size(); ++i) {
    std::vector<int> walk = ShareRing(children[i], world_size);
    if (i + 1 == children.size()) std::reverse(walk.begin(), walk.end());
    ring.insert(ring.end(), walk.begin(), walk.end());
  }
  return ring;
}

}  // namespace

LinkMap ComputeLinkMap(int world_size) {
  RB_CHECK_MSG(world_size >= 1 && world_size <= kMaxWorldSize, "world_size=" << world_size);
  const int n = world_size;
  // Heap node -> rank: a node's position on the ring.
  const std::vector<int> ring = ShareRing(0, n);
  RB_CHECK(static_cast<int>(ring.size()) == n);
  std::vector<int> rank_of(n);
  for (int pos = 0; pos < n; ++pos) rank_of[ring[pos]] = pos;

  LinkMap map;
  map.parent.assign(n, -1);
  map.neighbours.assign(n, {});
  map.ring_prev.resize(n);
  map.ring_next.resize(n);
  for (int node = 0; node < n; ++node) {
    const int rank = rank_of[node];
    // Neighbour order as XGBoost's tree_map lists: parent first, then children ascending by
    // heap index.
    if (node > 0) {
      map.parent[rank] = rank_of[(node - 1) / 2];
      map.neighbours[rank].push_back(map.parent[rank]);
    }
    for (int child : {2 * node + 1, 2 * node + 2}) {
      if (child < n) map.neighbours[rank].push_back(rank_of[child]);
    }
  }
  for (int rank = 0; rank < n; ++rank) {
    map.ring_prev[rank] = (rank + n - 1) % n;
    map.ring_next[rank] = (rank + 1) % n;
  }
  return map;
}

Hypercube::Hypercube(int world_size) : world(world_size) {
  while (size * 2 <= world) size *= 2;
  extra = world - size;
}

int Hypercube::Steps() const {
  int steps = 0;
  while ((1 << steps) < size) ++steps;
  return steps;
}

std::vector<int> HypercubePartners(int rank, int world_size) {
  const Hypercube h(world_size);
  std::vector<int> out;
  const int v = h.Virtual(rank);
  if (v < 0) return {rank - 1};
  if (rank < 2 * h.extra) out.push_back(rank + 1);
  for (int d = 1; d < h.size; d *= 2) out.push_back(h.Real(v ^ d));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ringboost::rabit::proto

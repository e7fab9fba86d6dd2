// CategoriesOf / ReadCategories (xgboost_doc.h): the categorical splits' four arrays.
#include <algorithm>
#include <string>

#include "common/error.h"
#include "model/xgboost_doc.h"

namespace ringboost::xgb {
namespace {

const Json& ArrayOrFail(const Json& t, const char* key, const std::string& where) {
  auto it = t.find(key);
  if (it == t.end()) RB_FAIL(where << ": has categories_nodes but no '" << key << "'");
  if (!it->is_array()) RB_FAIL(where << ": '" << key << "' must be an array");
  return *it;
}

uint64_t Unsigned(const Json& v, const std::string& what, uint64_t hi) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) ||
      v.get<uint64_t>() > hi) {
    RB_FAIL(what << ": " << Brief(v) << " is not an integer in [0, " << hi << "]");
  }
  return v.get<uint64_t>();
}

}  // namespace

CategoryArrays CategoriesOf(const RegTree& tree) {
  CategoryArrays out;
  int64_t offset = 0;
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    const TreeNode& n = tree[nid];
    if (!n.is_cat) continue;
    out.nodes.push_back(nid);
    out.segments.push_back(offset);
    out.sizes.push_back(static_cast<int64_t>(n.categories.size()));
    for (uint32_t c : n.categories) out.categories.push_back(c);
    offset += static_cast<int64_t>(n.categories.size());
  }
  return out;
}

void ReadCategories(const Json& t, const std::string& where, RegTree* tree) {
  if (!t.contains("categories_nodes")) return;
  const Json& nodes = ArrayOrFail(t, "categories_nodes", where);
  const Json& segments = ArrayOrFail(t, "categories_segments", where);
  const Json& sizes = ArrayOrFail(t, "categories_sizes", where);
  const Json& categories = ArrayOrFail(t, "categories", where);
  if (segments.size() != nodes.size() || sizes.size() != nodes.size()) {
    RB_FAIL(where << ": categories_nodes, categories_segments and categories_sizes have "
                  << nodes.size() << ", " << segments.size() << " and " << sizes.size()
                  << " entries; they must have the same");
  }
  const int n = tree->NumNodes();
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const int nid = static_cast<int>(Unsigned(nodes[k], where + ": categories_nodes", n - 1));
    TreeNode& node = (*tree)[nid];
    if (node.IsLeaf() || node.is_cat) {
      RB_FAIL(where << ": categories_nodes names node " << nid
                    << (node.is_cat ? " twice" : ", a leaf"));
    }
    const uint64_t begin =
        Unsigned(segments[k], where + ": categories_segments", categories.size());
    const uint64_t size =
        Unsigned(sizes[k], where + ": categories_sizes", categories.size() - begin);
    node.is_cat = true;
    for (uint64_t i = begin; i < begin + size; ++i) {
      node.categories.push_back(
          static_cast<uint32_t>(Unsigned(categories[i], where + ": categories", kMaxCategory - 1)));
    }
    std::sort(node.categories.begin(), node.categories.end());
    node.categories.erase(std::unique(node.categories.begin(), node.categories.end()),
                          node.categories.end());
  }
}

}  // namespace ringboost::xgb

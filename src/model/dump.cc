// DumpText and DumpJson: byte for byte the dumps of XGBoost 1.7.4's `task=dump`
// (src/tree/tree_model.cc TextGenerator / JsonGenerator, src/cli_main.cc), so that scripts
// that parse XGBoost dumps read ours. Its quirks are kept on purpose: indicator splits print
// no tabs and swap yes/no by the default direction; the JSON dump has spaces before commas.
// Numbers are floats printed as `std::setprecision(9)` prints them (%.9g).
#include <charconv>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "model/model.h"

namespace ringboost {
namespace {

// How a split's feature is printed, from the feature map (XGBoost's FeatureMap::Type).
enum class FeatureKind { kPlain, kIndicator, kQuantitative, kInteger };

struct DumpContext {
  const FeatureMap* fmap;  // may be null
  bool with_stats;

  bool InMap(uint32_t feature) const { return fmap != nullptr && feature < fmap->names.size(); }
  FeatureKind Kind(uint32_t feature) const {
    if (!InMap(feature)) return FeatureKind::kPlain;
    const std::string& type = fmap->types[feature];
    if (type == "i") return FeatureKind::kIndicator;
    if (type == "int") return FeatureKind::kInteger;
    return FeatureKind::kQuantitative;  // q, float, c
  }
  std::string Name(uint32_t feature) const {
    return InMap(feature) ? fmap->names[feature] : std::to_string(feature);
  }
};

std::string Num(float value) {
  char buf[48];
  auto res = std::to_chars(buf, buf + sizeof(buf), static_cast<double>(value),
                           std::chars_format::general, 9);
  return std::string(buf, res.ptr);
}

std::string Str(int value) { return std::to_string(value); }

// XGBoost's integer threshold: the condition rounded up to an integer (computed in float).
std::string IntegerThreshold(float cond) {
  const float floored = std::floor(cond);
  const float limit = 2147483520.0f;  // largest float below 2^31: keeps the cast defined
  const float clamped = std::fmax(-limit, std::fmin(limit, floored));
  const int threshold = static_cast<int>(clamped) + (floored == cond ? 0 : 1);
  return std::to_string(threshold);
}

int DefaultChild(const TreeNode& node) { return node.default_left ? node.left : node.right; }

// A categorical split's categories as XGBoost 3.x dumps them: "{1,4}" in text, "[1, 4]" in JSON;
// its "yes" is the branch of the listed categories, the right child.
std::string CategoryList(const TreeNode& node, const char* open, const char* separator,
                         const char* close) {
  std::string out = open;
  for (std::size_t i = 0; i < node.categories.size(); ++i) {
    if (i > 0) out += separator;
    out += std::to_string(node.categories[i]);
  }
  return out + close;
}
std::string PlainName(const DumpContext& ctx, uint32_t feature) {
  return (ctx.Kind(feature) == FeatureKind::kPlain ? "f" : "") + ctx.Name(feature);
}
// An indicator's "yes" is the branch of value 1, the non-default one.
int IndicatorYes(const TreeNode& node) { return node.default_left ? node.right : node.left; }

std::string Condition(const DumpContext& ctx, const TreeNode& node) {
  return ctx.Kind(node.feature) == FeatureKind::kInteger ? IntegerThreshold(node.split_cond)
                                                         : Num(node.split_cond);
}

// ---- text ---------------------------------------------------------------------------------

void TextSplit(const DumpContext& ctx, const TreeNode& node, int nid, int depth, std::string* out) {
  const FeatureKind kind = ctx.Kind(node.feature);
  if (node.is_cat) {
    out->append(depth, '\t');
    *out += Str(nid) + ":[" + PlainName(ctx, node.feature) + ":" +
            CategoryList(node, "{", ",", "}") + "] yes=" + Str(node.right) +
            ",no=" + Str(node.left) + ",missing=" + Str(DefaultChild(node));
    return;
  }
  if (kind == FeatureKind::kIndicator) {  // no tabs, as XGBoost
    *out += Str(nid) + ":[" + ctx.Name(node.feature) + "] yes=" + Str(IndicatorYes(node)) +
            ",no=" + Str(DefaultChild(node));
    return;
  }
  out->append(depth, '\t');
  *out += Str(nid) + ":[" + (kind == FeatureKind::kPlain ? "f" : "") + ctx.Name(node.feature) +
          "<" + Condition(ctx, node) + "] yes=" + Str(node.left) + ",no=" + Str(node.right) +
          ",missing=" + Str(DefaultChild(node));
}

std::string TextLine(const DumpContext& ctx, const TreeNode& node, int nid, int depth) {
  std::string out;
  if (node.IsLeaf()) {
    out.append(depth, '\t');
    out += Str(nid) + ":leaf=" + Num(node.leaf_value);
    if (ctx.with_stats) out += ",cover=" + Num(node.sum_hess);
    return out;
  }
  TextSplit(ctx, node, nid, depth, &out);
  if (ctx.with_stats) out += ",gain=" + Num(node.gain) + ",cover=" + Num(node.sum_hess);
  return out;
}

// The nodes in pre-order, one line each, joined by '\n'. An explicit stack rather than recursion:
// a model file may hold a chain of any depth (the model reader bounds nodes, not depth).
void TextTree(const DumpContext& ctx, const RegTree& tree, std::string* out) {
  std::vector<std::pair<int, int>> stack{{0, 0}};  // (node, depth)
  while (!stack.empty()) {
    const auto [nid, depth] = stack.back();
    stack.pop_back();
    if (nid != 0) *out += '\n';
    const TreeNode& node = tree[nid];
    *out += TextLine(ctx, node, nid, depth);
    if (node.IsLeaf()) continue;
    stack.emplace_back(node.right, depth + 1);
    stack.emplace_back(node.left, depth + 1);
  }
}

// ---- JSON ---------------------------------------------------------------------------------

std::string Indent(int depth) { return std::string(2 * (depth + 1), ' '); }

// XGBoost 1.7 writes names unescaped; escaping changes only names that would break the JSON.
std::string Quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string JsonSplitProperties(const DumpContext& ctx, const TreeNode& node, int nid, int depth) {
  const std::string name = node.is_cat ? PlainName(ctx, node.feature) : ctx.Name(node.feature);
  std::string out = " \"nodeid\": " + Str(nid) + ", \"depth\": " + Str(depth) +
                    ", \"split\": " + Quoted(name) + ", ";
  if (node.is_cat) {
    return out + "\"split_condition\": " + CategoryList(node, "[", ", ", "]") +
           ", \"yes\": " + Str(node.right) + ", \"no\": " + Str(node.left) +
           ", \"missing\": " + Str(DefaultChild(node));
  }
  if (ctx.Kind(node.feature) == FeatureKind::kIndicator) {
    return out + "\"yes\": " + Str(IndicatorYes(node)) + ", \"no\": " + Str(DefaultChild(node));
  }
  return out + "\"split_condition\": " + Condition(ctx, node) + ", \"yes\": " + Str(node.left) +
         ", \"no\": " + Str(node.right) + ", \"missing\": " + Str(DefaultChild(node));
}

// The text of one node up to its children (all of a leaf).
std::string JsonOpen(const DumpContext& ctx, const TreeNode& node, int nid, int depth) {
  std::string out = (depth != 0 ? "\n" : "") + Indent(depth);
  if (node.IsLeaf()) {
    out += "{ \"nodeid\": " + Str(nid) + ", \"leaf\": " + Num(node.leaf_value) + " ";
    if (ctx.with_stats) out += ", \"cover\": " + Num(node.sum_hess) + " ";
    return out + "}";
  }
  out += "{" + JsonSplitProperties(ctx, node, nid, depth) + " ";
  if (ctx.with_stats) {
    out += ", \"gain\": " + Num(node.gain) + ", \"cover\": " + Num(node.sum_hess);
  }
  return out + ", \"children\": [";
}

// A node and its subtree, nested as XGBoost nests them, with an explicit stack of what is left
// to write (a node to open, or a literal: the ", " between children, a closing bracket), so that
// a deep chain cannot overflow the call stack.
void JsonTree(const DumpContext& ctx, const RegTree& tree, std::string* out) {
  struct Step {
    int nid;  // -1: write `text`
    int depth;
    std::string text;
  };
  std::vector<Step> stack;
  stack.push_back({0, 0, ""});
  while (!stack.empty()) {
    Step step = std::move(stack.back());
    stack.pop_back();
    if (step.nid < 0) {
      *out += step.text;
      continue;
    }
    const TreeNode& node = tree[step.nid];
    *out += JsonOpen(ctx, node, step.nid, step.depth);
    if (node.IsLeaf()) continue;
    stack.push_back({-1, 0, "\n" + Indent(step.depth) + "]}"});
    stack.push_back({node.right, step.depth + 1, ""});
    stack.push_back({-1, 0, ", "});
    stack.push_back({node.left, step.depth + 1, ""});
  }
}

// ---- Graphviz DOT --------------------------------------------------------------------------

// Text inside a DOT string literal.
std::string DotEscaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string DotLabel(const DumpContext& ctx, const TreeNode& node) {
  std::string label;
  if (node.IsLeaf()) {
    label = "leaf=" + Num(node.leaf_value);
  } else if (node.is_cat) {  // as the text dump: the listed categories are "yes"
    label = DotEscaped(PlainName(ctx, node.feature)) + ":" + CategoryList(node, "{", ",", "}");
  } else if (ctx.Kind(node.feature) == FeatureKind::kIndicator) {
    label = DotEscaped(ctx.Name(node.feature));
  } else {
    label = (ctx.Kind(node.feature) == FeatureKind::kPlain ? "f" : "") +
            DotEscaped(ctx.Name(node.feature)) + "<" + Condition(ctx, node);
  }
  if (ctx.with_stats && !node.IsLeaf()) label += "\\ngain=" + Num(node.gain);  // DOT's line break
  if (ctx.with_stats) label += "\\ncover=" + Num(node.sum_hess);
  return "\"" + label + "\"";
}

// The nodes and edges of tree `t`, node ids "t<t>_<nid>", in node order (no recursion).
void DotTree(const DumpContext& ctx, const RegTree& tree, int t, const std::string& indent,
             std::string* out) {
  const std::string prefix = "t" + Str(t) + "_";
  for (int nid = 0; nid < tree.NumNodes(); ++nid) {
    const TreeNode& node = tree[nid];
    *out += indent + prefix + Str(nid) + " [label=" + DotLabel(ctx, node) +
            (node.IsLeaf() ? " shape=box" : "") + "]\n";
    if (node.IsLeaf()) continue;
    const bool indicator = !node.is_cat && ctx.Kind(node.feature) == FeatureKind::kIndicator;
    const int yes = indicator ? IndicatorYes(node) : node.is_cat ? node.right : node.left;
    const int no = indicator ? DefaultChild(node) : node.is_cat ? node.left : node.right;
    const int missing = DefaultChild(node);
    *out += indent + prefix + Str(nid) + " -> " + prefix + Str(yes) + " [label=\"yes" +
            (yes == missing ? ", missing" : "") + "\" color=\"#0000FF\"]\n";
    *out += indent + prefix + Str(nid) + " -> " + prefix + Str(no) + " [label=\"no" +
            (no == missing ? ", missing" : "") + "\" color=\"#FF0000\"]\n";
  }
}

}  // namespace

std::string DumpDot(const Model& model, const FeatureMap* fmap, bool with_stats, int tree) {
  const int num_trees = static_cast<int>(model.trees.size());
  if (tree < -1 || tree >= num_trees) {
    RB_FAIL("cannot draw tree " << tree << ": the model has " << num_trees << " trees (use 0 to "
                                << num_trees - 1 << ", or -1 for all)");
  }
  const DumpContext ctx{fmap, with_stats};
  std::string out = "digraph ringboost {\n  graph [rankdir=TB]\n";
  if (tree >= 0) {
    DotTree(ctx, model.trees[tree], tree, "  ", &out);
    return out + "}\n";
  }
  for (int t = 0; t < num_trees; ++t) {
    out += "  subgraph cluster_" + Str(t) + " {\n    label=\"booster[" + Str(t) + "]\"\n";
    DotTree(ctx, model.trees[t], t, "    ", &out);
    out += "  }\n";
  }
  return out + "}\n";
}

std::string DumpText(const Model& model, const FeatureMap* fmap, bool with_stats) {
  const DumpContext ctx{fmap, with_stats};
  std::string out;
  for (size_t i = 0; i < model.trees.size(); ++i) {
    out += "booster[" + std::to_string(i) + "]:\n";
    TextTree(ctx, model.trees[i], &out);
    out += '\n';
  }
  return out;
}

std::string DumpJson(const Model& model, const FeatureMap* fmap, bool with_stats) {
  const DumpContext ctx{fmap, with_stats};
  std::string out = "[\n";
  for (size_t i = 0; i < model.trees.size(); ++i) {
    if (i != 0) out += ",\n";
    JsonTree(ctx, model.trees[i], &out);
  }
  return out + "\n]\n";
}

}  // namespace ringboost

// The XGBoost CLI config syntax (dmlc-core's ConfigParser as the XGBoost CLI uses it) read
// through the parameter table, and the help texts generated from that table.
#include "common/config.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/logging.h"
#include "common/params_table.h"

namespace ringboost {

namespace {

// One `key = value` as written, with where it was written ("<file>:<line>" or "command line").
struct Setting {
  std::string where;
  std::string key;
  std::string value;
};

std::string Trim(const std::string& s) {
  const char* space = " \t\r\n\f\v";
  size_t begin = s.find_first_not_of(space);
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(space);
  return s.substr(begin, end - begin + 1);
}

bool IsQuote(char c) { return c == '"' || c == '\''; }

// The value after '=' (blanks before it trimmed): one opening with ' or " runs to the same quote
// (the other quote and '#' inside are the value's), and only blanks (or, in a file, a `#`
// comment) may follow it; an unquoted value ends at a `#` comment in a file. XGBoost 1.7's config
// reader takes both quotes too; it refuses a quote of either kind inside a quoted value, which
// here is the value's own ('say "hi"').
std::string ValueOf(const std::string& where, const std::string& key, const std::string& text,
                    bool comments) {
  const char quote = text.empty() ? '\0' : text[0];
  if (!IsQuote(quote)) return Trim(comments ? text.substr(0, text.find('#')) : text);
  const size_t close = text.find(quote, 1);
  if (close == std::string::npos) {
    RB_FAIL(where << ": " << key << ": the value " << text << " has no closing '" << quote << "'");
  }
  std::string after = Trim(text.substr(close + 1));
  if (!after.empty() && !(comments && after[0] == '#')) {
    RB_FAIL(where << ": " << key << ": unexpected text after the quoted value: " << after);
  }
  return text.substr(1, close - 1);
}

// `key = value`; `comments`: a config file's line, where `#` starts a comment outside a quoted
// value. Returns false for a line that holds only a comment or blanks.
bool SplitKeyValue(const std::string& where, const std::string& text, bool comments, Setting* s) {
  const size_t eq = text.find('=');
  const size_t hash = comments ? text.find('#') : std::string::npos;
  if (hash < eq) {  // the comment starts before any '='
    if (Trim(text.substr(0, hash)).empty()) return false;
    RB_FAIL(where << ": expected 'key = value', got '" << Trim(text.substr(0, hash)) << "'");
  }
  if (eq == std::string::npos) {
    if (Trim(text).empty()) return false;
    RB_FAIL(where << ": expected 'key = value', got '" << Trim(text) << "'");
  }
  s->where = where;
  s->key = Trim(text.substr(0, eq));
  if (s->key.empty()) {
    RB_FAIL(where << ": missing parameter name before '=' in '" << Trim(text) << "'");
  }
  s->value = ValueOf(where, s->key, Trim(text.substr(eq + 1)), comments);
  return true;
}

std::vector<Setting> ReadConfigFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    RB_FAIL("cannot open config '" << path << "': " << std::strerror(errno));
  }
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) text.append(buffer, n);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) RB_FAIL("cannot read config '" << path << "'");
  // A UTF-8 byte-order mark (Windows editors write one) is not part of the first key.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);

  std::vector<Setting> settings;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find('\0') != std::string::npos) {
      RB_FAIL(path << ":" << number << ": a NUL byte in the line; a config file is text");
    }
    Setting s;
    if (SplitKeyValue(path + ":" + std::to_string(number), line, true, &s)) settings.push_back(s);
  }
  return settings;
}

// Letters, digits, '_', '.' and '-': a name that no eval log or eval_history (CSV, JSON) needs to
// quote.
bool IsEvalName(const std::string& name) {
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

// `eval[NAME] = uri`: appends (NAME, uri). Returns false if `key` is not of that form.
bool ApplyEval(const Setting& s, Params* params) {
  const std::string prefix = "eval[";
  if (s.key.compare(0, prefix.size(), prefix) != 0) return false;
  if (s.key.back() != ']' || s.key.size() == prefix.size() + 1) {
    RB_FAIL(s.where << ": '" << s.key << "' must be eval[NAME] with a non-empty NAME, as "
                    << "eval[test] = \"test.txt?format=libsvm\"");
  }
  std::string name = s.key.substr(prefix.size(), s.key.size() - prefix.size() - 1);
  if (!IsEvalName(name)) {
    RB_FAIL(s.where << ": '" << s.key << "': an eval set's name may hold only letters, digits, "
                    << "'_', '.' and '-' (it heads the columns of the log and of eval_history), "
                    << "as eval[test] or eval[valid-2]");
  }
  for (const auto& [other, uri] : params->evals) {
    if (other == name) {
      RB_FAIL(s.where << ": " << s.key << " is given twice; give each eval set a name of its own "
                      << "(its results are logged and recorded under it)");
    }
  }
  params->evals.emplace_back(name, s.value);
  params->given[s.key] = s.value;
  return true;
}

void ApplySetting(const Setting& s, Params* params, std::vector<std::string>* warnings) {
  if (ApplyEval(s, params)) return;
  // Settings of the collective, as rabit takes them; the tcp backend checks them.
  if (s.key.rfind("DMLC_", 0) == 0 || s.key.rfind("rabit_", 0) == 0) {
    params->collective_args.emplace_back(s.key, s.value);
    return;
  }
  const ParamSpec* spec = FindParam(s.key);
  if (spec == nullptr) {
    std::string closest = ClosestKey(s.key);
    if (closest.empty()) {
      RB_FAIL(s.where << ": unknown parameter '" << s.key
                      << "'; `ringboost help` lists the parameters");
    }
    RB_FAIL(s.where << ": unknown parameter '" << s.key << "'; did you mean '" << closest << "'?");
  }
  if (spec->ignored()) {
    warnings->push_back(s.where + ": parameter '" + s.key + "' is ignored: " + spec->doc);
    return;
  }
  std::vector<std::string> value_warnings;
  std::string error = ApplyValue(*spec, s.value, params, &value_warnings);
  if (!error.empty()) RB_FAIL(s.where << ": " << s.key << "=" << s.value << ": " << error);
  for (const std::string& w : value_warnings) warnings->push_back(s.where + ": " + w);
  params->given[spec->name] = s.value;
}

// XGBoost 1.x's GPU keys, which XGBoost 2 still takes with a deprecation warning: gpu_id=N is
// device=cuda:N (a negative N: the CPU), tree_method=gpu_hist is tree_method=hist plus device=cuda
// (unless a gpu_id picks the GPU). Rewritten in place, so that "later wins" holds for them too.
std::vector<Setting> RewriteXGBoostGpuKeys(const std::vector<Setting>& settings,
                                           std::vector<std::string>* warnings) {
  bool gpu_id_given = false;
  for (const Setting& s : settings) gpu_id_given |= s.key == "gpu_id";
  std::vector<Setting> out;
  for (const Setting& s : settings) {
    if (s.key == "gpu_id") {
      const std::string device = !s.value.empty() && s.value[0] == '-' ? "cpu" : "cuda:" + s.value;
      warnings->push_back(s.where + ": gpu_id=" + s.value +
                          " is deprecated (as in XGBoost 2): taken as device=" + device);
      out.push_back({s.where, "device", device});
    } else if (s.key == "tree_method" && s.value == "gpu_hist") {
      warnings->push_back(s.where +
                          ": tree_method=gpu_hist is deprecated (as in XGBoost 2): taken as "
                          "tree_method=hist device=cuda; write those instead");
      out.push_back({s.where, s.key, "hist"});
      if (!gpu_id_given) out.push_back({s.where, "device", "cuda"});
    } else {
      out.push_back(s);
    }
  }
  return out;
}

void ApplyDefaults(Params* params) {
  std::vector<std::string> unused;
  for (const ParamSpec& spec : ParamTable()) {
    if (spec.ignored() || spec.repeatable()) continue;
    std::string error = ApplyValue(spec, spec.default_text, params, &unused);
    RB_CHECK_MSG(error.empty(), "default of " << spec.name << ": " << error);
  }
}

// Rules that tie keys together, checked once everything is read.
void CheckCombination(const Params& p) {
  if (p.objective.compare(0, 6, "multi:") == 0 && p.num_class < 2) {
    RB_FAIL("objective=" << p.objective << " needs num_class >= 2 (the number of classes); got "
                         << "num_class=" << p.num_class);
  }
  for (const auto& [name, uri] : p.evals) {
    if (p.eval_train && name == "train") {
      RB_FAIL("eval[train]=" << uri << " and eval_train=1 both name a set 'train'; rename the "
                             << "eval set or drop eval_train");
    }
  }
  if (p.max_depth == 0 && p.max_leaves == 0) {
    RB_FAIL(
        "max_depth=0 and max_leaves=0 leave the trees unlimited; set max_depth >= 1 or "
        "max_leaves >= 1");
  }
}

// "float in [0, inf)", "string: train, pred, dump", "boolean", ...
std::string Summary(const ParamSpec& spec) {
  std::string type = TypeName(spec);
  std::string values = ValuesText(spec);
  if (values.empty()) return type;
  std::string text = type + (spec.allowed.empty() ? " in " : ": ") + values;
  for (const ValueAlias& a : spec.value_aliases) text += "; " + a.from + " = " + a.to;
  return text;
}

std::string Join(const std::vector<std::string>& items, const std::string& separator,
                 const std::string& quote) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : separator) + quote + item + quote;
  }
  return out;
}

const char* kSyntax =
    "Config file: one `key = value` per line (spaces optional); `#` starts a comment; values "
    "may be quoted, \"...\" or '...' (a `#` inside quotes is the value's); `eval[NAME] = uri` "
    "adds an evaluation set. `key=value` arguments "
    "after the config file override it, later wins; repeatable keys (eval_metric, eval[NAME]) "
    "append. Booleans are 0, 1, true or false. A UTF-8 byte-order mark at the start of the file "
    "is skipped.";

std::string MarkdownValues(const ParamSpec& spec) {
  std::string values = ValuesText(spec);
  if (values.empty()) return "";
  if (spec.allowed.empty()) return "`" + values + "`";
  std::string text = Join(spec.allowed, ", ", "`");
  for (const ValueAlias& a : spec.value_aliases) {
    text += ", `" + a.from + "` (as `" + a.to + "`)";
  }
  return text;
}

std::string MarkdownCell(std::string text) {
  for (size_t i = text.find('|'); i != std::string::npos; i = text.find('|', i + 2)) {
    text.replace(i, 1, "\\|");
  }
  return text;
}

}  // namespace

Params ParseConfig(const std::string& conf_path, const std::vector<std::string>& overrides) {
  Params params;
  ApplyDefaults(&params);
  std::vector<Setting> settings;
  if (!conf_path.empty()) settings = ReadConfigFile(conf_path);
  for (const std::string& text : overrides) {
    Setting s;
    if (!SplitKeyValue("command line", text, false, &s)) {
      RB_FAIL("command line: expected 'key = value', got '" << text << "'");
    }
    settings.push_back(s);
  }
  std::vector<std::string> warnings;
  for (const Setting& s : RewriteXGBoostGpuKeys(settings, &warnings)) {
    ApplySetting(s, &params, &warnings);
  }
  CheckCombination(params);
  params.config_file = conf_path;
  // Shown at the verbosity the run asked for, which may be set after the warning's cause.
  if (params.verbosity >= static_cast<int>(LogLevel::kWarning)) {
    for (const std::string& w : warnings) LogMessage(LogLevel::kWarning, w);
  }
  return params;
}

std::string ParametersHelp() {
  std::ostringstream os;
  os << "ringboost parameters\n\n" << kSyntax << "\n";
  std::string section;
  for (const ParamSpec& spec : ParamTable()) {
    if (section != spec.section) {
      section = spec.section;
      os << "\n" << section << "\n";
    }
    os << "  " << spec.name;
    if (!spec.ignored() && !spec.repeatable()) os << " = " << spec.default_text;
    if (!spec.aliases.empty()) os << "   (alias: " << Join(spec.aliases, ", ", "") << ")";
    os << "\n      " << Summary(spec) << "\n      " << spec.doc << "\n";
  }
  return os.str();
}

std::string ParametersMarkdown() {
  std::ostringstream os;
  os << "# ringboost parameters\n\n"
     << "<!-- Generated from src/common/params_table.cc by `ringboost help --markdown`; "
        "do not edit by hand. -->\n\n"
     << kSyntax << " Names, aliases and defaults are XGBoost 1.7's.\n";
  std::string section;
  for (const ParamSpec& spec : ParamTable()) {
    if (section != spec.section) {
      section = spec.section;
      os << "\n## " << section << "\n\n"
         << "| Parameter | Aliases | Type | Default | Values | Description |\n"
         << "| --- | --- | --- | --- | --- | --- |\n";
    }
    std::string default_cell;
    if (!spec.ignored() && !spec.default_text.empty()) default_cell = "`" + spec.default_text + "`";
    os << "| `" << spec.name << "` | " << Join(spec.aliases, ", ", "`") << " | " << TypeName(spec)
       << " | " << default_cell << " | " << MarkdownValues(spec) << " | " << MarkdownCell(spec.doc)
       << " |\n";
  }
  return os.str();
}

}  // namespace ringboost

#include "data/uri.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "data/parser.h"

namespace ringboost {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return out;
    start = pos + 1;
  }
}

int ParseIntOption(const std::string& uri, const std::string& key, const std::string& value) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) {
    RB_FAIL("data URI '" << uri << "': " << key << "='" << value << "' is not an integer");
  }
  return v;
}

bool ParseBoolOption(const std::string& uri, const std::string& key, const std::string& value) {
  if (value == "1" || value == "true") return true;
  if (value == "0" || value == "false") return false;
  RB_FAIL("data URI '" << uri << "': " << key << "='" << value << "' must be 0, 1, true or false");
}

// label_column / weight_column: a column number (>= 0: -1 stands for "none" inside, never in a
// URI), or a name that header=1 resolves.
void SetColumn(const std::string& uri, const std::string& key, const std::string& value,
               int* column, std::string* name) {
  const bool number = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) ||
                                         value[0] == '-' || value[0] == '+');
  if (number) {
    *column = ParseIntOption(uri, key, value);
    if (*column < 0) {
      RB_FAIL("data URI '" << uri << "': " << key << "=" << value
                           << " is negative; give a column number >= 0 (0 = the first) or a "
                              "header name");
    }
  } else if (!value.empty()) {
    *name = value;
  } else {
    RB_FAIL("data URI '" << uri << "': " << key << "= is empty; give a column number or name");
  }
}

char ParseDelimiter(const std::string& uri, const std::string& value) {
  if (value == "\\t" || value == "\t" || value == "tab" || value == "%09") return '\t';
  if (value.size() == 1 && value[0] != '\n' && value[0] != '\r') return value[0];
  RB_FAIL("data URI '" << uri << "': delimiter='" << value
                       << "' must be one character (or \\t for a tab)");
}

void SetOption(const std::string& key, const std::string& value, UriSpec* spec) {
  const std::string& uri = spec->uri;
  if (key == "format") {
    if (value == "libsvm") {
      spec->format = DataFormat::kLibSVM;
    } else if (value == "csv" || value == "tsv") {
      spec->format = DataFormat::kCsv;
      if (value == "tsv" && !spec->delimiter_given) spec->delimiter = '\t';
      spec->delimiter_given |= value == "tsv";
    } else {
      RB_FAIL("data URI '" << uri << "': format='" << value << "' is not one of libsvm, csv");
    }
    spec->format_given = true;
  } else if (key == "label_column") {
    SetColumn(uri, key, value, &spec->label_column, &spec->label_column_name);
    spec->label_column_given = true;
  } else if (key == "weight_column") {
    SetColumn(uri, key, value, &spec->weight_column, &spec->weight_column_name);
  } else if (key == "label_lower_bound_column") {
    SetColumn(uri, key, value, &spec->lower_bound_column, &spec->lower_bound_column_name);
  } else if (key == "label_upper_bound_column") {
    SetColumn(uri, key, value, &spec->upper_bound_column, &spec->upper_bound_column_name);
  } else if (key == "categorical_column") {
    for (const std::string& one : Split(value, ',')) {
      int column = -1;
      std::string name;
      SetColumn(uri, key, one, &column, &name);
      if (name.empty()) spec->categorical_columns.push_back(column);
      if (!name.empty()) spec->categorical_column_names.push_back(name);
    }
  } else if (key == "header") {
    spec->header = ParseBoolOption(uri, key, value);
  } else if (key == "delimiter") {
    spec->delimiter = ParseDelimiter(uri, value);
    spec->delimiter_given = true;
  } else if (key == "indexing_mode") {
    spec->indexing_mode = ParseIntOption(uri, key, value);
    if (spec->indexing_mode < -1 || spec->indexing_mode > 1) {  // the key's bounds
      RB_FAIL("data URI '" << uri << "': indexing_mode=" << value
                           << ": expected an integer in [-1, 1] (0: ids count from 0, 1: from 1, "
                              "-1: detect)");
    }
    spec->indexing_mode_given = true;
  } else {
    RB_FAIL("data URI '" << uri << "': unknown option '" << key
                         << "'; known: format, label_column, weight_column, "
                            "label_lower_bound_column, label_upper_bound_column, delimiter, "
                            "header, indexing_mode, categorical_column");
  }
}

// Appends `path`, or the data files of the directory `path` in name order.
void AddPath(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const std::string reason = std::strerror(errno);
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    RB_FAIL("cannot open '" << path << "': " << reason
                            << (path[0] != '/' && !ec ? " (relative to " + cwd + ")" : ""));
  }
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(path);
    return;
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.empty() || name[0] == '.' || IsSideFileName(name)) {
      continue;
    }
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string dir = EndsWith(path, "/") ? path : path + "/";
  for (const auto& name : names) files->push_back(dir + name);
}

// The columns that are not features, with their keys (-1: none).
std::vector<std::pair<const char*, int>> RoleColumns(const UriSpec& spec) {
  return {{"label_column", spec.label_column},
          {"weight_column", spec.weight_column},
          {"label_lower_bound_column", spec.lower_bound_column},
          {"label_upper_bound_column", spec.upper_bound_column}};
}

// The bound columns come both or not at all, and no column has two roles.
void CheckColumnRoles(const UriSpec& spec) {
  const bool lower = spec.lower_bound_column >= 0 || !spec.lower_bound_column_name.empty();
  const bool upper = spec.upper_bound_column >= 0 || !spec.upper_bound_column_name.empty();
  if (lower != upper) {
    RB_FAIL("data URI '" << spec.uri << "': "
                         << (lower ? "label_lower_bound_column" : "label_upper_bound_column")
                         << " is given without "
                         << (lower ? "label_upper_bound_column" : "label_lower_bound_column")
                         << "; survival:aft needs both bounds of every row (an upper bound inf "
                            "is right-censored)");
  }
  const auto roles = RoleColumns(spec);
  for (std::size_t i = 0; i < roles.size(); ++i) {
    for (std::size_t j = i + 1; j < roles.size(); ++j) {
      if (roles[i].second >= 0 && roles[i].second == roles[j].second) {
        RB_FAIL("data URI '" << spec.uri << "': " << roles[i].first << " and " << roles[j].first
                             << " are both column " << roles[i].second << "; they must differ");
      }
    }
  }
}

}  // namespace

bool IsSideFileName(const std::string& name) {
  return EndsWith(name, ".weight") || EndsWith(name, ".query") || EndsWith(name, ".group") ||
         EndsWith(name, ".lower_bound") || EndsWith(name, ".upper_bound");
}

UriSpec ParseUri(const std::string& given) {
  UriSpec spec;
  spec.uri = given;
  std::string uri = given;
  const std::size_t hash = uri.rfind('#');
  const std::size_t query = uri.find('?');
  struct stat st;  // a '#' among the paths may be part of a file's name
  if (hash != std::string::npos &&
      (query < hash || ::stat(uri.substr(0, query).c_str(), &st) != 0)) {
    spec.cache_suffix = uri.substr(hash + 1);
    uri.resize(hash);
  }
  std::size_t q = uri.find('?');
  std::string paths = uri.substr(0, q);
  if (q != std::string::npos) {
    for (const std::string& kv : Split(uri.substr(q + 1), '&')) {
      if (kv.empty()) continue;
      std::size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        RB_FAIL("data URI '" << uri << "': option '" << kv << "' must be key=value");
      }
      SetOption(kv.substr(0, eq), kv.substr(eq + 1), &spec);
    }
  }
  CheckColumnRoles(spec);
  for (const std::string& path : Split(paths, ';')) {
    if (!path.empty()) AddPath(path, &spec.files);
  }
  if (paths.find_first_not_of(';') == std::string::npos) {
    RB_FAIL("data URI '" << uri << "' names no file");
  }
  return spec;
}

void ResolveFormat(const std::string& first_line, UriSpec* spec) {
  bool has_tab = first_line.find('\t') != std::string::npos;
  bool has_comma = first_line.find(',') != std::string::npos;
  if (!spec->format_given && first_line.find(':') == std::string::npos && (has_tab || has_comma)) {
    spec->format = DataFormat::kCsv;
    if (!spec->label_column_given) spec->label_column = 0;
  }
  bool csv_options = spec->label_column_given || spec->weight_column >= 0 ||
                     !spec->weight_column_name.empty() || spec->HasBoundColumns() ||
                     spec->delimiter_given || spec->header || !spec->categorical_columns.empty() ||
                     !spec->categorical_column_names.empty();
  if (spec->format == DataFormat::kLibSVM && csv_options) {
    RB_FAIL("data URI '" << spec->uri
                         << "': label_column, weight_column, label_lower_bound_column, "
                            "label_upper_bound_column, delimiter, header and "
                            "categorical_column apply to CSV, but the data is LibSVM; add "
                            "format=csv if it is CSV (LibSVM data takes feature_types)");
  }
  if (spec->format == DataFormat::kCsv && !spec->delimiter_given) {
    spec->delimiter = has_tab && !has_comma ? '\t' : ',';
  }
}

namespace {

// The position of `name` among the header's fields, or -1; *names gets them all, for a message.
int ColumnOf(const std::string& header_line, char delimiter, const std::string& name,
             std::string* names) {
  const std::vector<std::string> fields = HeaderNames(header_line, delimiter);
  for (std::size_t column = 0; column < fields.size(); ++column) {
    if (fields[column] == name) return static_cast<int>(column);
    *names += (column == 0 ? "" : ", ") + fields[column];
  }
  return -1;
}

void ResolveColumn(const std::string& header_line, const UriSpec& spec, const char* key,
                   const std::string& name, int* column) {
  if (name.empty()) return;
  if (!spec.header) {
    RB_FAIL("data URI '" << spec.uri << "': " << key << "='" << name
                         << "' names a column; add header=1 (the first line holds the column "
                            "names) or give the column's number (0 = the first)");
  }
  std::string names;
  *column = ColumnOf(header_line, spec.delimiter, name, &names);
  if (*column < 0) {
    RB_FAIL("data URI '" << spec.uri << "': " << key << "='" << name
                         << "' is not a column of the header of " << spec.files[0]
                         << "; its columns: " << names);
  }
}

}  // namespace

std::vector<std::string> HeaderNames(const std::string& header_line, char delimiter) {
  std::vector<std::string> names;
  const char* end = header_line.data() + header_line.size();
  for (const char* p = header_line.data();;) {
    const char* field_end = CsvFieldEnd(p, end, delimiter);
    std::string field(p, field_end);
    const auto b = field.find_first_not_of(" \t\r\"");
    const auto e = field.find_last_not_of(" \t\r\"");
    names.push_back(b == std::string::npos ? "" : field.substr(b, e - b + 1));
    if (field_end == end) return names;
    p = field_end + 1;
  }
}

void ResolveColumns(const std::string& header_line, UriSpec* spec) {
  ResolveColumn(header_line, *spec, "label_column", spec->label_column_name, &spec->label_column);
  ResolveColumn(header_line, *spec, "weight_column", spec->weight_column_name,
                &spec->weight_column);
  ResolveColumn(header_line, *spec, "label_lower_bound_column", spec->lower_bound_column_name,
                &spec->lower_bound_column);
  ResolveColumn(header_line, *spec, "label_upper_bound_column", spec->upper_bound_column_name,
                &spec->upper_bound_column);
  CheckColumnRoles(*spec);
  for (const std::string& name : spec->categorical_column_names) {
    int column = -1;
    ResolveColumn(header_line, *spec, "categorical_column", name, &column);
    spec->categorical_columns.push_back(column);
  }
  spec->categorical_column_names.clear();
}

std::vector<uint32_t> CategoricalFeatureIds(const UriSpec& spec) {
  std::vector<uint32_t> ids;
  for (int column : spec.categorical_columns) {
    int before = 0;  // the columns before it that are no feature
    for (const auto& [key, role] : RoleColumns(spec)) {
      if (column == role) {
        RB_FAIL("data URI '" << spec.uri << "': categorical_column " << column << " is the " << key
                             << "; name a feature column");
      }
      before += role >= 0 && role < column ? 1 : 0;
    }
    ids.push_back(static_cast<uint32_t>(column - before));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace ringboost

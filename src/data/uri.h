// The data URI: `path[;path...][?key=value&...]` as XGBoost / dmlc-core take it. A path may be a
// directory, which stands for its regular files in name order (side files and hidden files
// skipped). Options apply to every file of the URI.
#pragma once

#include <string>
#include <vector>

namespace ringboost {

enum class DataFormat { kLibSVM, kCsv };

struct UriSpec {
  std::string uri;                 // as given, for messages
  std::vector<std::string> files;  // the data files, in order
  bool format_given = false;       // format=libsvm|csv was written
  DataFormat format = DataFormat::kLibSVM;
  bool delimiter_given = false;
  char delimiter = ',';
  bool label_column_given = false;
  int label_column = -1;  // CSV: -1 = no label column (labels 0), as dmlc-core's CSV parser
  int weight_column = -1;
  bool header = false;             // CSV: the first line of every file holds column names
  std::string label_column_name;   // label_column=NAME: a column of the header (ResolveColumns)
  std::string weight_column_name;  // weight_column=NAME
  // label_lower_bound_column / label_upper_bound_column=N|NAME: CSV columns of survival:aft's
  // label interval (XGBoost's DMatrix fields label_lower_bound, label_upper_bound), both or none.
  int lower_bound_column = -1;
  int upper_bound_column = -1;
  std::string lower_bound_column_name;
  std::string upper_bound_column_name;
  // categorical_column=N|NAME[,...]: CSV columns holding categorical features (ResolveColumns
  // turns names into numbers; CategoricalFeatureIds into feature ids).
  std::vector<int> categorical_columns;
  std::vector<std::string> categorical_column_names;
  bool indexing_mode_given = false;
  int indexing_mode = 0;
  // What followed the last '#' of the URI (XGBoost's external-memory cache name,
  // `path[?options]#cache`), cut off; "" when there was none.
  std::string cache_suffix;

  // The CSV bound columns were given (by number or name).
  bool HasBoundColumns() const {
    return lower_bound_column >= 0 || !lower_bound_column_name.empty();
  }
};

// Splits the URI into files and options and lists directories. A `#name` at the end (XGBoost's
// external-memory cache) is cut off into cache_suffix, unless the uncut path is a file. Throws
// Error for an unknown option or a bad option value (naming the URI and the fix), and for a missing
// path
// ("cannot open '<path>': No such file or directory").
UriSpec ParseUri(const std::string& uri);

// Settles the format of a URI given no `format=`: LibSVM, unless `first_line` (the first data
// line of the first file) has no ':' and has tabs or commas: then CSV with the label in column 0
// (LightGBM's TSV/CSV files). Picks the CSV delimiter when none was given: tab when the first
// line has tabs and no commas, else ','. CSV options on LibSVM data are an error.
void ResolveFormat(const std::string& first_line, UriSpec* spec);

// With header=1, turns the label, weight, bound and categorical column names into column
// numbers, by the first file's header line `header_line` (delimiter settled). Throws Error naming
// the URI and the fix for a name that is not a column, for a name without header=1, and for one
// column given two roles.
void ResolveColumns(const std::string& header_line, UriSpec* spec);

// The column names of a CSV header line: its fields split as the rows are (a quoted name may hold
// the delimiter), trimmed of blanks and quotes.
std::vector<std::string> HeaderNames(const std::string& header_line, char delimiter);

// The feature ids of the categorical columns: a column's id counts the columns before it that
// are not the label, weight or bound columns. Throws Error for a column that is one of them.
std::vector<uint32_t> CategoricalFeatureIds(const UriSpec& spec);

// Whether a file name is a side file (`.weight`, `.query`, `.group`, `.lower_bound`,
// `.upper_bound`), skipped in directories.
bool IsSideFileName(const std::string& name);

}  // namespace ringboost

// LoadData: map the files of the URI, take this reader's part and cut it into line-aligned
// chunks of at most a few MB. A first, cheap pass counts each chunk's newlines and separators
// (upper bounds of its rows and entries); prefix sums of the bounds give every chunk its place in
// the final arrays, which are allocated once, and the second pass parses the chunks in parallel
// straight into them. Only where a chunk held fewer rows or entries than its bounds (comments,
// NaNs, label:weight, qid:, CSV label columns) are the later chunks moved down afterwards. Each
// pass releases a chunk's pages after it, so only a few chunks of text are resident at a time
// and the peak memory is about that of the CSR itself. Weights and query groups are then attached
// file by file. Errors from the threads are carried out with exception_ptr and the earliest one
// in input order is rethrown, so the message does not depend on the thread count.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/logging.h"
#include "common/memory.h"
#include "data/data.h"
#include "data/parser.h"
#include "data/partition.h"
#include "data/uri.h"
#include "data/weights_groups.h"

namespace ringboost {
namespace {

// Smallest chunk worth a thread of its own.
constexpr std::size_t kMinChunkBytes = std::size_t{1} << 16;
// Largest chunk: the text a thread has mapped at a time (a few chunks' worth stays resident).
constexpr std::size_t kMaxChunkBytes = std::size_t{4} << 20;

struct Chunk {
  std::size_t file;
  const char* begin;
  const char* end;
  ChunkBounds bounds;      // from the counting pass
  uint64_t row_off = 0;    // where its rows are written: the sum of the row bounds before it
  uint64_t entry_off = 0;  // where its entries are written
};

// The line at p without its trailing blanks.
std::string LineAt(const char* p, const char* end) {
  const char* e = LineEnd(p, end);
  while (e > p && IsBlank(e[-1])) --e;
  return std::string(p, e);
}

// The first data line of the input, without trailing blanks; "" when there is none.
std::string FirstDataLine(const std::vector<InputFile>& files) {
  for (const auto& f : files) {
    const char* end = f.map->end();
    for (const char* p = f.rows_begin; p < end; p = NextLine(p, end)) {
      if (IsDataLine(p, end)) return LineAt(p, end);
    }
  }
  return "";
}

// With header=1, moves each file's rows_begin past its header line (its first data line). Every
// file's names must be those of the first file's header, in order: a column's number (and
// label_column=NAME) is taken from the first file, and a file without a header line would lose
// its first row.
void SkipHeaders(const UriSpec& spec, std::vector<InputFile>* files) {
  const InputFile* first = nullptr;
  std::vector<std::string> first_names;
  for (auto& f : *files) {
    const char* end = f.map->end();
    const char* header = SkipDataRows(f.rows_begin, end, 0);
    f.rows_begin = NextLine(header, end);
    if (header == end) continue;
    std::vector<std::string> names = HeaderNames(LineAt(header, end), spec.delimiter);
    if (first == nullptr) {
      first = &f;
      first_names = std::move(names);
      continue;
    }
    std::size_t i = 0;
    while (i < names.size() && i < first_names.size() && names[i] == first_names[i]) ++i;
    if (i == names.size() && i == first_names.size()) continue;
    const auto shown = [](const std::vector<std::string>& v, std::size_t i) {
      return i < v.size() ? "'" + v[i] + "'" : std::string("none");
    };
    FailAt(f.map->path(), f.map->begin(), header,
           "header=1, but column " + std::to_string(i) + " of this header line is " +
               shown(names, i) + " where the header of '" + first->map->path() + "' has " +
               shown(first_names, i) +
               "; every file of the data needs the same header line (its first line), with the "
               "columns in the same order");
  }
}

// Whether some file has a row (a data line from its rows_begin on).
bool AnyRow(const std::vector<InputFile>& files) {
  for (const auto& f : files) {
    if (SkipDataRows(f.rows_begin, f.map->end(), 0) != f.map->end()) return true;
  }
  return false;
}

std::vector<InputFile> OpenFiles(const UriSpec& spec) {
  std::vector<InputFile> files(spec.files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    files[i].map = std::make_unique<MappedFile>(spec.files[i]);
    files[i].rows_begin = SkipByteOrderMark(files[i].map->begin(), files[i].map->end());
    files[i].side = FindSideFiles(spec.files[i]);
    if (!files[i].side.group.empty()) files[i].group_sizes = ReadGroupFile(files[i].side.group);
  }
  return files;
}

// The files of the URI with the format and columns resolved and each rows_begin past its header.
std::vector<InputFile> OpenRows(UriSpec* spec) {
  const std::string& shown = spec->files.size() == 1 ? spec->files[0] : spec->uri;
  std::vector<InputFile> files = OpenFiles(*spec);
  std::string first_line = FirstDataLine(files);
  if (first_line.empty()) RB_FAIL(shown << ": no data rows");
  ResolveFormat(first_line, spec);
  if (spec->format == DataFormat::kCsv) ResolveColumns(first_line, spec);
  for (auto& f : files) f.libsvm = spec->format == DataFormat::kLibSVM;
  if (spec->header) SkipHeaders(*spec, &files);
  if (!AnyRow(files)) RB_FAIL(shown << ": no data rows (only a header)");
  return files;
}

// Names every side file the data takes (once, from part 0): XGBoost 1.7 and 3.x ignore them, so a
// stale one left beside an XGBoost user's data would otherwise change the training unseen.
void WarnSideFiles(const std::vector<InputFile>& files) {
  for (const InputFile& f : files) {
    const std::string& data = f.map->path();
    const std::pair<const std::string*, const char*> sides[] = {
        {&f.side.weight, "the weight of each row"},
        {&f.side.group, "the query group sizes"},
        {&f.side.lower_bound, "the lower label bound of each row"},
        {&f.side.upper_bound, "the upper label bound of each row"}};
    for (const auto& [path, what] : sides) {
      if (path->empty()) continue;
      RB_LOG(kWarning, "side file '" << *path << "' gives " << what << " of '" << data
                                     << "', as LightGBM reads it (XGBoost ignores side files); "
                                        "rename it if it is not meant for this data");
    }
  }
}

// survival:aft's bounds come from the URI's columns or from side files, not both.
void CheckOneSourceOfBounds(const UriSpec& spec, const std::vector<InputFile>& files) {
  if (!spec.HasBoundColumns()) return;
  for (const InputFile& file : files) {
    if (file.side.lower_bound.empty()) continue;
    RB_FAIL("data URI '" << spec.uri << "': the label bounds are given both by "
                         << "label_lower_bound_column/label_upper_bound_column and by the side "
                         << "files '" << file.side.lower_bound << "', '" << file.side.upper_bound
                         << "'; keep one (remove the side files or the columns)");
  }
}

// Cuts every file range into line-aligned chunks of about `total / nthread` bytes, at most
// kMaxChunkBytes.
std::vector<Chunk> MakeChunks(const std::vector<InputFile>& files,
                              const std::vector<ByteRange>& ranges, int nthread) {
  std::size_t total = 0;
  for (const auto& r : ranges) total += static_cast<std::size_t>(r.end - r.begin);
  std::size_t target =
      std::max(kMinChunkBytes, std::min(kMaxChunkBytes, (total + nthread - 1) / nthread));
  std::vector<Chunk> chunks;
  for (std::size_t j = 0; j < ranges.size(); ++j) {
    const char* base = files[j].map->begin();
    const char* p = ranges[j].begin;
    while (p < ranges[j].end) {
      const char* cut = ranges[j].end - p > static_cast<std::ptrdiff_t>(target)
                            ? AlignToLine(base, p + target, ranges[j].end)
                            : ranges[j].end;
      chunks.push_back({j, p, cut, {}});
      p = cut;
    }
  }
  return chunks;
}

// The counting pass: each chunk's bounds, then their prefix sums; returns the totals.
ChunkBounds BoundChunks(const UriSpec& spec, const std::vector<InputFile>& files, int nthread,
                        std::vector<Chunk>* chunks) {
  const int n = static_cast<int>(chunks->size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(nthread, n)))
  for (int i = 0; i < n; ++i) {
    Chunk& c = (*chunks)[i];
    const MappedFile& file = *files[c.file].map;
    c.bounds = spec.format == DataFormat::kLibSVM ? LibSVMBounds(c.begin, c.end)
                                                  : CsvBounds(c.begin, c.end, spec.delimiter);
    file.Release(c.begin, c.end);
  }
  ChunkBounds total;
  for (Chunk& c : *chunks) {
    c.row_off = total.rows;
    c.entry_off = total.entries;
    total.rows += c.bounds.rows;
    total.entries += c.bounds.entries;
  }
  return total;
}

// Buffers for the weights and qids of the rows: new[] leaves them untouched, so they take no
// memory unless some row has one.
struct RowBuffers {
  std::unique_ptr<float[]> weight;
  std::unique_ptr<uint64_t[]> qid;
};

// Grows a vector to n elements within the capacity that reserve(n) gave it: this allocates
// nothing, so it throws nothing inside a parallel region.
template <typename T>
void FillReserved(std::size_t n, std::vector<T>* v) {
  AdviseHugePages(v->data(), n * sizeof(T));
  v->resize(n);
}

// Room for `bounds` rows and entries in *data (row_ptr, label, index, value; the label bounds
// when the CSV has bound columns) and in *rows.
void Allocate(const ChunkBounds& bounds, bool label_bounds, int nthread, DataSet* data,
              RowBuffers* rows) {
  // Entries: feature id and value; rows: the offset, label, weight and query id (and bounds).
  const uint64_t row_bytes = label_bounds ? 36 : 28;
  CheckAllocation(AddSat(MulSat(bounds.entries, 8), MulSat(bounds.rows, row_bytes)),
                  "the data of " + data->name,
                  "up to " + std::to_string(bounds.rows) + " rows x " + std::to_string(row_bytes) +
                      " bytes + " + std::to_string(bounds.entries) + " entries x 8 bytes",
                  "read it in parts (more workers) or on a machine with more memory");
  data->row_ptr.assign(bounds.rows + 1, 0);
  data->label.resize(bounds.rows);
  if (label_bounds) {
    data->label_lower_bound.resize(bounds.rows);
    data->label_upper_bound.resize(bounds.rows);
  }
  data->index.reserve(bounds.entries);
  data->value.reserve(bounds.entries);
  // The zero fill is the first touch of the big arrays (page faults and all): two threads share it.
#pragma omp parallel sections num_threads(nthread > 1 ? 2 : 1)
  {
#pragma omp section
    FillReserved(bounds.entries, &data->index);
#pragma omp section
    FillReserved(bounds.entries, &data->value);
  }
  rows->weight.reset(new float[bounds.rows]);
  rows->qid.reset(new uint64_t[bounds.rows]);
}

ParsedBlock BlockAt(const Chunk& c, DataSet* data, RowBuffers* rows) {
  ParsedBlock b;
  b.row_end = data->row_ptr.data() + 1 + c.row_off;
  b.label = data->label.data() + c.row_off;
  if (!data->label_lower_bound.empty()) {
    b.lower_bound = data->label_lower_bound.data() + c.row_off;
    b.upper_bound = data->label_upper_bound.data() + c.row_off;
  }
  b.weight = rows->weight.get() + c.row_off;
  b.qid = rows->qid.get() + c.row_off;
  b.index = data->index.data() + c.entry_off;
  b.value = data->value.data() + c.entry_off;
  b.entry_base = c.entry_off;
  return b;
}

// The parsing pass. Chunks after one that failed are skipped: only earlier ones can hold an
// earlier error.
std::vector<ParsedBlock> ParseChunks(const UriSpec& spec, const std::vector<InputFile>& files,
                                     const std::vector<Chunk>& chunks, const ParseContext& proto,
                                     int nthread, DataSet* data, RowBuffers* rows) {
  std::vector<ParsedBlock> blocks(chunks.size());
  std::vector<std::exception_ptr> errors(chunks.size());
  const int n = static_cast<int>(chunks.size());
  std::atomic<int> first_error{n};
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(nthread, n)))
  for (int i = 0; i < n; ++i) {
    if (i > first_error.load(std::memory_order_relaxed)) continue;
    const Chunk& c = chunks[i];
    const MappedFile& file = *files[c.file].map;
    try {
      ParseContext ctx = proto;
      ctx.file = &file;
      blocks[i] = BlockAt(c, data, rows);
      if (spec.format == DataFormat::kLibSVM) {
        ParseLibSVM(ctx, c.begin, c.end, &blocks[i]);
      } else {
        ParseCsv(ctx, c.begin, c.end, &blocks[i]);
      }
      RB_CHECK(blocks[i].num_rows <= c.bounds.rows && blocks[i].num_entries <= c.bounds.entries);
    } catch (...) {
      errors[i] = std::current_exception();
      int seen = first_error.load();
      while (i < seen && !first_error.compare_exchange_weak(seen, i)) {
      }
    }
    file.Release(c.begin, c.end);
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return blocks;
}

// Moves the rows and entries of every chunk down to follow those of the chunk before, where the
// bounds left gaps, and trims *data to what was parsed. Serial: a chunk's new place may overlap
// the old place of the chunk before it.
void Compact(const std::vector<Chunk>& chunks, const std::vector<ParsedBlock>& blocks,
             DataSet* data) {
  uint64_t rows = 0, entries = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const ParsedBlock& b = blocks[c];
    uint64_t gap = chunks[c].entry_off - entries;
    if (chunks[c].row_off != rows || gap != 0) {
      for (std::size_t r = 0; r < b.num_rows; ++r) {
        data->row_ptr[rows + 1 + r] = b.row_end[r] - gap;
      }
      std::memmove(data->label.data() + rows, b.label, b.num_rows * sizeof(float));
      if (b.lower_bound != nullptr) {
        std::memmove(data->label_lower_bound.data() + rows, b.lower_bound,
                     b.num_rows * sizeof(float));
        std::memmove(data->label_upper_bound.data() + rows, b.upper_bound,
                     b.num_rows * sizeof(float));
      }
    }
    if (gap != 0) {
      std::memmove(data->index.data() + entries, b.index, b.num_entries * sizeof(uint32_t));
      std::memmove(data->value.data() + entries, b.value, b.num_entries * sizeof(float));
    }
    rows += b.num_rows;
    entries += b.num_entries;
  }
  data->row_ptr.resize(rows + 1);
  data->label.resize(rows);
  if (!data->label_lower_bound.empty()) {
    data->label_lower_bound.resize(rows);
    data->label_upper_bound.resize(rows);
  }
  data->index.resize(entries);
  data->value.resize(entries);
}

// The weights (only when some row gave one) and qids (empty when no row gave one) of all rows.
void GatherWeightsAndQids(const std::vector<ParsedBlock>& blocks, DataSet* data,
                          std::vector<uint64_t>* qid) {
  bool has_weight = false, has_qid = false;
  for (const auto& b : blocks) has_weight |= b.has_weight, has_qid |= b.has_qid;
  if (has_weight) data->weight.resize(data->NumRows());
  if (has_qid) qid->resize(data->NumRows());
  uint64_t row = 0;
  for (const auto& b : blocks) {
    if (has_weight) {
      float* w = data->weight.data() + row;
      if (b.has_weight) {
        std::copy(b.weight, b.weight + b.num_rows, w);
      } else {
        std::fill(w, w + b.num_rows, 1.0f);
      }
    }
    if (has_qid) {
      uint64_t* q = qid->data() + row;
      if (b.has_qid) {
        std::copy(b.qid, b.qid + b.num_rows, q);
      } else {
        std::fill(q, q + b.num_rows, kNoQid);
      }
    }
    row += b.num_rows;
  }
}

// Turns 1-based ids into 0-based ones.
void ShiftIds(int nthread, std::vector<uint32_t>* index) {
  const int64_t n = static_cast<int64_t>(index->size());
  uint32_t* p = index->data();
#pragma omp parallel for schedule(static) num_threads(std::max(1, nthread))
  for (int64_t k = 0; k < n; ++k) p[k] -= 1;
}

// Where each file's rows landed in the concatenated data set.
std::vector<FileRows> RowsPerFile(const std::vector<Chunk>& chunks,
                                  const std::vector<ParsedBlock>& blocks, std::size_t num_files) {
  std::vector<FileRows> file_rows(num_files);
  uint64_t row = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    FileRows& fr = file_rows[chunks[c].file];
    if (fr.count == 0) fr.begin = row;
    fr.count += blocks[c].num_rows;
    fr.has_weight |= blocks[c].has_weight;
    if (fr.first_no_qid == nullptr) fr.first_no_qid = blocks[c].first_no_qid;
    row += blocks[c].num_rows;
  }
  return file_rows;
}

// Ranking weighs a whole query group by its first row's weight (query_groups::GroupWeight), as
// XGBoost takes one weight a group: a group whose rows give other weights too is named once,
// since those are not read (LightGBM averages them).
void WarnUnequalWeightsInAGroup(const DataSet& data, const LoadOptions& options) {
  if (data.group_ptr.empty() || data.weight.size() != data.NumRows()) return;
  for (std::size_t k = 0; k + 1 < data.group_ptr.size(); ++k) {
    const uint32_t first = data.group_ptr[k];
    for (uint32_t r = first + 1; r < data.group_ptr[k + 1]; ++r) {
      if (data.weight[r] == data.weight[first]) continue;
      const std::string part =
          options.num_parts == 1 ? std::string()
                                 : " (part " + std::to_string(options.part) + " of " +
                                       std::to_string(options.num_parts) + ", rows counted in it)";
      RB_LOG(kWarning, "data '" << data.name << "'" << part << ": query group " << k + 1
                                << " (rows " << first + 1 << "-" << data.group_ptr[k + 1]
                                << ") has rows of weight " << data.weight[first] << " and "
                                << data.weight[r] << "; ranking weighs each group by its first "
                                << "row's weight, as XGBoost takes one weight a group (give "
                                << "every row of a group its group's weight)");
      return;
    }
  }
}

}  // namespace

DataSet LoadData(const std::string& uri, const LoadOptions& options) {
  if (options.num_parts < 1 || options.part < 0 || options.part >= options.num_parts) {
    RB_FAIL("data '" << uri << "': part " << options.part << " of " << options.num_parts
                     << " does not exist; need 0 <= part < num_parts");
  }
  UriSpec spec;
  try {
    spec = ParseUri(uri);
  } catch (const Error& e) {
    if (options.key.empty()) throw;
    RB_FAIL(options.key << ": " << e.what());  // which key of the config named the data
  }
  if (options.part == 0 && !spec.cache_suffix.empty()) {
    RB_LOG(kWarning, "data '" << uri << "': '#" << spec.cache_suffix
                              << "' names an XGBoost external-memory cache; ringboost reads the "
                                 "data into memory (compactly) and writes no cache");
  }
  std::vector<InputFile> files = OpenRows(&spec);
  if (options.part == 0) WarnSideFiles(files);
  int indexing_mode = spec.indexing_mode_given ? spec.indexing_mode : options.indexing_mode;
  const bool detect = spec.format == DataFormat::kLibSVM && indexing_mode < 0;
  if (indexing_mode < 0 && options.detected_id_base >= 0) indexing_mode = options.detected_id_base;
  int nthread = options.nthread > 0 ? options.nthread : omp_get_max_threads();

  std::vector<ByteRange> ranges = PartRanges(files, options.part, options.num_parts);
  std::vector<Chunk> chunks = MakeChunks(files, ranges, nthread);
  ChunkBounds bounds = BoundChunks(spec, files, nthread, &chunks);
  DataSet data;
  data.name = uri;
  data.categorical = CategoricalFeatureIds(spec);
  RowBuffers row_buffers;
  CheckOneSourceOfBounds(spec, files);
  Allocate(bounds, spec.HasBoundColumns(), nthread, &data, &row_buffers);
  ParseContext proto;
  proto.indexing_mode = indexing_mode;
  proto.parse_float = options.parse_float;
  proto.check_label = &options.check_label;
  proto.delimiter = spec.delimiter;
  proto.label_column = spec.label_column;
  proto.weight_column = spec.weight_column;
  proto.lower_bound_column = spec.lower_bound_column;
  proto.upper_bound_column = spec.upper_bound_column;
  std::vector<ParsedBlock> blocks =
      ParseChunks(spec, files, chunks, proto, nthread, &data, &row_buffers);
  Compact(chunks, blocks, &data);
  std::vector<uint64_t> qid;
  GatherWeightsAndQids(blocks, &data, &qid);

  bool libsvm = spec.format == DataFormat::kLibSVM;
  bool any_zero = false, any_entry = false;
  uint32_t max_id = 0;
  for (const auto& b : blocks) {
    any_zero |= b.has_zero_id;
    if (b.num_entries > 0) max_id = std::max(max_id, b.max_id), any_entry = true;
  }
  uint32_t shift = libsvm && (indexing_mode > 0 || (indexing_mode < 0 && !any_zero)) ? 1 : 0;
  if (shift != 0) ShiftIds(nthread, &data.index);
  data.num_col = any_entry ? max_id + 1 - shift : 0;
  data.id_base = static_cast<int>(shift);
  data.id_base_detected = detect && options.detected_id_base < 0;

  std::vector<FileRows> file_rows = RowsPerFile(chunks, blocks, files.size());
  blocks.clear();
  row_buffers = {};
  AttachWeightsAndGroups(files, ranges, file_rows, qid, options.parse_float, &data);
  WarnUnequalWeightsInAGroup(data, options);
  return data;
}

void ReadIdsAsWritten(DataSet* data) {
  if (data->id_base != 1) return;
  for (uint32_t& id : data->index) ++id;
  if (!data->index.empty()) ++data->num_col;
  data->id_base = 0;
}

std::string DataRowPlace(const std::string& uri, uint64_t row) {
  try {
    UriSpec spec = ParseUri(uri);
    std::vector<InputFile> files = OpenRows(&spec);
    uint64_t left = row;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const MappedFile& map = *files[i].map;
      const uint64_t rows = CountFileDataRows(map, files[i].rows_begin, map.end());
      if (left < rows) {
        const char* p = SkipDataRows(files[i].rows_begin, map.end(), left);
        return spec.files[i] + ":" + std::to_string(1 + std::count(map.begin(), p, '\n'));
      }
      left -= rows;
    }
  } catch (const Error&) {  // the files changed or went away since they were read
  }
  return uri + ": row " + std::to_string(row + 1);
}

}  // namespace ringboost

// LoadData: map the files of the URI, take this reader's part, cut it into per-thread chunks at
// line starts, parse the chunks in parallel into blocks, then concatenate the blocks and attach
// weights and query groups file by file. Errors from the threads are carried out with
// exception_ptr and the earliest one in input order is rethrown, so the message does not depend
// on the thread count.
#include <omp.h>

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "common/error.h"
#include "data/data.h"
#include "data/parser.h"
#include "data/partition.h"
#include "data/uri.h"
#include "data/weights_groups.h"

namespace ringboost {
namespace {

// Smallest chunk worth a thread of its own.
constexpr std::size_t kMinChunkBytes = std::size_t{1} << 16;

struct Chunk {
  std::size_t file;
  const char* begin;
  const char* end;
};

// The first data line of the input, without trailing blanks; "" when there is none.
std::string FirstDataLine(const std::vector<InputFile>& files) {
  for (const auto& f : files) {
    const char* end = f.map->end();
    for (const char* p = f.map->begin(); p < end; p = NextLine(p, end)) {
      if (!IsDataLine(p, end)) continue;
      const char* e = LineEnd(p, end);
      while (e > p && IsBlank(e[-1])) --e;
      return std::string(p, e);
    }
  }
  return "";
}

std::vector<InputFile> OpenFiles(const UriSpec& spec) {
  std::vector<InputFile> files(spec.files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    files[i].map = std::make_unique<MappedFile>(spec.files[i]);
    files[i].side = FindSideFiles(spec.files[i]);
    if (!files[i].side.group.empty()) files[i].group_sizes = ReadGroupFile(files[i].side.group);
  }
  return files;
}

// Cuts every file range into line-aligned chunks of about `total / nthread` bytes.
std::vector<Chunk> MakeChunks(const std::vector<InputFile>& files,
                              const std::vector<ByteRange>& ranges, int nthread) {
  std::size_t total = 0;
  for (const auto& r : ranges) total += static_cast<std::size_t>(r.end - r.begin);
  std::size_t target = std::max(kMinChunkBytes, (total + nthread - 1) / nthread);
  std::vector<Chunk> chunks;
  for (std::size_t j = 0; j < ranges.size(); ++j) {
    const char* base = files[j].map->begin();
    const char* p = ranges[j].begin;
    while (p < ranges[j].end) {
      const char* cut = ranges[j].end - p > static_cast<std::ptrdiff_t>(target)
                            ? AlignToLine(base, p + target, ranges[j].end)
                            : ranges[j].end;
      chunks.push_back({j, p, cut});
      p = cut;
    }
  }
  return chunks;
}

std::vector<ParsedBlock> ParseChunks(const UriSpec& spec, const std::vector<InputFile>& files,
                                     const std::vector<Chunk>& chunks, int indexing_mode,
                                     const LoadOptions& options, int nthread) {
  std::vector<ParsedBlock> blocks(chunks.size());
  std::vector<std::exception_ptr> errors(chunks.size());
  const int n = static_cast<int>(chunks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(nthread, n)))
  for (int i = 0; i < n; ++i) {
    try {
      ParseContext ctx;
      ctx.file = files[chunks[i].file].map.get();
      ctx.indexing_mode = indexing_mode;
      ctx.check_label = &options.check_label;
      ctx.delimiter = spec.delimiter;
      ctx.label_column = spec.label_column;
      ctx.weight_column = spec.weight_column;
      if (spec.format == DataFormat::kLibSVM) {
        ParseLibSVM(ctx, chunks[i].begin, chunks[i].end, &blocks[i]);
      } else {
        ParseCsv(ctx, chunks[i].begin, chunks[i].end, &blocks[i]);
      }
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return blocks;
}

// Concatenates the blocks into *out (ids shifted down by `shift`); qids go to *qid.
void Concatenate(const std::vector<ParsedBlock>& blocks, uint32_t shift, int nthread, DataSet* out,
                 std::vector<uint64_t>* qid) {
  std::vector<uint64_t> row_off(blocks.size() + 1, 0), nnz_off(blocks.size() + 1, 0);
  bool has_weight = false;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    row_off[b + 1] = row_off[b] + blocks[b].NumRows();
    nnz_off[b + 1] = nnz_off[b] + blocks[b].index.size();
    has_weight |= blocks[b].has_weight;
  }
  out->row_ptr.assign(row_off.back() + 1, 0);
  out->index.reserve(nnz_off.back());
  out->value.reserve(nnz_off.back());
  AdviseHugePages(out->index.data(), nnz_off.back() * sizeof(uint32_t));
  AdviseHugePages(out->value.data(), nnz_off.back() * sizeof(float));
  out->index.resize(nnz_off.back());
  out->value.resize(nnz_off.back());
  out->label.resize(row_off.back());
  if (has_weight) out->weight.resize(row_off.back());
  qid->resize(row_off.back());
  const int n = static_cast<int>(blocks.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min(nthread, n)))
  for (int b = 0; b < n; ++b) {
    const ParsedBlock& block = blocks[b];
    for (std::size_t r = 0; r < block.NumRows(); ++r) {
      out->row_ptr[row_off[b] + r + 1] = nnz_off[b] + block.row_ptr[r + 1];
    }
    const uint32_t* index = block.index.data();
    uint32_t* out_index = out->index.data() + nnz_off[b];
    for (std::size_t k = 0; k < block.index.size(); ++k) out_index[k] = index[k] - shift;
    std::copy(block.value.data(), block.value.data() + block.value.size(),
              out->value.begin() + nnz_off[b]);
    std::copy(block.label.begin(), block.label.end(), out->label.begin() + row_off[b]);
    if (has_weight)
      std::copy(block.weight.begin(), block.weight.end(), out->weight.begin() + row_off[b]);
    std::copy(block.qid.begin(), block.qid.end(), qid->begin() + row_off[b]);
  }
}

// Where each file's rows landed in the concatenated data set.
std::vector<FileRows> RowsPerFile(const std::vector<Chunk>& chunks,
                                  const std::vector<ParsedBlock>& blocks, std::size_t num_files) {
  std::vector<FileRows> file_rows(num_files);
  uint64_t row = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    FileRows& fr = file_rows[chunks[c].file];
    if (fr.count == 0) fr.begin = row;
    fr.count += blocks[c].NumRows();
    fr.has_weight |= blocks[c].has_weight;
    if (fr.first_no_qid == nullptr) fr.first_no_qid = blocks[c].first_no_qid;
    row += blocks[c].NumRows();
  }
  return file_rows;
}

}  // namespace

DataSet LoadData(const std::string& uri, const LoadOptions& options) {
  if (options.num_parts < 1 || options.part < 0 || options.part >= options.num_parts) {
    RB_FAIL("data '" << uri << "': part " << options.part << " of " << options.num_parts
                     << " does not exist; need 0 <= part < num_parts");
  }
  UriSpec spec = ParseUri(uri);
  const std::string& shown = spec.files.size() == 1 ? spec.files[0] : uri;
  std::vector<InputFile> files = OpenFiles(spec);
  std::string first_line = FirstDataLine(files);
  if (first_line.empty()) RB_FAIL(shown << ": no data rows");
  ResolveFormat(first_line, &spec);
  for (auto& f : files) f.libsvm = spec.format == DataFormat::kLibSVM;
  int indexing_mode = spec.indexing_mode_given ? spec.indexing_mode : options.indexing_mode;
  int nthread = options.nthread > 0 ? options.nthread : omp_get_max_threads();

  std::vector<ByteRange> ranges = PartRanges(files, options.part, options.num_parts);
  std::vector<Chunk> chunks = MakeChunks(files, ranges, nthread);
  std::vector<ParsedBlock> blocks =
      ParseChunks(spec, files, chunks, indexing_mode, options, nthread);

  bool libsvm = spec.format == DataFormat::kLibSVM;
  bool any_zero = false, any_entry = false;
  uint32_t max_id = 0;
  for (const auto& b : blocks) {
    any_zero |= b.has_zero_id;
    if (!b.index.empty()) max_id = std::max(max_id, b.max_id), any_entry = true;
  }
  uint32_t shift = libsvm && (indexing_mode > 0 || (indexing_mode < 0 && !any_zero)) ? 1 : 0;
  DataSet data;
  data.name = uri;
  std::vector<uint64_t> qid;
  Concatenate(blocks, shift, nthread, &data, &qid);
  data.num_col = any_entry ? max_id + 1 - shift : 0;

  std::vector<FileRows> file_rows = RowsPerFile(chunks, blocks, files.size());
  blocks.clear();
  AttachWeightsAndGroups(files, ranges, file_rows, qid, &data);
  return data;
}

}  // namespace ringboost

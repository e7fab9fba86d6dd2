#include "data/weights_groups.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "data/parser.h"
#include "data/side_files.h"

namespace ringboost {
namespace {

// Data rows of `file` before and after its part range.
uint64_t RowsOutside(const InputFile& file, const ByteRange& range) {
  return CountFileDataRows(*file.map, file.rows_begin, range.begin) +
         CountFileDataRows(*file.map, range.end, file.map->end());
}

// Copies the part's rows of a per-row side file's `values` (named `side`, of kind `what`) into
// (*out)[rows.begin ...), after checking that the file has one value per data row of `file`.
// Returns the index in `values` of the part's first row.
uint64_t CopyPartRows(const InputFile& file, const ByteRange& range, const FileRows& rows,
                      const std::string& side, const char* what, const std::vector<float>& values,
                      std::vector<float>* out) {
  uint64_t before = CountFileDataRows(*file.map, file.rows_begin, range.begin);
  uint64_t total = before + rows.count + CountFileDataRows(*file.map, range.end, file.map->end());
  if (values.size() != total) {
    RB_FAIL("'" << side << "' has " << values.size() << " " << what << "s but '" << file.map->path()
                << "' has " << total << " data rows; give one " << what << " per data row");
  }
  std::copy(values.begin() + before, values.begin() + before + rows.count,
            out->begin() + rows.begin);
  return before;
}

void AttachSideWeights(const InputFile& file, const ByteRange& range, const FileRows& rows,
                       FloatReading how, DataSet* data) {
  if (rows.has_weight) {
    RB_FAIL(file.map->path()
            << ": weights are given both in the data (label:weight or weight_column) and by '"
            << file.side.weight << "'; keep one");
  }
  if (data->weight.empty()) data->weight.assign(data->NumRows(), 1.0f);
  CopyPartRows(file, range, rows, file.side.weight, "weight", ReadWeightFile(file.side.weight, how),
               &data->weight);
}

// survival:aft's bounds of the part's rows, lower <= upper checked row by row.
void AttachSideBounds(const InputFile& file, const ByteRange& range, const FileRows& rows,
                      FloatReading how, DataSet* data) {
  data->label_lower_bound.resize(data->NumRows());
  data->label_upper_bound.resize(data->NumRows());
  const std::vector<float> lower = ReadBoundFile(file.side.lower_bound, "lower bound", how);
  const std::vector<float> upper = ReadBoundFile(file.side.upper_bound, "upper bound", how);
  const uint64_t before = CopyPartRows(file, range, rows, file.side.lower_bound, "lower bound",
                                       lower, &data->label_lower_bound);
  CopyPartRows(file, range, rows, file.side.upper_bound, "upper bound", upper,
               &data->label_upper_bound);
  for (uint64_t i = before; i < before + rows.count; ++i) {
    if (lower[i] > upper[i]) {
      RB_FAIL("'" << file.map->path() << "': data row " << i + 1 << " has lower bound " << lower[i]
                  << " above its upper bound " << upper[i] << " ('" << file.side.lower_bound
                  << "', '" << file.side.upper_bound << "'); give lower <= upper");
    }
    if (!(upper[i] > 0.0f)) {
      RB_FAIL("'" << file.map->path() << "': data row " << i + 1 << " has upper bound 0 ('"
                  << file.side.upper_bound
                  << "'); a survival time's upper bound must be > 0 (inf: right-censored)");
    }
  }
}

// Every file of a data set has bounds or none.
void CheckBoundsEverywhere(const std::vector<InputFile>& files) {
  for (const InputFile& file : files) {
    if (file.side.lower_bound.empty() != files.front().side.lower_bound.empty()) {
      const InputFile& with = file.side.lower_bound.empty() ? files.front() : file;
      const InputFile& without = file.side.lower_bound.empty() ? file : files.front();
      RB_FAIL("'" << with.map->path() << "' has label bounds (.lower_bound, .upper_bound) but '"
                  << without.map->path()
                  << "' has none; give every file of the data set bounds or none");
    }
  }
}

// Appends the sizes of the .query/.group groups that start among the part's rows of `file`.
void SideGroups(const InputFile& file, const ByteRange& range, const FileRows& rows,
                std::vector<uint64_t>* sizes) {
  uint64_t total = rows.count + RowsOutside(file, range);
  uint64_t sum = 0;
  for (uint64_t s : file.group_sizes) {
    if (__builtin_add_overflow(sum, s, &sum)) {  // a wrapped sum could match the row count
      RB_FAIL("'" << file.side.group << "' has group sizes that add up to more than 2^64 rows; '"
                  << file.map->path() << "' has " << total
                  << " data rows and the group sizes must add up to that");
    }
  }
  if (sum != total) {
    RB_FAIL("'" << file.side.group << "' has groups of " << sum << " rows in all but '"
                << file.map->path() << "' has " << total
                << " data rows; the group sizes must add up to the row count");
  }
  uint64_t before = CountFileDataRows(*file.map, file.rows_begin, range.begin);
  uint64_t start = 0;
  for (uint64_t s : file.group_sizes) {
    if (start >= before && start < before + rows.count) {
      RB_CHECK_MSG(start + s <= before + rows.count, "a query group straddles two parts");
      sizes->push_back(s);
    }
    start += s;
  }
}

// Appends the sizes of the runs of equal qids among the rows [begin, end).
void QidGroups(const std::vector<uint64_t>& qid, uint64_t begin, uint64_t end,
               std::vector<uint64_t>* sizes) {
  uint64_t run = begin;
  for (uint64_t r = begin + 1; r <= end; ++r) {
    if (r == end || qid[r] != qid[run]) {
      sizes->push_back(r - run);
      run = r;
    }
  }
}

}  // namespace

void AttachWeightsAndGroups(const std::vector<InputFile>& files,
                            const std::vector<ByteRange>& ranges,
                            const std::vector<FileRows>& file_rows,
                            const std::vector<uint64_t>& qid, FloatReading how, DataSet* data) {
  if (!files.empty()) CheckBoundsEverywhere(files);
  std::vector<uint64_t> sizes;
  const InputFile* with_groups = nullptr;
  const InputFile* without_groups = nullptr;
  for (std::size_t j = 0; j < files.size(); ++j) {
    const InputFile& file = files[j];
    const FileRows& rows = file_rows[j];
    if (rows.count == 0) continue;
    if (!file.side.weight.empty()) AttachSideWeights(file, ranges[j], rows, how, data);
    if (!file.side.lower_bound.empty()) AttachSideBounds(file, ranges[j], rows, how, data);
    uint64_t end = rows.begin + rows.count;
    bool has_qid = !qid.empty() && std::any_of(qid.begin() + rows.begin, qid.begin() + end,
                                               [](uint64_t q) { return q != kNoQid; });
    if (!file.side.group.empty()) {
      if (has_qid) {
        RB_FAIL(file.map->path() << ": query groups are given both by qid: tokens and by '"
                                 << file.side.group << "'; keep one");
      }
      SideGroups(file, ranges[j], rows, &sizes);
    } else if (has_qid) {
      if (rows.first_no_qid != nullptr) {
        FailAt(file.map->path(), file.map->begin(), rows.first_no_qid,
               "this row has no qid: but other rows of the file have one; give every row a qid "
               "or none");
      }
      QidGroups(qid, rows.begin, end, &sizes);
    }
    (file.side.group.empty() && !has_qid ? without_groups : with_groups) = &file;
  }
  if (with_groups != nullptr && without_groups != nullptr) {
    RB_FAIL("'" << with_groups->map->path() << "' has query groups but '"
                << without_groups->map->path()
                << "' has none; give every file of the data set groups or none");
  }
  if (with_groups == nullptr) return;
  RB_CHECK(data->NumRows() < (uint64_t{1} << 32));
  data->group_ptr.assign(1, 0);
  for (uint64_t s : sizes)
    data->group_ptr.push_back(data->group_ptr.back() + static_cast<uint32_t>(s));
}

}  // namespace ringboost

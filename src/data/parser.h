// The chunk parsers: each turns a line-aligned byte range of one mapped file into a ParsedBlock
// (a CSR piece plus per-row labels, weights and qids). Chunks are parsed in parallel and the
// blocks concatenated in order (load.cc). A parser stops at the first malformed token and throws
// Error "file:line:column: what is wrong" (column of the token start).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "data/text_input.h"

namespace ringboost {

constexpr uint64_t kNoQid = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kMaxFeatureId = (uint64_t{1} << 31) - 1;  // ids must be < 2^31

// Storage for a block's entries, allocated once for the most entries its chunk can hold (a
// LibSVM entry takes at least 4 bytes of text, a CSV value 2) and never zero-filled: the hot loop
// writes through a plain pointer, with no capacity check and no reallocation.
template <typename T>
class EntryBuffer {
 public:
  void Allocate(std::size_t capacity) {
    data_.reset(new T[capacity]);
    AdviseHugePages(data_.get(), capacity * sizeof(T));
    capacity_ = capacity;
    size_ = 0;
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  void set_size(std::size_t n) { size_ = n; }
  void push_back(T v) { data_[size_++] = v; }
  T& operator[](std::size_t i) { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

struct ParsedBlock {
  std::vector<uint64_t> row_ptr{0};  // local offsets
  EntryBuffer<uint32_t> index;       // feature ids as written (before 1-based shifting)
  EntryBuffer<float> value;
  std::vector<float> label;
  std::vector<float> weight;           // one per row; 1 where the row gave none
  std::vector<uint64_t> qid;           // one per row; kNoQid where the row gave none
  bool has_weight = false;             // some row gave `label:weight` (or a weight column)
  bool has_zero_id = false;            // some feature id was written as 0
  uint32_t max_id = 0;                 // largest id written (valid when index is not empty)
  const char* first_no_qid = nullptr;  // line start of the first row without qid: (LibSVM)
  uint64_t NumRows() const { return label.size(); }
};

struct ParseContext {
  const MappedFile* file = nullptr;
  int indexing_mode = 0;                                           // 1: an id 0 is an error
  const std::function<const char*(float)>* check_label = nullptr;  // may be null or empty
  // CSV only
  char delimiter = ',';
  int label_column = -1;
  int weight_column = -1;
};

// Parses the LibSVM lines starting in [begin, end) (begin a line start) into *out.
void ParseLibSVM(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out);
// Parses the CSV/TSV lines starting in [begin, end) into *out.
void ParseCsv(const ParseContext& ctx, const char* begin, const char* end, ParsedBlock* out);

// Shared number rules. Parses all of [begin, end) as a float (a leading '+' allowed, as in
// LibSVM's "+1"); false when it is not exactly one number.
bool ParseFloatToken(const char* begin, const char* end, float* out);
// Reports a label (at p) the options reject or that is not finite.
void CheckLabel(const ParseContext& ctx, const char* tok, const char* tok_end, float label);

}  // namespace ringboost

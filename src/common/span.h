// A non-owning view of a contiguous array (std::span arrives with C++20).
#pragma once

#include <cstddef>
#include <vector>

namespace ringboost {

template <typename T>
class Span {
 public:
  using value_type = T;
  Span() = default;
  Span(T* data, std::size_t size) : data_(data), size_(size) {}
  template <typename U>
  Span(std::vector<U>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <typename U>
  Span(const std::vector<U>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t size_bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  Span subspan(std::size_t offset, std::size_t count) const { return Span(data_ + offset, count); }

 private:
  T* data_{nullptr};
  std::size_t size_{0};
};

}  // namespace ringboost

// A set of node indices in [0, capacity) as a two-level bitset: O(1) insert
// and erase without allocation, ascending iteration that skips empty
// 4096-node blocks. Used for the cluster state's per-bucket node indices.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace utilsim {

class NodeSet {
 public:
  static constexpr uint32_t kEnd = UINT32_MAX;

  explicit NodeSet(size_t capacity = 0) { Resize(capacity); }
  void Resize(size_t capacity) {
    words_.assign((capacity + 63) / 64, 0);
    summary_.assign((words_.size() + 63) / 64, 0);
    size_ = 0;
  }

  void insert(uint32_t n) {
    uint64_t& w = words_[n >> 6];
    const uint64_t bit = uint64_t{1} << (n & 63);
    if (w & bit) return;
    w |= bit;
    summary_[n >> 12] |= uint64_t{1} << ((n >> 6) & 63);
    ++size_;
  }
  void erase(uint32_t n) {
    uint64_t& w = words_[n >> 6];
    const uint64_t bit = uint64_t{1} << (n & 63);
    if (!(w & bit)) return;
    w &= ~bit;
    if (w == 0) summary_[n >> 12] &= ~(uint64_t{1} << ((n >> 6) & 63));
    --size_;
  }
  size_t count(uint32_t n) const {
    return (n >> 6) < words_.size() && (words_[n >> 6] >> (n & 63) & 1);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Smallest member >= from, or kEnd.
  uint32_t Next(uint32_t from) const {
    size_t wi = from >> 6;
    if (wi >= words_.size()) return kEnd;
    uint64_t w = words_[wi] & (~uint64_t{0} << (from & 63));
    if (w) return static_cast<uint32_t>(wi * 64 + std::countr_zero(w));
    // Next non-empty word through the summary.
    size_t si = (wi + 1) >> 6;
    if (si >= summary_.size()) return kEnd;
    uint64_t s = ((wi + 1) & 63) ? summary_[si] & (~uint64_t{0} << ((wi + 1) & 63)) : summary_[si];
    while (!s) {
      if (++si >= summary_.size()) return kEnd;
      s = summary_[si];
    }
    wi = si * 64 + std::countr_zero(s);
    return static_cast<uint32_t>(wi * 64 + std::countr_zero(words_[wi]));
  }

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = uint32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const uint32_t*;
    using reference = uint32_t;
    iterator(const NodeSet* s, uint32_t v) : s_(s), v_(v) {}
    uint32_t operator*() const { return v_; }
    iterator& operator++() {
      v_ = v_ == kEnd - 1 ? kEnd : s_->Next(v_ + 1);
      return *this;
    }
    bool operator==(const iterator& o) const { return v_ == o.v_; }

   private:
    const NodeSet* s_;
    uint32_t v_;
  };
  iterator begin() const { return iterator(this, Next(0)); }
  iterator end() const { return iterator(this, kEnd); }

 private:
  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;  // bit i of summary_[k]: words_[k*64+i] != 0
  size_t size_ = 0;
};

}  // namespace utilsim

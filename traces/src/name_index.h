// Open-addressing index from names to dense indices, for duplicate checks on
// millions of rows without a heap node per name. Names themselves stay with
// the caller, who resolves an index back to its name.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace utilsim::traces::internal {

class NameIndex {
 public:
  // Returns the index already stored under `name`, or stores `index` and
  // returns -1. `name_of(i)` must give the name stored with index i.
  template <typename NameOf>
  int64_t FindOrInsert(std::string_view name, uint32_t index, const NameOf& name_of) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const uint64_t h = std::hash<std::string_view>()(name);
    const auto tag = static_cast<uint32_t>(h ^ (h >> 32));
    const size_t mask = slots_.size() - 1;
    for (size_t s = tag & mask;; s = (s + 1) & mask) {
      Slot& slot = slots_[s];
      if (slot.index == kEmpty) {
        slot = {index, tag};
        ++size_;
        return -1;
      }
      if (slot.tag == tag && name_of(slot.index) == name) return slot.index;
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint32_t index = kEmpty;
    uint32_t tag = 0;  // folded hash: picks the home slot and filters compares
  };

  // Doubles the table (up to 2^32 slots), re-placing entries by their tags.
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& o : old) {
      if (o.index == kEmpty) continue;
      for (size_t s = o.tag & mask;; s = (s + 1) & mask) {
        if (slots_[s].index == kEmpty) {
          slots_[s] = o;
          break;
        }
      }
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace utilsim::traces::internal

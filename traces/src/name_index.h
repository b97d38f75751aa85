// Open-addressing index from names to dense indices, for duplicate checks on
// millions of rows without a heap node per name. Names themselves stay with
// the caller, who resolves an index back to its name.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "utilsim/engine/huge_pages.h"

namespace utilsim::traces::internal {

class NameIndex {
 public:
  // Returns the index already stored under `name`, or stores `index` and
  // returns -1. `name_of(i)` must give the name stored with index i.
  template <typename NameOf>
  int64_t FindOrInsert(std::string_view name, uint32_t index, const NameOf& name_of) {
    return FindOrInsert(name, Hash(name), index, name_of);
  }

  // As above, with `hash` = Hash(name) computed earlier (see Prefetch).
  template <typename NameOf>
  int64_t FindOrInsert(std::string_view name, uint64_t hash, uint32_t index,
                       const NameOf& name_of) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const auto tag = Tag(hash);
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

  static uint64_t Hash(std::string_view name) { return std::hash<std::string_view>()(name); }

  // Asks the CPU to load the home slot of the name with `hash` (a hint, no
  // effect on results), so that a FindOrInsert some work later finds it in
  // cache: with millions of names the table is larger than the caches.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Tag(hash) & (slots_.size() - 1)]);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint32_t index = kEmpty;
    uint32_t tag = 0;  // folded hash: picks the home slot and filters compares
  };

  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash ^ (hash >> 32)); }

  // Doubles the table (up to 2^32 slots), re-placing entries by their tags.
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    // In huge pages where large (huge_pages.h): fewer page faults.
    AssignHuge(slots_, old.empty() ? 1024 : old.size() * 2, Slot{});
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

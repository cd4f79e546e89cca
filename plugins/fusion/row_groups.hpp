// Rows grouped under an owner row (the children of a node), stored flat: two int arrays
// instead of one vector per row, which matters on traces of millions of events.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace traceprism::fusion {

class RowGroups {
 public:
  // Rows 0..rows-1 grouped under owner_of(row) (negative: under none), in row order within an
  // owner. Two passes over the rows instead of a list of (owner, member) pairs.
  template <class OwnerOf>
  static RowGroups by_owner(std::size_t rows, OwnerOf owner_of) {
    RowGroups g;
    g.offsets_.assign(rows + 1, 0);
    for (std::size_t r = 0; r < rows; ++r)
      if (const std::int32_t o = owner_of(r); o >= 0) ++g.offsets_[static_cast<std::size_t>(o) + 1];
    for (std::size_t i = 1; i < g.offsets_.size(); ++i) g.offsets_[i] += g.offsets_[i - 1];
    g.members_.resize(g.offsets_.back());
    std::vector<std::uint32_t> next(g.offsets_.begin(), g.offsets_.end() - 1);
    for (std::size_t r = 0; r < rows; ++r)
      if (const std::int32_t o = owner_of(r); o >= 0)
        g.members_[next[static_cast<std::size_t>(o)]++] = static_cast<std::int32_t>(r);
    return g;
  }

  // Reorders the members of every owner by `less`.
  template <class Less>
  void sort_each(Less less) {
    for (std::size_t owner = 0; owner + 1 < offsets_.size(); ++owner)
      std::sort(members_.begin() + offsets_[owner], members_.begin() + offsets_[owner + 1], less);
  }

  struct Range {
    const std::int32_t* first;
    const std::int32_t* last;
    const std::int32_t* begin() const { return first; }
    const std::int32_t* end() const { return last; }
    bool empty() const { return first == last; }
  };
  Range of(std::size_t owner) const {
    return {members_.data() + offsets_[owner], members_.data() + offsets_[owner + 1]};
  }

 private:
  std::vector<std::uint32_t> offsets_;
  std::vector<std::int32_t> members_;
};

}  // namespace traceprism::fusion

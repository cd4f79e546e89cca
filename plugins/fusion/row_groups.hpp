// Rows grouped under an owner row (children of a node, GPU events of a launch), stored flat:
// two int arrays instead of one vector per row, which matters on traces of millions of events.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace traceprism::fusion {

class RowGroups {
 public:
  RowGroups() = default;
  // `pairs` are (owner, member); members keep their order in `pairs` within an owner.
  RowGroups(std::size_t owners, const std::vector<std::pair<std::int32_t, std::int32_t>>& pairs)
      : offsets_(owners + 1, 0), members_(pairs.size()) {
    for (const auto& [owner, member] : pairs) ++offsets_[static_cast<std::size_t>(owner) + 1];
    for (std::size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
    std::vector<std::uint32_t> next(offsets_.begin(), offsets_.end() - 1);
    for (const auto& [owner, member] : pairs)
      members_[next[static_cast<std::size_t>(owner)]++] = member;
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

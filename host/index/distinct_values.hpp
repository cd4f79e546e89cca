#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace traceprism::index {

// Values that repeat many times, each kept once and referred to by a 4-byte number (in first
// appearance). The look-up used while adding can be dropped once the table is read-only.
template <class T, class Hash = std::hash<T>>
class DistinctValues {
 public:
  std::uint32_t intern(const T& value) {
    auto [it, inserted] = ids_.try_emplace(value, static_cast<std::uint32_t>(values_.size()));
    if (inserted) values_.push_back(value);
    return it->second;
  }
  const T& operator[](std::uint32_t id) const { return values_[id]; }
  const std::vector<T>& values() const { return values_; }
  void seal() { std::unordered_map<T, std::uint32_t, Hash>().swap(ids_); }

 private:
  std::vector<T> values_;
  std::unordered_map<T, std::uint32_t, Hash> ids_;
};

}  // namespace traceprism::index

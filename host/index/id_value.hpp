#pragma once

#include <cstdint>
#include <string>
#include "index/distinct_values.hpp"
#include "index/string_pool.hpp"

namespace traceprism::index {

// A pid or tid as written in the trace: usually an integer, sometimes a string ("Spans",
// "Traces", "" in real traces). Values of different types never compare equal.
struct IdValue {
  bool is_string = false;
  std::int64_t number = 0;
  StringId text = kNoString;

  friend bool operator==(const IdValue&, const IdValue&) = default;
};

using IdRef = std::uint32_t;  // index into IdTable

// Deduplicated pid/tid values; event columns hold IdRefs (4 bytes instead of a variant).
class IdTable {
 public:
  IdRef intern(const IdValue& value) { return values_.intern(value); }
  const IdValue& value(IdRef ref) const { return values_[ref]; }
  std::size_t size() const { return values_.values().size(); }
  std::string to_string(IdRef ref, const StringPool& strings) const;

 private:
  struct Hash {
    std::size_t operator()(const IdValue& v) const {
      return std::hash<std::int64_t>()(v.number) * 31 + v.text * 7 + v.is_string;
    }
  };
  DistinctValues<IdValue, Hash> values_;
};

}  // namespace traceprism::index

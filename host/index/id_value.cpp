#include "index/id_value.hpp"

namespace traceprism::index {

IdRef IdTable::intern(const IdValue& value) {
  auto [it, inserted] = refs_.try_emplace(value, static_cast<IdRef>(values_.size()));
  if (inserted) values_.push_back(value);
  return it->second;
}

std::string IdTable::to_string(IdRef ref, const StringPool& strings) const {
  const IdValue& v = values_[ref];
  return v.is_string ? std::string(strings.view(v.text)) : std::to_string(v.number);
}

}  // namespace traceprism::index

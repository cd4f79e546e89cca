#include "index/id_value.hpp"

namespace traceprism::index {

std::string IdTable::to_string(IdRef ref, const StringPool& strings) const {
  const IdValue& v = values_[ref];
  return v.is_string ? std::string(strings.view(v.text)) : std::to_string(v.number);
}

}  // namespace traceprism::index

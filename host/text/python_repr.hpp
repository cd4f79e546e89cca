#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <traceprism/python_text.hpp>

#include "index/string_pool.hpp"

namespace traceprism::text {

// Python's str() of values the reference builds from trace args, which it writes into the perf
// sheets and groups on (trace-format spec §8.4, §18). Input is the canonical compact JSON text
// the reader keeps for `Input Dims`, `Input type`, `Input Strides` and `Concrete Inputs`; an
// empty text means "absent" and prints as None.

// str() after the reference's list_to_tuple(): every JSON list becomes a tuple, recursively
// (lists inside JSON objects stay lists, as list_to_tuple does not enter dicts).
//   [[512],[141,512],[],[]]        -> ((512,), (141, 512), (), ())
//   ["c10::BFloat16","Scalar"]     -> ('c10::BFloat16', 'Scalar')
std::string python_tuple_repr(std::string_view canonical_json);

// str() of the raw parsed value (lists stay lists): [[512],[141,512],[],[]] ->
// [[512], [141, 512], [], []]. The perf-model sheets print `Input Dims_first` this way.
std::string python_list_repr(std::string_view canonical_json);

// repr() of a Python str: single quotes, or double quotes when the text holds a single quote
// and no double quote; backslash, the quote and control characters escaped as CPython does.
inline std::string python_string_repr(std::string_view text) {
  return py::str_repr(text);
}

// repr() of a list of strings, e.g. the ops_summary `Categories` cell: ['GEMM', 'other'].
std::string python_string_list_repr(const std::vector<std::string_view>& items);

// Texts the report derives from a trace (Python reprs of shape args, op categories) repeat
// across millions of rows; rows keep views of one interned copy instead of copies. Interned
// texts live until the process ends (a few thousand distinct ones per trace) and equal texts
// share one address, so a grouping key may hold the view's data pointer. Thread-safe.
std::string_view intern_report_text(std::string_view text);

// The Python str() forms of interned shape-arg texts (the reader's StringIds), each rendered
// once per distinct id: a shape text repeats for every op with those shapes.
class ArgReprCache {
 public:
  explicit ArgReprCache(const index::StringPool& strings) : strings_(strings) {}
  // python_tuple_repr, "None" for kNoString; interned (see intern_report_text).
  std::string_view tuple_repr(index::StringId id);
  // python_list_repr, "" for kNoString; interned.
  std::string_view list_repr(index::StringId id);

 private:
  const index::StringPool& strings_;
  std::unordered_map<index::StringId, std::string_view> tuples_, lists_;
};

}  // namespace traceprism::text

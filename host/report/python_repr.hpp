#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace traceprism::report {

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
std::string python_string_repr(std::string_view text);

// repr() of a list of strings, e.g. the ops_summary `Categories` cell: ['GEMM', 'other'].
std::string python_string_list_repr(const std::vector<std::string>& items);

}  // namespace traceprism::report

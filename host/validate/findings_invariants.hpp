#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

namespace traceprism::validate {

// The numeric invariants of a findings.json (diagnosis.md §1.2, §8), one sentence per broken
// one: the GPU time split is a partition of the window; idle_by_cause sums to idle_us, is
// sorted and uses the idle causes; every cause is from the vocabulary; `first` names an existing
// finding with its cause; impacts are ordered bounds inside 0..100 % and shares stay <= 100 %.
std::vector<std::string> findings_invariant_problems(const boost::json::object& root);

}  // namespace traceprism::validate

#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "findings/finding.hpp"

namespace traceprism::findings {

// diagnosis.md §1.5 (one problem, one finding) across analyzers: each kernel µs that two
// findings claim (Finding::kernels, ABI 1.7) is counted by the more specific one only.
//
// Specificity follows the finding's cause: a layout transform, then recompute, then fusion,
// then precision, then everything else (roofline and unmodelled compute items); within one
// level the larger ranking impact claims first. A later finding keeps the part of its kernel
// time no earlier one claims: its impacts and share shrink in proportion, and it records where
// the rest is reported (Finding::elsewhere). A finding left with under kFoldBelowShare of its
// kernel time repeats another and is folded into the one holding most of it
// (Finding::folded_into), which takes its severity if higher. Findings without kernels are
// untouched.
inline constexpr double kFoldBelowShare = 0.05;

// `dur_ns`: the event index's duration column (kernel rows index into it).
void give_each_kernel_to_one_finding(const std::vector<Finding*>& findings,
                                     std::span<const std::int64_t> dur_ns);

// After ranking: the sentences that point from a finding to the ones holding its shared
// time ("see fusion P1") and from an owner to the findings folded into it.
void describe_shared_kernels(const std::vector<Finding*>& ranked, std::vector<Finding>& folded);

}  // namespace traceprism::findings

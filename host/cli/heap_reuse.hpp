// Keeping freed heap memory for reuse instead of handing it back to the kernel at once.
//
// glibc serves an allocation above a threshold (dynamic, at most 32 MiB) with its own mmap and
// unmaps it on free, and trims the heap's free top. An analysis frees and allocates hundreds of
// MB of columns and tables, so each new one touched fresh pages, which the kernel zeroes first:
// the 1.1 GB serving trace's merge touched 2.2 GB in the main process for a peak of 1.47 GB
// (`perf record -e page-faults`), and on the benchmark VM a first touch costs about 0.3 s per
// GB. Served from the heap and never trimmed on free, freed memory is reused instead
// (docs/performance.md has the measurement). The explicit malloc_trim after the perf report
// still hands back what is free before the analyzers' workers fork.
#pragma once

namespace traceprism::cli {

// Whether to change glibc's malloc settings: not when the user's GLIBC_TUNABLES (null when
// unset) already chooses the mmap threshold or limit or the trim threshold.
bool should_keep_freed_memory(const char* tunables);

// Sets malloc's mmap limit to 0 and its trim threshold to the largest value, unless
// should_keep_freed_memory(getenv("GLIBC_TUNABLES")) says no; does nothing off glibc.
void keep_freed_memory_for_reuse();

}  // namespace traceprism::cli

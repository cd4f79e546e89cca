// Starting traceprism again with malloc's memory in transparent huge pages, when asked.
//
// glibc (>= 2.35) backs malloc's memory with 2 MiB pages when the tunable glibc.malloc.hugetlb=1
// is set, but reads tunables only when a process starts. So main() first calls
// restart_with_huge_page_malloc(), which execs the same binary once more with the tunable added
// when TRACEPRISM_HUGE_PAGES=1. It was the default until measurements on the benchmark VM showed
// it a loss: there the first touch of a fresh 2 MiB page costs 1-2.5 s per GB (the hypervisor
// backs memory the guest had given back), against 0.3 s per GB for 4 KiB pages: with it, the
// 1.1 GB serving merge was 1.2-1.6 s slower and `inspect` of a plain 1.1 GB JSON 0.5 s slower
// (docs/performance.md, "Fresh pages"). Where huge pages come cheap (bare metal) it may still
// pay, hence the option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace traceprism::cli {

// The GLIBC_TUNABLES value to restart with, or nullopt to carry on as we are: unless the user
// opted in (`opt_in` is TRACEPRISM_HUGE_PAGES, null when unset; "1" asks), when the tunable is
// already there (set by the user or by the restart), the kernel's THP mode is not "madvise"
// ("always" already gives malloc huge pages, "never" gives none), or glibc is older than 2.35.
// `tunables` is null when GLIBC_TUNABLES is unset.
std::optional<std::string> huge_page_tunables(const char* opt_in, const char* tunables,
                                              std::string_view thp_mode,
                                              std::string_view glibc_version);

// Inputs smaller than this gain less from huge pages than the restart costs (about 13 ms):
// measured on a 0.1 MB .json.gz (0.105 s with the restart, 0.092 s without) and a 3 MB one
// (0.40 s with, 0.48 s without), docs/performance.md.
inline constexpr std::uintmax_t kHugePageMinInputBytes = 1 << 20;

// Whether a command line reads a large input: an argument that names a regular file of at
// least kHugePageMinInputBytes or `-` (standard input, of unknown size). Folders do not count
// (an existing output folder would make every run restart), nor options and values that are
// not such files, so a run on small traces (or `--help`) starts at once.
bool reads_large_input(int argc, char** argv);

// Execs /proc/self/exe with the tunable when huge_page_tunables() says so and the command line
// reads a large input; returns (and runs with small pages) when there is nothing to do or the
// exec fails.
void restart_with_huge_page_malloc(int argc, char** argv);

}  // namespace traceprism::cli

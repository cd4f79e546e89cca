// The read stage (inflate, parse, index) with the one-thread reader and the parallel reader.
// Usage: parallel_read_bench FILE [RUNS=3] [THREADS...=2]
// Reads FILE RUNS times with each thread count (1 first), interleaved, and prints the median
// wall time, the user+system CPU time, and the index's size; exits 1 when a thread count gives
// another index size or string count than one thread, or falls back to one thread.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ingest/trace_reader.hpp"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [RUNS=3] [THREADS...=2]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::vector<unsigned> threads = {1};
  for (int i = 3; i < argc; ++i) threads.push_back(static_cast<unsigned>(std::atoi(argv[i])));
  if (threads.size() == 1) threads.push_back(2);

  std::vector<std::vector<double>> wall(threads.size()), cpu(threads.size());
  std::vector<std::size_t> rows(threads.size()), strings(threads.size());
  std::vector<unsigned> used(threads.size());
  for (int run = 0; run < runs; ++run) {
    for (std::size_t t = 0; t < threads.size(); ++t) {
      traceprism::ingest::ReadOptions options;
      options.threads = threads[t];
      options.parallel_min_bytes = 0;
      const double cpu_start = cpu_seconds();
      const auto start = std::chrono::steady_clock::now();
      const auto file = traceprism::ingest::read_trace(path, options);
      wall[t].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      cpu[t].push_back(cpu_seconds() - cpu_start);
      rows[t] = file.index.size();
      strings[t] = file.index.strings().size();
      used[t] = file.parse_threads;
    }
  }
  bool same = true;
  for (std::size_t t = 0; t < threads.size(); ++t) {
    std::printf("threads %u: wall %.2f s, cpu %.2f s (medians of %d), %zu rows, %zu strings%s\n",
                threads[t], median(wall[t]), median(cpu[t]), runs, rows[t], strings[t],
                used[t] == threads[t] ? "" : " (fell back to one thread)");
    same = same && rows[t] == rows[0] && strings[t] == strings[0] && used[t] == threads[t];
  }
  return same ? 0 : 1;
}

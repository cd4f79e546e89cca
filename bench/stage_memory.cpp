// Prints resident memory after each stage of `inspect` (read, call tree, links, timeline), to
// see where the memory of a large trace goes. Build with -DTRACEPRISM_BUILD_BENCH=ON; run:
//   build/bench/stage_memory out/bench/synth_1100mb_l24_s1.json.gz
#include <fstream>
#include <iostream>
#include <string>

#include "ingest/trace_reader.hpp"
#include "model/call_tree.hpp"
#include "model/gpu_timeline.hpp"
#include "model/launch_links.hpp"

namespace {

// Current and peak resident set size from /proc/self/status, in MB.
void report(const char* stage) {
  std::ifstream status("/proc/self/status");
  std::string line;
  long rss_kb = 0, peak_kb = 0;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss_kb = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) peak_kb = std::stol(line.substr(6));
  }
  std::cout << stage << ": resident " << rss_kb / 1000 << " MB, peak so far " << peak_kb / 1000
            << " MB\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: stage_memory TRACE\n";
    return 64;
  }
  auto file = traceprism::ingest::read_trace(argv[1]);
  report("after read");
  auto tree = traceprism::model::CallTree::build(file.index);
  report("after call tree");
  auto links = traceprism::model::LaunchLinks::build(file.index);
  report("after links");
  auto timeline = traceprism::model::compute_gpu_timeline(file.index, links);
  report("after timeline");
  std::cout << file.index.size() << " events, " << timeline.events << " GPU events\n";
  return 0;
}

#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace traceprism::synth {

// Where the ranks of a synthetic job meet (multi-rank.md §11): every rank runs its own
// generator on its own thread, and at its k-th collective calls arrive(). A collective ends on
// every member once the last one has arrived plus the transfer time, so the ranks' timelines
// are coupled exactly as a real job's are, whatever the threads' scheduling: the result depends
// only on the arrival times. Also the truth the synth_truth.json file reports.
class Rendezvous {
 public:
  explicit Rendezvous(int world) : world_(world) {}

  // Blocks until every rank has arrived at collective `instance`; returns its end:
  // max start + the largest transfer any rank passed.
  // Throws std::runtime_error once abort() was called (a rank failed: nobody would arrive).
  std::int64_t arrive(int rank, std::uint64_t instance, std::int64_t start_ns,
                      std::int64_t transfer_ns);
  // This rank's own end of the collective and whether its file shows it.
  void record(int rank, std::uint64_t instance, std::int64_t end_ns, std::int64_t correlation,
              bool written);
  // Whether the job writes step `step`: true when any rank wants it (--target-mb is per file,
  // and files grow at slightly different rates), so that every rank runs the same collectives.
  // Blocks until every rank has voted.
  bool another_step(int step, bool wanted);
  void abort();

  struct Instance {
    std::vector<std::int64_t> starts, ends, correlations;
    std::vector<bool> written;
    std::int64_t end = 0;
    std::int64_t transfer = 0;
    int arrived = 0;
  };
  // Read once every rank's thread has finished.
  const std::vector<Instance>& instances() const { return instances_; }
  int world() const { return world_; }

 private:
  Instance& slot(std::uint64_t instance);

  const int world_;
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  std::vector<Instance> instances_;
  struct Vote {
    int voted = 0;
    bool wanted = false;
  };
  std::vector<Vote> votes_;
  bool aborted_ = false;
};

}  // namespace traceprism::synth

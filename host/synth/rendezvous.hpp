#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace traceprism::synth {

// Where the ranks of a synthetic job meet (multi-rank.md §11): every rank runs its own
// generator on its own thread, and at each collective calls arrive() for the instance of the
// process group it runs on. An instance ends on every member once the last member has arrived
// plus the transfer time, so the ranks' timelines are coupled exactly as a real job's are,
// whatever the threads' scheduling: the result depends only on the arrival times. Also the
// truth the synth_truth.json file reports.
class Rendezvous {
 public:
  // `groups`: the members of each process group (ascending ranks), indexed by group id.
  Rendezvous(int world, std::vector<std::vector<int>> groups);

  // Blocks until every member of `group` has arrived at its collective `instance` (the group's
  // k-th, from 0); returns its end: max start + the largest transfer any member passed.
  // `position`: the rank's count of collectives before this one (the same on every member),
  // which orders the truth file; `kind`: its normalised kind for the truth file ("allreduce",
  // "allgather", "reducescatter"; a literal). Throws std::runtime_error once abort() was called
  // (a rank failed: nobody would arrive).
  std::int64_t arrive(int rank, int group, std::uint64_t instance, std::uint64_t position,
                      std::int64_t start_ns, std::int64_t transfer_ns,
                      std::string_view kind = "allreduce");
  // This rank's own end of the collective and whether its file shows it.
  void record(int rank, int group, std::uint64_t instance, std::int64_t end_ns,
              std::int64_t correlation, bool written);
  // The part of its own window in which no computation kernel ran, per mille (§7.1's x_r).
  void record_exposure(int rank, int group, std::uint64_t instance, std::int64_t permille);
  // Whether the job writes step `step`: true when any rank wants it (--target-mb is per file,
  // and files grow at slightly different rates), so that every rank runs the same collectives.
  // Blocks until every rank has voted.
  bool another_step(int step, bool wanted);
  void abort();

  // One collective of one group; the per-member lists follow members(group).
  struct Instance {
    int group = 0;
    std::uint64_t seq = 0;       // the group's sequence number (instance + 1)
    std::uint64_t position = 0;  // the members' count of collectives before it
    std::string_view kind = "allreduce";
    std::vector<std::int64_t> starts, ends, correlations, exposures_permille;
    std::vector<bool> written;
    std::int64_t end = 0;
    std::int64_t transfer = 0;
    int arrived = 0;
  };
  // Every instance of every group, by position and then group id (the order in which each
  // rank met them). Read once every rank's thread has finished.
  std::vector<const Instance*> instances() const;
  const std::vector<int>& members(int group) const {
    return groups_[static_cast<std::size_t>(group)];
  }
  int world() const { return world_; }

 private:
  Instance& slot(int group, std::uint64_t instance);
  std::size_t member(int group, int rank) const;

  const int world_;
  const std::vector<std::vector<int>> groups_;
  std::vector<std::vector<int>> member_index_;  // [group][rank]: position in the group, or -1
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  std::vector<std::vector<Instance>> instances_;  // per group
  struct Vote {
    int voted = 0;
    bool wanted = false;
  };
  std::vector<Vote> votes_;
  bool aborted_ = false;
};

}  // namespace traceprism::synth

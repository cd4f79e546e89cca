#include "synth/rendezvous.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace traceprism::synth {

Rendezvous::Rendezvous(int world, std::vector<std::vector<int>> groups)
    : world_(world), groups_(std::move(groups)), instances_(groups_.size()) {
  member_index_.resize(groups_.size());
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    member_index_[g].assign(static_cast<std::size_t>(world_), -1);
    for (std::size_t i = 0; i < groups_[g].size(); ++i)
      member_index_[g][static_cast<std::size_t>(groups_[g][i])] = static_cast<int>(i);
  }
}

std::size_t Rendezvous::member(int group, int rank) const {
  const int i = member_index_[static_cast<std::size_t>(group)][static_cast<std::size_t>(rank)];
  if (i < 0)
    throw std::logic_error("rank " + std::to_string(rank) + " is not in process group " +
                           std::to_string(group));
  return static_cast<std::size_t>(i);
}

Rendezvous::Instance& Rendezvous::slot(int group, std::uint64_t instance) {
  std::vector<Instance>& list = instances_[static_cast<std::size_t>(group)];
  while (list.size() <= instance) {
    Instance fresh;
    const std::size_t n = groups_[static_cast<std::size_t>(group)].size();
    fresh.group = group;
    fresh.seq = list.size() + 1;
    fresh.starts.assign(n, 0);
    fresh.ends.assign(n, 0);
    fresh.correlations.assign(n, 0);
    fresh.exposures_permille.assign(n, 0);
    fresh.written.assign(n, false);
    list.push_back(std::move(fresh));
  }
  return list[instance];
}

std::int64_t Rendezvous::arrive(int rank, int group, std::uint64_t instance, std::uint64_t position,
                                std::int64_t start_ns, std::int64_t transfer_ns,
                                std::string_view kind) {
  const std::size_t i = member(group, rank);
  const int size = static_cast<int>(groups_[static_cast<std::size_t>(group)].size());
  std::unique_lock lock(mutex_);
  if (aborted_) throw std::runtime_error("another rank of the synthetic job failed");
  Instance& c = slot(group, instance);
  c.starts[i] = start_ns;
  c.position = position;
  c.kind = kind;
  // The ranks' transfer times differ by their own jitter; the largest is the ring's, whatever
  // order the threads arrive in.
  c.transfer = std::max(c.transfer, transfer_ns);
  if (++c.arrived == size) {
    c.end = *std::max_element(c.starts.begin(), c.starts.end()) + c.transfer;
    all_arrived_.notify_all();
  }
  // instances_ may grow (and move) while this thread waits: look the instance up again.
  const auto done = [&] {
    return aborted_ || instances_[static_cast<std::size_t>(group)][instance].arrived == size;
  };
  all_arrived_.wait(lock, done);
  if (aborted_) throw std::runtime_error("another rank of the synthetic job failed");
  return instances_[static_cast<std::size_t>(group)][instance].end;
}

void Rendezvous::record(int rank, int group, std::uint64_t instance, std::int64_t end_ns,
                        std::int64_t correlation, bool written) {
  const std::size_t i = member(group, rank);
  std::lock_guard lock(mutex_);
  Instance& c = slot(group, instance);
  c.ends[i] = end_ns;
  c.correlations[i] = correlation;
  c.written[i] = written;
}

void Rendezvous::record_exposure(int rank, int group, std::uint64_t instance,
                                 std::int64_t permille) {
  const std::size_t i = member(group, rank);
  std::lock_guard lock(mutex_);
  slot(group, instance).exposures_permille[i] = permille;
}

std::vector<const Rendezvous::Instance*> Rendezvous::instances() const {
  std::vector<const Instance*> out;
  for (const std::vector<Instance>& list : instances_)
    for (const Instance& c : list) out.push_back(&c);
  std::sort(out.begin(), out.end(), [](const Instance* a, const Instance* b) {
    return std::tie(a->position, a->group) < std::tie(b->position, b->group);
  });
  return out;
}

bool Rendezvous::another_step(int step, bool wanted) {
  std::unique_lock lock(mutex_);
  const std::size_t i = static_cast<std::size_t>(step);
  if (votes_.size() <= i) votes_.resize(i + 1);
  votes_[i].wanted = votes_[i].wanted || wanted;
  if (++votes_[i].voted == world_) all_arrived_.notify_all();
  all_arrived_.wait(lock, [&] { return aborted_ || votes_[i].voted == world_; });
  if (aborted_) throw std::runtime_error("another rank of the synthetic job failed");
  return votes_[i].wanted;
}

void Rendezvous::abort() {
  std::lock_guard lock(mutex_);
  aborted_ = true;
  all_arrived_.notify_all();
}

}  // namespace traceprism::synth

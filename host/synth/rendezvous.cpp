#include "synth/rendezvous.hpp"

#include <algorithm>
#include <stdexcept>

namespace traceprism::synth {

Rendezvous::Instance& Rendezvous::slot(std::uint64_t instance) {
  while (instances_.size() <= instance) {
    Instance fresh;
    const std::size_t n = static_cast<std::size_t>(world_);
    fresh.starts.assign(n, 0);
    fresh.ends.assign(n, 0);
    fresh.correlations.assign(n, 0);
    fresh.written.assign(n, false);
    instances_.push_back(std::move(fresh));
  }
  return instances_[instance];
}

std::int64_t Rendezvous::arrive(int rank, std::uint64_t instance, std::int64_t start_ns,
                                std::int64_t transfer_ns) {
  std::unique_lock lock(mutex_);
  if (aborted_) throw std::runtime_error("another rank of the synthetic job failed");
  Instance& c = slot(instance);
  c.starts[static_cast<std::size_t>(rank)] = start_ns;
  // The ranks' transfer times differ by their own jitter; the largest is the ring's, whatever
  // order the threads arrive in.
  c.transfer = std::max(c.transfer, transfer_ns);
  if (++c.arrived == world_) {
    c.end = *std::max_element(c.starts.begin(), c.starts.end()) + c.transfer;
    all_arrived_.notify_all();
  }
  all_arrived_.wait(lock, [&] { return aborted_ || instances_[instance].arrived == world_; });
  if (aborted_) throw std::runtime_error("another rank of the synthetic job failed");
  return instances_[instance].end;
}

void Rendezvous::record(int rank, std::uint64_t instance, std::int64_t end_ns,
                        std::int64_t correlation, bool written) {
  std::lock_guard lock(mutex_);
  Instance& c = slot(instance);
  const std::size_t r = static_cast<std::size_t>(rank);
  c.ends[r] = end_ns;
  c.correlations[r] = correlation;
  c.written[r] = written;
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

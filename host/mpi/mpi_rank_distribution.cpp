#include "mpi/mpi_rank_distribution.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>

#include "io/input_error.hpp"
#include "multirank/rank_summary_file.hpp"

namespace traceprism::mpi {

namespace {

// MPI counts are int: payloads travel in pieces of at most this many bytes.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
constexpr int kSizeTag = 1, kPieceTag = 2;

void append_u64(std::string& out, std::uint64_t value) {
  char bytes[8];
  std::memcpy(bytes, &value, sizeof bytes);
  out.append(bytes, sizeof bytes);
}

std::uint64_t take_u64(const std::string& in, std::size_t& at) {
  if (in.size() - at < 8) throw io::InputError("traceprism-mpi: a process sent a cut message.");
  std::uint64_t value = 0;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += 8;
  return value;
}

// One process's results: per file, its index, whether it was read, and its .tpsum bytes or the
// sentence that excludes it.
std::string encode_results(const std::vector<std::size_t>& indices,
                           const std::vector<cli::RankReadResult>& results) {
  std::string out;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const bool read = results[i].summary.has_value();
    const std::string payload =
        read ? multirank::encode_rank_summary(*results[i].summary) : results[i].error;
    append_u64(out, indices[i]);
    append_u64(out, read ? 1 : 0);
    append_u64(out, payload.size());
    out += payload;
  }
  return out;
}

void decode_results(const std::string& bytes, const multirank::Discovery& found,
                    std::vector<cli::RankReadResult>& results) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::uint64_t index = take_u64(bytes, at);
    const std::uint64_t read = take_u64(bytes, at);
    const std::uint64_t size = take_u64(bytes, at);
    if (index >= results.size() || size > bytes.size() - at)
      throw io::InputError("traceprism-mpi: a process sent a malformed message.");
    const std::string_view payload(bytes.data() + at, size);
    at += size;
    if (read)
      results[index].summary =
          multirank::decode_rank_summary(payload, found.files[index].path + " (its summary)");
    else
      results[index].error = std::string(payload);
  }
}

void send_bytes(const std::string& bytes, MPI_Comm comm) {
  std::uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, 0, kSizeTag, comm);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxPiece) {
    const std::size_t piece = std::min(kMaxPiece, bytes.size() - at);
    MPI_Send(bytes.data() + at, static_cast<int>(piece), MPI_BYTE, 0, kPieceTag, comm);
  }
}

std::string receive_bytes(int from, MPI_Comm comm) {
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kSizeTag, comm, MPI_STATUS_IGNORE);
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < bytes.size(); at += kMaxPiece) {
    const std::size_t piece = std::min<std::size_t>(kMaxPiece, bytes.size() - at);
    MPI_Recv(bytes.data() + at, static_cast<int>(piece), MPI_BYTE, from, kPieceTag, comm,
             MPI_STATUS_IGNORE);
  }
  return bytes;
}

}  // namespace

std::vector<std::vector<std::size_t>> deal_rank_files(const multirank::Discovery& found,
                                                      int processes) {
  std::vector<std::size_t> order(found.files.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const multirank::RankFile& fa = found.files[a];
    const multirank::RankFile& fb = found.files[b];
    if (fa.estimated_json_bytes != fb.estimated_json_bytes)
      return fa.estimated_json_bytes > fb.estimated_json_bytes;
    return fa.rank < fb.rank;
  });
  std::vector<std::vector<std::size_t>> shares(static_cast<std::size_t>(std::max(1, processes)));
  std::vector<std::uint64_t> load(shares.size(), 0);
  for (std::size_t file : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) -
                                                load.begin());  // first of equals
    shares[least].push_back(file);
    load[least] += std::max<std::uint64_t>(1, found.files[file].estimated_json_bytes);
  }
  return shares;
}

MpiRankDistribution::MpiRankDistribution(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &process_);
  MPI_Comm_size(comm_, &processes_);
}

void MpiRankDistribution::agree_on_inputs(std::uint64_t fingerprint, const std::string& error) {
  int failed = error.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm_);
  // The maxima of the fingerprint and of its complement: equal to ours on every process only
  // when every process has the same fingerprint.
  std::uint64_t extremes[2] = {fingerprint, ~fingerprint};
  MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_UINT64_T, MPI_MAX, comm_);
  if (failed) {
    finished_ = true;  // every process stops here, together
    throw io::InputError(!error.empty() ? error
                                        : "another process of the MPI job could not find the "
                                          "rank traces; its error is printed above.");
  }
  if (extremes[0] != fingerprint || ~extremes[1] != fingerprint) {
    finished_ = true;
    throw io::InputError(
        "the processes of the MPI job found different rank traces; give paths on a file system "
        "that every node shares.");
  }
}

std::vector<cli::RankReadResult> MpiRankDistribution::read_ranks(
    const multirank::Discovery& found, const cli::LocalRankReader& read_local) {
  const std::vector<std::vector<std::size_t>> shares = deal_rank_files(found, processes_);
  const std::vector<std::size_t>& mine = shares[static_cast<std::size_t>(process_)];
  const std::string encoded = encode_results(mine, read_local(mine));
  std::vector<cli::RankReadResult> results;
  if (process_ != 0) {
    send_bytes(encoded, comm_);
    finished_ = true;
    return results;
  }
  results.resize(found.files.size());
  decode_results(encoded, found, results);
  for (int from = 1; from < processes_; ++from)
    decode_results(receive_bytes(from, comm_), found, results);
  finished_ = true;
  return results;
}

}  // namespace traceprism::mpi

#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.hpp"
#include "io/signal_cleanup.hpp"

namespace traceprism::io {

// Writes a file atomically: bytes go to a temporary file beside the target, which is renamed
// over the target only by commit(). Destroying an uncommitted OutputFile removes the temporary,
// so an existing file is never half-overwritten. Optionally compresses (gzip or zstd) on the fly.
// Errors throw std::runtime_error with the path and the reason.
class OutputFile {
 public:
  OutputFile(std::string path, Compression compression = Compression::kNone, int level = -1);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  void commit();

  const std::string& path() const { return path_; }
  // Uncompressed bytes written so far.
  std::uint64_t bytes_written() const { return bytes_written_; }

  class Encoder;  // compression back end, defined in the .cpp
  // Writes already-encoded bytes to the temporary file (the encoders' output).
  void write_encoded(const char* data, std::size_t size);

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
  std::uint64_t bytes_written_ = 0;
  std::unique_ptr<Encoder> encoder_;
  SignalCleanup temp_cleanup_;
};

// Atomically replaces `path` with the text `contents`, written as valid UTF-8: any invalid
// sequence (a path or an input file's bytes in a report) becomes U+FFFD (io/utf8_text.hpp).
void write_text_file_atomically(const std::string& path, std::string_view contents);

// Creates `dir` and its parents when missing. Throws std::runtime_error with one sentence when
// it cannot be made or a file of that name is in the way.
void create_output_folder(const std::filesystem::path& dir);

}  // namespace traceprism::io

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace traceprism::io {

enum class Compression { kNone, kGzip, kZstd };

const char* compression_name(Compression c);

// A stream of decompressed bytes. read() fills up to `capacity` bytes and returns how many it
// wrote; 0 means the end of the stream. Errors (I/O failure, corrupt or truncated compressed
// data) throw InputError with the file name and the compressed byte offset.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* dst, std::size_t capacity) = 0;

  // Bytes consumed from the underlying file so far (compressed bytes for gz/zst).
  virtual std::uint64_t file_offset() const = 0;
  // Size of the underlying file in bytes, or 0 when unknown (stdin, pipes).
  virtual std::uint64_t file_size() const = 0;
  // A guess at the decompressed size (0 = no idea), used only to reserve memory up front.
  std::uint64_t size_hint() const {
    // Kineto JSON compresses about 10-15x with gzip or zstd.
    return compression() == Compression::kNone ? file_size() : file_size() * 12;
  }
  virtual Compression compression() const = 0;
};

// Which library inflates gzip: ISA-L where the build has it (kFastest), else zlib. Both give
// the same bytes and accept the same files; tests and the fuzzer run both.
enum class GzipDecoder { kFastest, kZlib };
bool fast_gzip_decoder_available();

// Opens `path` ("-" = standard input) and picks the decoder from the first bytes (gzip magic
// 1f 8b, zstd magic 28 b5 2f fd, anything else is read as plain JSON), never from the extension.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path,
                                             GzipDecoder gzip = GzipDecoder::kFastest);

// The same over bytes in memory (tests, fuzzing); `name` is used in error messages. The bytes
// must outlive the source.
std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name,
                                               GzipDecoder gzip = GzipDecoder::kFastest);

}  // namespace traceprism::io

#include "io/byte_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/input_error.hpp"
#include "io/run_inputs.hpp"

namespace traceprism::io {

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "none";
}

namespace {

constexpr std::size_t kCompressedChunk = 1 << 20;

// The undecoded bytes of the input. The first bytes can be "peeked" (read and kept) so the
// format can be detected on a pipe too.
class RawInput {
 public:
  virtual ~RawInput() = default;
  virtual std::size_t read(char* dst, std::size_t capacity) = 0;
  virtual std::string_view peek(std::size_t n) = 0;
  virtual const std::string& display() const = 0;
  virtual std::uint64_t offset() const = 0;
  virtual std::uint64_t size() const = 0;
};

class MemoryInput : public RawInput {
 public:
  MemoryInput(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}
  std::size_t read(char* dst, std::size_t capacity) override {
    std::size_t n = std::min(capacity, bytes_.size() - offset_);
    std::memcpy(dst, bytes_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  std::string_view peek(std::size_t n) override {
    return bytes_.substr(0, std::min(n, bytes_.size()));
  }
  const std::string& display() const override { return name_; }
  std::uint64_t offset() const override { return offset_; }
  std::uint64_t size() const override { return bytes_.size(); }

 private:
  std::string_view bytes_;
  std::string name_;
  std::size_t offset_ = 0;
};

class RawFile : public RawInput {
 public:
  explicit RawFile(const std::string& path) : path_(path) {
    if (path == "-") {
      fd_ = 0;
      display_ = "<stdin>";
      return;
    }
    display_ = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      throw InputError(path + ": cannot open: " + std::strerror(errno) + ".");
    }
    if (S_ISDIR(st.st_mode)) {
      throw InputError(path +
                       ": is a directory, expected a trace file (.json, .json.gz or .json.zst).");
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path + ": cannot open: " + std::strerror(errno) + ".");
    if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
    remember_run_input(path);
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~RawFile() {
    if (fd_ > 0) ::close(fd_);
  }
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;

  std::size_t read(char* dst, std::size_t capacity) override {
    std::size_t n = 0;
    if (peek_pos_ < peeked_.size()) {
      n = std::min(capacity, peeked_.size() - peek_pos_);
      std::memcpy(dst, peeked_.data() + peek_pos_, n);
      peek_pos_ += n;
      offset_ += n;
      return n;
    }
    for (;;) {
      ssize_t got = ::read(fd_, dst, capacity);
      if (got >= 0) {
        offset_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
      }
      if (errno == EINTR) continue;
      throw InputError(display_ + ": read failed at byte " + std::to_string(offset_) + ": " +
                       std::strerror(errno) + ".");
    }
  }

  // Reads up to `n` bytes ahead without consuming them.
  std::string_view peek(std::size_t n) override {
    while (peeked_.size() < n) {
      char buf[64];
      ssize_t got = ::read(fd_, buf, std::min(sizeof buf, n - peeked_.size()));
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        throw InputError(display_ + ": read failed: " + std::strerror(errno) + ".");
      }
      peeked_.append(buf, static_cast<std::size_t>(got));
    }
    return peeked_;
  }

  const std::string& display() const override {
    return display_;
  }
  std::uint64_t offset() const override {
    return offset_;
  }
  std::uint64_t size() const override {
    return size_;
  }

 private:
  std::string path_;
  std::string display_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
  std::string peeked_;
  std::size_t peek_pos_ = 0;
};

class PlainSource : public ByteSource {
 public:
  explicit PlainSource(std::unique_ptr<RawInput> file) : file_(std::move(file)) {}
  std::size_t read(char* dst, std::size_t capacity) override { return file_->read(dst, capacity); }
  std::uint64_t file_offset() const override { return file_->offset(); }
  std::uint64_t file_size() const override { return file_->size(); }
  Compression compression() const override { return Compression::kNone; }

 private:
  std::unique_ptr<RawInput> file_;
};

class GzipSource : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<RawInput> file)
      : file_(std::move(file)), in_(kCompressedChunk) {
    std::memset(&zs_, 0, sizeof zs_);
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) {
      throw InputError(file_->display() + ": cannot initialise the gzip decoder.");
    }
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  std::size_t read(char* dst, std::size_t capacity) override {
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1u << 30));
    while (zs_.avail_out > 0 && !finished_) {
      if (zs_.avail_in == 0 && !refill()) {
        if (member_done_) {
          finished_ = true;
          break;
        }
        throw InputError(file_->display() + ": truncated gzip stream at compressed byte " +
                         std::to_string(file_->offset()) +
                         ": expected more compressed data before the end of the file.");
      }
      if (member_done_ && *zs_.next_in == 0) {
        skip_zero_padding();
        break;
      }
      member_done_ = false;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // A .gz file may hold several concatenated members; continue with the next one.
        member_done_ = true;
        inflateReset(&zs_);
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw InputError(file_->display() + ": corrupt gzip data near compressed byte " +
                         std::to_string(consumed()) + ": " +
                         (zs_.msg ? zs_.msg : "inflate failed") + ".");
      }
    }
    return capacity - zs_.avail_out;
  }
  std::uint64_t file_offset() const override { return consumed(); }
  std::uint64_t file_size() const override { return file_->size(); }
  Compression compression() const override { return Compression::kGzip; }

 private:
  bool refill() {
    std::size_t n = file_->read(in_.data(), in_.size());
    zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
    zs_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }
  std::uint64_t consumed() const { return file_->offset() - zs_.avail_in; }

  // Zero bytes after the last member (tape and block-device padding): gzip, zcat and Python
  // ignore them, and so does this. Anything else after the zeros is not a gzip member.
  void skip_zero_padding() {
    do {
      for (; zs_.avail_in > 0; ++zs_.next_in, --zs_.avail_in) {
        if (*zs_.next_in != 0)
          throw InputError(file_->display() + ": corrupt gzip data near compressed byte " +
                           std::to_string(consumed()) +
                           ": expected only zero padding after the last member.");
      }
    } while (refill());
    finished_ = true;
  }

  std::unique_ptr<RawInput> file_;
  std::vector<char> in_;
  z_stream zs_;
  bool member_done_ = false;
  bool finished_ = false;
};

class ZstdSource : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<RawInput> file)
      : file_(std::move(file)), dctx_(ZSTD_createDCtx()), in_(ZSTD_DStreamInSize()) {
    if (!dctx_) throw InputError(file_->display() + ": cannot initialise the zstd decoder.");
  }
  ~ZstdSource() override { ZSTD_freeDCtx(dctx_); }

  std::size_t read(char* dst, std::size_t capacity) override {
    ZSTD_outBuffer out{dst, capacity, 0};
    while (out.pos < out.size) {
      if (input_.pos == input_.size) {
        std::size_t n = file_->read(in_.data(), in_.size());
        if (n == 0) {
          if (frame_open_) {
            throw InputError(file_->display() + ": truncated zstd stream at compressed byte " +
                             std::to_string(file_->offset()) +
                             ": expected more compressed data before the end of the file.");
          }
          break;
        }
        input_ = ZSTD_inBuffer{in_.data(), n, 0};
      }
      std::size_t rc = ZSTD_decompressStream(dctx_, &out, &input_);
      if (ZSTD_isError(rc)) {
        throw InputError(file_->display() + ": corrupt zstd data near compressed byte " +
                         std::to_string(file_->offset() - (input_.size - input_.pos)) + ": " +
                         ZSTD_getErrorName(rc) + ".");
      }
      frame_open_ = rc != 0;
    }
    return out.pos;
  }
  std::uint64_t file_offset() const override {
    return file_->offset() - (input_.size - input_.pos);
  }
  std::uint64_t file_size() const override { return file_->size(); }
  Compression compression() const override { return Compression::kZstd; }

 private:
  std::unique_ptr<RawInput> file_;
  ZSTD_DCtx* dctx_;
  std::vector<char> in_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool frame_open_ = false;
};

std::unique_ptr<ByteSource> decode(std::unique_ptr<RawInput> file) {
  std::string_view head = file->peek(4);
  auto starts_with = [&](std::initializer_list<unsigned char> magic) {
    if (head.size() < magic.size()) return false;
    std::size_t i = 0;
    for (unsigned char m : magic) {
      if (static_cast<unsigned char>(head[i++]) != m) return false;
    }
    return true;
  };
  if (starts_with({0x1f, 0x8b})) return std::make_unique<GzipSource>(std::move(file));
  if (starts_with({0x28, 0xb5, 0x2f, 0xfd})) return std::make_unique<ZstdSource>(std::move(file));
  // A zstd skippable frame (magic 0x184D2A50..5F, little-endian) may open a .zst file.
  if (head.size() == 4 && (static_cast<unsigned char>(head[0]) & 0xF0) == 0x50 &&
      head.substr(1) == std::string_view("\x2A\x4D\x18", 3))
    return std::make_unique<ZstdSource>(std::move(file));
  return std::make_unique<PlainSource>(std::move(file));
}

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  return decode(std::make_unique<RawFile>(path));
}

std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name) {
  return decode(std::make_unique<MemoryInput>(bytes, name));
}

}  // namespace traceprism::io

#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "io/run_inputs.hpp"
#include "io/utf8_text.hpp"

namespace traceprism::io {

namespace {
std::runtime_error output_error(const std::string& path, const std::string& what) {
  return std::runtime_error(path + ": cannot write output: " + what + ".");
}
}  // namespace

// Turns plain bytes into compressed bytes handed to a sink callback.
class OutputFile::Encoder {
 public:
  virtual ~Encoder() = default;
  virtual void write(const char* data, std::size_t size, bool finish, OutputFile& out) = 0;
};

namespace {

class GzipEncoder : public OutputFile::Encoder {
 public:
  explicit GzipEncoder(int level) : out_(1 << 18) {
    std::memset(&zs_, 0, sizeof zs_);
    if (deflateInit2(&zs_, level < 0 ? 6 : level, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("cannot initialise the gzip encoder");
    }
  }
  ~GzipEncoder() override { deflateEnd(&zs_); }
  void write(const char* data, std::size_t size, bool finish, OutputFile& out) override;

 private:
  z_stream zs_;
  std::vector<char> out_;
};

class ZstdEncoder : public OutputFile::Encoder {
 public:
  explicit ZstdEncoder(int level) : cctx_(ZSTD_createCCtx()), out_(ZSTD_CStreamOutSize()) {
    if (!cctx_) throw std::runtime_error("cannot initialise the zstd encoder");
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level < 0 ? 3 : level);
  }
  ~ZstdEncoder() override { ZSTD_freeCCtx(cctx_); }
  void write(const char* data, std::size_t size, bool finish, OutputFile& out) override;

 private:
  ZSTD_CCtx* cctx_;
  std::vector<char> out_;
};

}  // namespace

OutputFile::OutputFile(std::string path, Compression compression, int level)
    : path_(std::move(path)) {
  if (is_run_input(path_))
    throw output_error(path_, "it is a file this run reads; choose another output folder");
  // Renaming over a device, FIFO or symlink would replace it with a regular file.
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw output_error(path_,
                       "it exists and is not a regular file (a device, FIFO, symlink or "
                       "folder); outputs replace only regular files");
  temp_path_ = path_ + ".tmp." + std::to_string(::getpid());
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw output_error(path_, std::strerror(errno));
  temp_cleanup_ = SignalCleanup(temp_path_, false);
  if (compression == Compression::kGzip) encoder_ = std::make_unique<GzipEncoder>(level);
  if (compression == Compression::kZstd) encoder_ = std::make_unique<ZstdEncoder>(level);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void OutputFile::write(std::string_view bytes) {
  bytes_written_ += bytes.size();
  if (encoder_) {
    encoder_->write(bytes.data(), bytes.size(), false, *this);
  } else {
    write_encoded(bytes.data(), bytes.size());
  }
}

void OutputFile::write_encoded(const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw output_error(path_, std::strerror(errno));
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  if (encoder_) encoder_->write(nullptr, 0, true, *this);
  if (::fsync(fd_) != 0 && errno != EINVAL) throw output_error(path_, std::strerror(errno));
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw output_error(path_, std::strerror(errno));
  }
  fd_ = -1;
  if (is_run_input(path_))  // it may have appeared since the file was opened
    throw output_error(path_, "it is a file this run reads; choose another output folder");
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw output_error(path_, std::strerror(errno));
  }
  committed_ = true;
  temp_cleanup_.release();
}

void GzipEncoder::write(const char* data, std::size_t size, bool finish, OutputFile& out) {
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
  zs_.avail_in = static_cast<uInt>(size);
  int rc;
  do {
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(out_.size());
    rc = deflate(&zs_, finish ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("gzip encoder failed");
    std::size_t produced = out_.size() - zs_.avail_out;
    if (produced > 0) out.write_encoded(out_.data(), produced);
  } while (zs_.avail_out == 0 || (finish && rc != Z_STREAM_END));
}

void ZstdEncoder::write(const char* data, std::size_t size, bool finish, OutputFile& out) {
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    ZSTD_outBuffer ob{out_.data(), out_.size(), 0};
    std::size_t rc = ZSTD_compressStream2(cctx_, &ob, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(rc)) throw std::runtime_error(ZSTD_getErrorName(rc));
    if (ob.pos > 0) out.write_encoded(static_cast<const char*>(ob.dst), ob.pos);
    bool done = finish ? rc == 0 : in.pos == in.size;
    if (done) break;
  }
}

void write_text_file_atomically(const std::string& path, std::string_view contents) {
  OutputFile file(path);
  if (is_valid_utf8(contents))
    file.write(contents);
  else
    file.write(valid_utf8(contents));
  file.commit();
}

void create_output_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw std::runtime_error(dir.string() + ": cannot create the output folder: " +
                             (ec ? ec.message() : std::string("a file of that name exists")) + ".");
}

}  // namespace traceprism::io

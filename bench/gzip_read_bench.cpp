// The read stage with each gzip decoder (issue 18): for a .json.gz, the seconds to inflate it
// alone and to read it into an index (inflate + parse + index, what `inspect` calls "read"),
// with ISA-L (when the build has it) and with zlib, RUNS times each, interleaved, and the CRC-32
// of the inflated bytes (the two decoders must agree). Build with -DTRACEPRISM_BUILD_BENCH=ON;
//   build/bench/gzip_read_bench out/bench/synth_1100mb_l24_s1.json.gz [RUNS=3]
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ingest/trace_reader.hpp"
#include "io/byte_source.hpp"
#include "io/input_error.hpp"

namespace {

using traceprism::io::GzipDecoder;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Inflated {
  double seconds = 0;
  std::uint64_t bytes = 0;
  std::uint32_t crc = 0;
};

Inflated inflate_only(const std::string& path, GzipDecoder decoder) {
  const auto start = std::chrono::steady_clock::now();
  const auto source = traceprism::io::open_byte_source(path, decoder);
  std::vector<char> buffer(std::size_t{4} << 20);
  Inflated out;
  uLong crc = crc32(0, nullptr, 0);
  while (const std::size_t n = source->read(buffer.data(), buffer.size())) {
    crc = crc32_z(crc, reinterpret_cast<const Bytef*>(buffer.data()), n);
    out.bytes += n;
  }
  out.seconds = seconds_since(start);
  out.crc = static_cast<std::uint32_t>(crc);
  return out;
}

double read_into_index(const std::string& path, GzipDecoder decoder) {
  const auto start = std::chrono::steady_clock::now();
  const auto source = traceprism::io::open_byte_source(path, decoder);
  const auto file = traceprism::ingest::read_trace(*source, path);
  return seconds_since(start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE.json.gz [RUNS=3]\n", argv[0]);
    return 64;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  try {
    const struct {
      const char* name;
      GzipDecoder decoder;
    } decoders[] = {{traceprism::io::fast_gzip_decoder_available() ? "ISA-L" : "zlib (no ISA-L)",
                     GzipDecoder::kFastest},
                    {"zlib", GzipDecoder::kZlib}};
    std::vector<double> inflate[2], read[2];
    Inflated last[2];
    for (int run = 0; run < runs; ++run)
      for (int d = 0; d < 2; ++d) {
        last[d] = inflate_only(path, decoders[d].decoder);
        inflate[d].push_back(last[d].seconds);
        read[d].push_back(read_into_index(path, decoders[d].decoder));
      }
    std::printf(
        "| decoder | inflated MB | inflate s | inflate MB/s | read s | read MB/s | CRC-32 |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---|\n");
    for (int d = 0; d < 2; ++d) {
      const double mb = static_cast<double>(last[d].bytes) / 1e6;
      std::printf("| %s | %.0f | %.2f | %.0f | %.2f | %.0f | %08x |\n", decoders[d].name, mb,
                  median(inflate[d]), mb / median(inflate[d]), median(read[d]),
                  mb / median(read[d]), last[d].crc);
    }
    if (last[0].crc != last[1].crc || last[0].bytes != last[1].bytes) {
      std::fprintf(stderr, "gzip_read_bench: the decoders disagree on %s\n", path.c_str());
      return 1;
    }
  } catch (const traceprism::io::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}

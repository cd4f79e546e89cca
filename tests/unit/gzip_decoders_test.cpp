// The reader's two gzip decoders (io/byte_source: ISA-L where the build has it, zlib always)
// give the same bytes for every kind of gzip file a trace can come in — every deflate block type,
// optional header fields, several members, zero padding — whatever the read sizes, and both
// refuse the same corrupt files. The files are made here with zlib's deflate, the inputs of
// `gzip` and Python's gzip module alike.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/byte_source.hpp"
#include "io/input_error.hpp"

namespace traceprism::io {
namespace {

struct Deflate {
  int level = Z_DEFAULT_COMPRESSION;
  int strategy = Z_DEFAULT_STRATEGY;
  bool header_fields = false;  // FNAME, FCOMMENT, FEXTRA and the header CRC
};

// One gzip member holding `text`.
std::string gzip(const std::string& text, const Deflate& how = {}) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, how.level, Z_DEFLATED, 16 + MAX_WBITS, 8, how.strategy), Z_OK);
  gz_header header{};
  char name[] = "trace.json", comment[] = "made by a test";
  unsigned char extra[] = {'T', 'P', 2, 0, 'o', 'k'};
  if (how.header_fields) {
    header.name = reinterpret_cast<Bytef*>(name);
    header.comment = reinterpret_cast<Bytef*>(comment);
    header.extra = extra;
    header.extra_len = sizeof extra;
    header.hcrc = 1;
    EXPECT_EQ(deflateSetHeader(&zs, &header), Z_OK);
  }
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Trace-like text: repeated event keys (long matches) and random numbers and names (literals).
std::string trace_text(std::size_t events, unsigned seed) {
  std::mt19937 random(seed);
  std::string out = "{\"traceEvents\":[";
  for (std::size_t i = 0; i < events; ++i) {
    out += i ? "," : "";
    out += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k" + std::to_string(random() % 977) +
           "\",\"ts\":" + std::to_string(random()) + ",\"dur\":" + std::to_string(random() % 999) +
           ",\"args\":{\"stream\":" + std::to_string(random() % 8) + "}}";
  }
  return out + "]}";
}

// Random bytes: deflate stores them (stored blocks).
std::string noise(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(random());
  return out;
}

std::string read_all(const std::string& file, GzipDecoder decoder, std::size_t read_size) {
  const auto source = open_memory_source(file, "test.json.gz", decoder);
  EXPECT_EQ(source->compression(), Compression::kGzip);
  std::string out;
  std::vector<char> buffer(read_size);
  while (const std::size_t n = source->read(buffer.data(), buffer.size()))
    out.append(buffer.data(), n);
  return out;
}

// Both decoders, three read sizes each, give `expected`.
void expect_both_decoders_give(const std::string& file, const std::string& expected) {
  for (GzipDecoder decoder : {GzipDecoder::kFastest, GzipDecoder::kZlib})
    for (std::size_t read_size : {std::size_t{1}, std::size_t{4093}, std::size_t{1} << 22}) {
      if (read_size == 1 && expected.size() > 200'000) continue;  // keep the test quick
      const std::string got = read_all(file, decoder, read_size);
      ASSERT_EQ(got.size(), expected.size())
          << (decoder == GzipDecoder::kZlib ? "zlib" : "fastest") << ", reads of " << read_size;
      ASSERT_TRUE(got == expected)
          << (decoder == GzipDecoder::kZlib ? "zlib" : "fastest") << ", reads of " << read_size;
    }
}

// Whether reading `file` to its end throws InputError, per decoder.
bool refused(const std::string& file, GzipDecoder decoder) {
  try {
    read_all(file, decoder, 65536);
    return false;
  } catch (const InputError&) {
    return true;
  }
}

TEST(GzipDecoders, EveryBlockTypeAndLevelGivesTheSameBytes) {
  const std::string text = trace_text(20'000, 1);
  const Deflate variants[] = {
      {Z_NO_COMPRESSION, Z_DEFAULT_STRATEGY, false},  // stored blocks
      {1, Z_DEFAULT_STRATEGY, false},                 // gzip -1
      {6, Z_DEFAULT_STRATEGY, false},                 // gzip's default
      {9, Z_DEFAULT_STRATEGY, false},
      {6, Z_FIXED, false},         // fixed Huffman codes only
      {6, Z_HUFFMAN_ONLY, false},  // literals only
      {6, Z_RLE, false},           // distance-1 matches only
  };
  for (const Deflate& how : variants) {
    SCOPED_TRACE("level " + std::to_string(how.level) + ", strategy " +
                 std::to_string(how.strategy));
    expect_both_decoders_give(gzip(text, how), text);
  }
}

TEST(GzipDecoders, IncompressibleAndEmptyContentGiveTheSameBytes) {
  const std::string bytes = noise(300'000, 2);
  expect_both_decoders_give(gzip(bytes), bytes);
  expect_both_decoders_give(gzip(""), "");
}

TEST(GzipDecoders, OptionalHeaderFieldsAreSkipped) {
  const std::string text = trace_text(500, 3);
  expect_both_decoders_give(gzip(text, {6, Z_DEFAULT_STRATEGY, true}), text);
}

TEST(GzipDecoders, MembersAreReadInTurnAndZeroPaddingIgnored) {
  // `cat a.gz b.gz`, with an empty member between, then the zero padding of a tape or a
  // preallocated file.
  const std::string a = trace_text(3000, 4), b = trace_text(10, 5);
  const std::string file =
      gzip(a, {1}) + gzip("") + gzip(b, {9, Z_DEFAULT_STRATEGY, true}) + std::string(1000, '\0');
  expect_both_decoders_give(file, a + b);
}

TEST(GzipDecoders, ABigFileGivesTheSameBytes) {
  const std::string text = trace_text(200'000, 6);  // ~20 MB, several compressed chunks
  expect_both_decoders_give(gzip(text), text);
}

TEST(GzipDecoders, BothRefuseTheSameCorruptFiles) {
  const std::string good = gzip(trace_text(2000, 7));
  std::string bad_crc = good, bad_size = good, bad_block = good, bad_method = good;
  bad_crc[good.size() - 8] ^= 1;   // the trailer's CRC-32
  bad_size[good.size() - 1] ^= 1;  // the trailer's ISIZE
  bad_block[12] = '\xff';          // inside the first deflate block
  bad_method[2] = 7;               // not deflate
  const struct {
    const char* what;
    std::string file;
  } files[] = {
      {"a wrong CRC-32", bad_crc},
      {"a wrong size", bad_size},
      {"a corrupt block", bad_block},
      {"an unknown method", bad_method},
      {"a truncated member", good.substr(0, good.size() / 2)},
      {"a missing trailer", good.substr(0, good.size() - 8)},
      {"garbage after a member", good + "garbage"},
  };
  for (const auto& [what, file] : files) {
    EXPECT_TRUE(refused(file, GzipDecoder::kZlib)) << what;
    EXPECT_TRUE(refused(file, GzipDecoder::kFastest)) << what;
  }
}

}  // namespace
}  // namespace traceprism::io

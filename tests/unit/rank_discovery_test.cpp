// Rank discovery (multi-rank.md §2 "Inputs", "Rank of a file", "World"; §3.1 step 1's size
// estimate; §7.6's host names): which trace is which rank, duplicates, missing ranks, folders,
// globs and --ranks.
#include "multirank/rank_discovery.hpp"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "io/input_error.hpp"
#include "support/temp_dir.hpp"

namespace traceprism::multirank {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string trace_with_meta(int rank, int world_size) {
  return R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":)" +
         std::to_string(rank) + R"(,"world_size":)" + std::to_string(world_size) +
         R"(},"traceEvents":[]})";
}

const std::string kTraceWithoutMeta = R"({"schemaVersion":1,"traceEvents":[]})";

std::string gzip(const std::string& text) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
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

// With `record_size` false the frame header leaves the content size out, as a streaming writer
// that was not told the size does.
std::string zstd(const std::string& text, bool record_size) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, record_size ? 1 : 0);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
  EXPECT_FALSE(ZSTD_isError(n));
  ZSTD_freeCCtx(cctx);
  out.resize(n);
  return out;
}

std::vector<std::int32_t> ranks_of(const Discovery& d) {
  std::vector<std::int32_t> out;
  for (const RankFile& f : d.files) out.push_back(f.rank);
  return out;
}

std::string error_of(const std::vector<std::string>& inputs, const DiscoveryOptions& options = {}) {
  try {
    discover_ranks(inputs, options);
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "no error";
}

// ------------------------------------------------------------------------------------------
// Rank of a file

TEST(RankDiscovery, RankComesFromDistributedInfo) {
  TempDir dir;
  dir.write("a.json", trace_with_meta(1, 2));
  dir.write("b.json.gz", gzip(trace_with_meta(0, 2)));
  const Discovery d = discover_ranks({dir.path().string()}, {});
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].path, dir.file("b.json.gz"));
  EXPECT_EQ(d.files[0].rank, 0);
  EXPECT_EQ(d.files[0].source, RankSource::kMeta);
  EXPECT_EQ(d.files[0].world_size, 2);
  EXPECT_EQ(d.files[1].path, dir.file("a.json"));
  EXPECT_EQ(d.files[1].rank, 1);
  EXPECT_EQ(d.world_size, 2);
  EXPECT_TRUE(d.missing_ranks.empty());
  EXPECT_TRUE(d.notes.empty());
}

TEST(RankDiscovery, ZstdTraceIsSniffedToo) {
  TempDir dir;
  dir.write("x.json.zst", zstd(trace_with_meta(3, 4), true));
  const Discovery d = discover_ranks({dir.file("x.json.zst")}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{3}));
  EXPECT_EQ(d.files[0].source, RankSource::kMeta);
}

TEST(RankDiscovery, RankComesFromTheFileNameWithoutMetadata) {
  TempDir dir;
  const std::string a = dir.write("rank3.json.gz", gzip(kTraceWithoutMeta));
  const std::string b = dir.write("rank_4_trace.json.gz", gzip(kTraceWithoutMeta));
  // Exists, so taken literally although "[5]" is glob syntax.
  const std::string c = dir.write("trace-rank[5].json", kTraceWithoutMeta);
  const Discovery d = discover_ranks({c, a, b}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{3, 4, 5}));
  for (const RankFile& f : d.files) EXPECT_EQ(f.source, RankSource::kFileName);
  EXPECT_EQ(d.files[2].path, c);
  EXPECT_EQ(d.files[0].world_size, -1);
  EXPECT_EQ(d.world_size, 6);  // max rank + 1
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(RankDiscovery, FileNameRegexFallsBackToThePath) {
  TempDir dir;
  fs::create_directories(dir.path() / "rank_2");
  const std::string path = dir.write("rank_2/trace.json", kTraceWithoutMeta);
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{2}));
}

TEST(RankDiscovery, CustomRankRegex) {
  TempDir dir;
  const std::string path = dir.write("worker12-of-16.json", kTraceWithoutMeta);
  DiscoveryOptions options;
  options.rank_regex = R"(worker(\d+))";
  EXPECT_EQ(ranks_of(discover_ranks({path}, options)), (std::vector<std::int32_t>{12}));
}

TEST(RankDiscovery, MetadataWinsOverTheFileNameWithANote) {
  TempDir dir;
  const std::string path = dir.write("rank7.json", trace_with_meta(2, 8));
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{2}));
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], path +
                            ": distributedInfo.rank 2 differs from the rank in the file name (7); "
                            "the trace's own rank is used.");
}

TEST(RankDiscovery, RankFromFileNameIgnoresMetadata) {
  TempDir dir;
  const std::string path = dir.write("rank7.json", trace_with_meta(2, 8));
  DiscoveryOptions options;
  options.from = RankFrom::kFileName;
  const Discovery d = discover_ranks({path}, options);
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{7}));
  EXPECT_EQ(d.files[0].source, RankSource::kFileName);
  EXPECT_TRUE(d.notes.empty());
}

TEST(RankDiscovery, RankFromOrderIsSortedPathOrder) {
  TempDir dir;
  const std::string c = dir.write("c.json", kTraceWithoutMeta);
  const std::string a = dir.write("a.json", trace_with_meta(9, 16));
  const std::string b = dir.write("b.json", kTraceWithoutMeta);
  DiscoveryOptions options;
  options.from = RankFrom::kOrder;
  const Discovery d = discover_ranks({c, a, b}, options);
  ASSERT_EQ(ranks_of(d), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(d.files[0].path, a);
  EXPECT_EQ(d.files[1].path, b);
  EXPECT_EQ(d.files[2].path, c);
  EXPECT_EQ(d.files[0].source, RankSource::kOrder);
  // a.json still says the job had 16 ranks.
  EXPECT_EQ(d.world_size, 16);
  EXPECT_EQ(d.missing_ranks.size(), 13u);
}

TEST(RankDiscovery, FileWithoutAnyRankIsAnError) {
  TempDir dir;
  const std::string path = dir.write("trace.json", kTraceWithoutMeta);
  EXPECT_EQ(error_of({path}),
            path +
                ": cannot tell its rank: it has no distributedInfo.rank before \"traceEvents\" and "
                "the file name does not match --rank-regex rank[\\[\\-_/]?(\\d+); pass a "
                "--rank-regex whose first group captures the rank, or --rank-from order.");
  DiscoveryOptions meta_only;
  meta_only.from = RankFrom::kMeta;
  const std::string named = dir.write("rank1.json", kTraceWithoutMeta);
  EXPECT_EQ(error_of({named}, meta_only),
            named +
                ": cannot tell its rank: it has no distributedInfo.rank before \"traceEvents\"; "
                "pass --rank-from filename with a --rank-regex whose first group captures the "
                "rank, or --rank-from order.");
}

// ------------------------------------------------------------------------------------------
// The sniff stays on the top level, stops at traceEvents and survives malformed text

TEST(RankDiscovery, DistributedInfoAfterTraceEventsIsNotSniffed) {
  TempDir dir;
  const std::string path =
      dir.write("rank6.json", R"({"traceEvents":[],"distributedInfo":{"rank":1,"world_size":8}})");
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{6}));
  EXPECT_EQ(d.files[0].source, RankSource::kFileName);
  EXPECT_EQ(d.world_size, 7);
}

TEST(RankDiscovery, SniffSkipsNestedValuesAndStringsWithBrackets) {
  TempDir dir;
  const std::string path = dir.write(
      "t.json",
      R"({"schemaVersion":1,"deviceProperties":[{"name":"a}]\"{\"distributedInfo\":{"}],)"
      R"("note":"traceEvents","x":{"distributedInfo":{"rank":9}},)"
      R"("distributedInfo":{"backend":"nccl","rank":4,"world_size":8},"traceEvents":[]})");
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{4}));
  EXPECT_EQ(d.world_size, 8);
}

TEST(RankDiscovery, SniffReadsPastALongHeader) {
  TempDir dir;
  const std::string filler(300'000, 'x');  // many decode chunks before distributedInfo
  const std::string text = R"({"schemaVersion":1,"filler":")" + filler +
                           R"(","distributedInfo":{"rank":5,"world_size":6},"traceEvents":[]})";
  const std::string path = dir.write("t.json.gz", gzip(text));
  EXPECT_EQ(ranks_of(discover_ranks({path}, {})), (std::vector<std::int32_t>{5}));
}

TEST(RankDiscovery, MalformedOrUnusableMetadataFallsBackToTheFileName) {
  TempDir dir;
  const std::string cut = dir.write("rank1.json", R"({"distributedInfo":{"rank":3)");
  const std::string bad = dir.write("rank2.json", R"({"distributedInfo":{"rank":},"traceEvents")");
  const std::string text = dir.write("rank3.json", R"({"distributedInfo":{"rank":"0"}})");
  const std::string array = dir.write("rank4.json", R"([{"ph":"X"}])");
  const std::string huge = dir.write("rank5.json", R"({"distributedInfo":{"rank":99999999}})");
  const std::string empty = dir.write("rank6.json", "");
  const Discovery d = discover_ranks({cut, bad, text, array, huge, empty}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}));
  for (const RankFile& f : d.files) EXPECT_EQ(f.source, RankSource::kFileName);
  EXPECT_EQ(d.notes, (std::vector<std::string>{
                         huge + ": distributedInfo.rank 99999999 is not a usable rank; it is "
                                "ignored."}));
}

TEST(RankDiscovery, UnreadablePrefixIsANoteAndTheNameStillGivesTheRank) {
  TempDir dir;
  const std::string whole = gzip(trace_with_meta(0, 2));
  const std::string path = dir.write("rank1.json.gz", whole.substr(0, whole.size() - 12));
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{1}));
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].rfind(path + ": truncated gzip stream", 0), 0u) << d.notes[0];
}

// ------------------------------------------------------------------------------------------
// Duplicates

TEST(RankDiscovery, TwoFilesWithOneRankAreAnError) {
  TempDir dir;
  const std::string a = dir.write("a.json.gz", gzip(trace_with_meta(3, 4)));
  const std::string b = dir.write("b.json.gz", gzip(trace_with_meta(3, 4)));
  EXPECT_EQ(error_of({b, a}), "rank 3 is given by two files: " + a + " and " + b +
                                  "; keep one, or pass --on-duplicate-rank first.");
  const std::string c = dir.write("c_rank3.json", kTraceWithoutMeta);
  EXPECT_EQ(error_of({dir.path().string()}), "rank 3 is given by 3 files: " + a + ", " + b +
                                                 " and " + c +
                                                 "; keep one, or pass --on-duplicate-rank first.");
}

TEST(RankDiscovery, KeepFirstDuplicateKeepsTheFirstPathInSortOrder) {
  TempDir dir;
  const std::string a = dir.write("a.json.gz", gzip(trace_with_meta(3, 4)));
  const std::string b = dir.write("b.json.gz", gzip(trace_with_meta(3, 4)));
  const std::string z = dir.write("z.json", trace_with_meta(0, 4));
  DiscoveryOptions options;
  options.keep_first_duplicate = true;
  const Discovery d = discover_ranks({b, z, a}, options);
  ASSERT_EQ(ranks_of(d), (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(d.files[1].path, a);
  EXPECT_EQ(d.notes,
            (std::vector<std::string>{"rank 3 is given by two files: " + a + " and " + b + "; " +
                                      a + " is kept (--on-duplicate-rank first)."}));
}

TEST(RankDiscovery, OneFileNamedTwiceIsReadOnce) {
  TempDir dir;
  const std::string a = dir.write("rank0.json", kTraceWithoutMeta);
  const std::string link = dir.file("link_rank0.json.lnk");
  fs::create_symlink(a, link);
  const Discovery d = discover_ranks({a, dir.path().string(), link}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(d.notes,
            (std::vector<std::string>{a + " is the same file as " + link + "; it is read once."}));
}

// ------------------------------------------------------------------------------------------
// World and missing ranks

TEST(RankDiscovery, MissingRanksAgainstTheWorldSizeOfTheMetadata) {
  TempDir dir;
  for (int rank : {0, 2, 5})
    dir.write("r" + std::to_string(rank) + ".json", trace_with_meta(rank, 8));
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{0, 2, 5}));
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{1, 3, 4, 6, 7}));
  DiscoveryOptions options;
  options.require_all_ranks = true;
  EXPECT_EQ(error_of({dir.path().string()}, options),
            "5 of 8 ranks have no trace (missing: 1, 3-4, 6-7); --require-all-ranks needs a trace "
            "for every rank.");
}

TEST(RankDiscovery, WorldSizeFromMaxRankWithoutMetadata) {
  TempDir dir;
  dir.write("rank0.json", kTraceWithoutMeta);
  dir.write("rank3.json", kTraceWithoutMeta);
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(d.world_size, 4);
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{1, 2}));
  DiscoveryOptions options;
  options.require_all_ranks = true;
  EXPECT_EQ(error_of({dir.path().string()}, options),
            "2 of 4 ranks have no trace (missing: 1-2); --require-all-ranks needs a trace for "
            "every rank.");
}

TEST(RankDiscovery, WorldSizeDisagreementIsANote) {
  TempDir dir;
  const std::string a = dir.write("a.json", trace_with_meta(0, 4));
  const std::string b = dir.write("b.json", trace_with_meta(1, 8));
  const std::string c = dir.write("c.json", trace_with_meta(2, 4));
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{3, 4, 5, 6, 7}));
  EXPECT_EQ(d.notes,
            (std::vector<std::string>{"distributedInfo.world_size differs between "
                                      "traces: 4 in " +
                                      a + " and 8 in " + b + "; the world is taken as 8 ranks."}));
  (void)c;
}

TEST(RankDiscovery, RankBeyondTheWorldSizeWidensTheWorld) {
  TempDir dir;
  dir.write("a.json", trace_with_meta(0, 4));
  const std::string b = dir.write("b.json", trace_with_meta(5, 4));
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(d.world_size, 6);
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(d.notes, (std::vector<std::string>{"rank 5 (" + b +
                                               ") is beyond distributedInfo.world_size 4; the "
                                               "world is taken as 6 ranks."}));
}

// ------------------------------------------------------------------------------------------
// Folders, globs, missing inputs

TEST(RankDiscovery, FolderCountsOnlyTraceNamesAndSkipsNonTracesWithANote) {
  TempDir dir;
  dir.write("rank0.json", kTraceWithoutMeta);
  const std::string results = dir.write("results.json", R"({"ranks":4,"ok":true})");
  dir.write("synth_truth.json.txt", kTraceWithoutMeta);  // not a trace name
  dir.write("README.md", "rank 1");
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(d.notes, (std::vector<std::string>{
                         results + ": skipped: its first 64 KiB hold neither \"traceEvents\" nor "
                                   "\"schemaVersion\", so it is not a trace."}));
}

TEST(RankDiscovery, NamedFileIsNotCheckedForTraceContent) {
  TempDir dir;
  const std::string path = dir.write("rank2.json", R"({"ranks":4})");
  EXPECT_EQ(ranks_of(discover_ranks({path}, {})), (std::vector<std::int32_t>{2}));
}

TEST(RankDiscovery, SubfoldersOnlyWithRecursive) {
  TempDir dir;
  fs::create_directories(dir.path() / "node1");
  dir.write("rank0.json", kTraceWithoutMeta);
  dir.write("node1/rank1.json.gz", gzip(kTraceWithoutMeta));
  EXPECT_EQ(ranks_of(discover_ranks({dir.path().string()}, {})), (std::vector<std::int32_t>{0}));
  DiscoveryOptions options;
  options.recursive = true;
  const Discovery d = discover_ranks({dir.path().string()}, options);
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(d.files[1].path, dir.file("node1/rank1.json.gz"));
}

TEST(RankDiscovery, NoTraceFoundSuggestsRecursiveWhenThereAreSubfolders) {
  TempDir dir;
  fs::create_directories(dir.path() / "node1");
  dir.write("node1/rank1.json", kTraceWithoutMeta);
  EXPECT_EQ(error_of({dir.path().string()}),
            "no trace found in " + dir.path().string() +
                ": a folder counts only .json, .json.gz and .json.zst files that hold "
                "\"traceEvents\" or \"schemaVersion\" in their first 64 KiB (pass --recursive to "
                "search its subfolders).");
}

TEST(RankDiscovery, GlobsAreExpanded) {
  TempDir dir;
  dir.write("rank0.json.gz", gzip(kTraceWithoutMeta));
  dir.write("rank1.json.gz", gzip(kTraceWithoutMeta));
  dir.write("rank2.json", kTraceWithoutMeta);
  dir.write("notes.json.gz", gzip(R"({"a":1})"));
  const Discovery d = discover_ranks({dir.file("*.json.gz")}, {});
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{0, 1}));
  // The glob's non-trace match is skipped like a folder's.
  EXPECT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(ranks_of(discover_ranks({dir.file("rank[02].json*")}, {})),
            (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(error_of({dir.file("*.zst")}), dir.file("*.zst") + ": matches no file.");
}

TEST(RankDiscovery, InputThatDoesNotExist) {
  TempDir dir;
  EXPECT_EQ(error_of({dir.file("nope.json")}),
            dir.file("nope.json") + ": does not exist; expected a trace file, a folder or a glob.");
  EXPECT_EQ(error_of({"-"}),
            "-: standard input cannot be one rank of several; pass the trace files, a folder or "
            "a glob.");
}

// ------------------------------------------------------------------------------------------
// --ranks

TEST(RankDiscovery, ParseRankRanges) {
  using Ranges = std::vector<std::pair<int, int>>;
  EXPECT_EQ(parse_rank_ranges("0-7,64"), (Ranges{{0, 7}, {64, 64}}));
  EXPECT_EQ(parse_rank_ranges(" 1 , 3-4 "), (Ranges{{1, 1}, {3, 4}}));
  EXPECT_EQ(parse_rank_ranges("2147483647"), (Ranges{{2147483647, 2147483647}}));
  for (const char* bad : {"", "0-7,,64", "-1", "1-", "a", "1-2-3", "2147483648", "+3", "0x4"})
    EXPECT_THROW(parse_rank_ranges(bad), std::invalid_argument) << bad;
  try {
    parse_rank_ranges("0-7,,64");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--ranks \"0-7,,64\": \"\" is not a rank or a range; expected ranks and ranges "
                 "such as 0-7,64.");
  }
  try {
    parse_rank_ranges("7-0");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--ranks \"7-0\": the range \"7-0\" ends before it starts; write it as "
                 "0-7.");
  }
}

TEST(RankDiscovery, RankRangesRestrictFilesAndMissingRanks) {
  TempDir dir;
  for (int rank : {0, 1, 3})
    dir.write("r" + std::to_string(rank) + ".json", trace_with_meta(rank, 4));
  DiscoveryOptions options;
  options.rank_ranges = {{1, 3}};
  const Discovery d = discover_ranks({dir.path().string()}, options);
  EXPECT_EQ(ranks_of(d), (std::vector<std::int32_t>{1, 3}));
  EXPECT_EQ(d.world_size, 4);
  EXPECT_EQ(d.missing_ranks, (std::vector<std::int32_t>{2}));  // 0 is outside --ranks
  EXPECT_EQ(d.notes, (std::vector<std::string>{"--ranks 1-3 keeps 2 of 3 traces."}));
  options.rank_ranges = {{7, 9}, {64, 64}};
  EXPECT_EQ(error_of({dir.path().string()}, options),
            "--ranks 7-9,64 selects none of the 3 traces found.");
}

TEST(RankDiscovery, RankRangesDropADuplicateOutsideThem) {
  TempDir dir;
  dir.write("a.json", trace_with_meta(3, 4));
  dir.write("b.json", trace_with_meta(3, 4));
  dir.write("c.json", trace_with_meta(0, 4));
  DiscoveryOptions options;
  options.rank_ranges = {{0, 0}};
  EXPECT_EQ(ranks_of(discover_ranks({dir.path().string()}, options)),
            (std::vector<std::int32_t>{0}));
}

// ------------------------------------------------------------------------------------------
// Size estimates (§3.1 step 1)

TEST(RankDiscovery, PlainTraceIsItsFileSize) {
  TempDir dir;
  const std::string text = trace_with_meta(0, 1);
  const Discovery d = discover_ranks({dir.write("t.json", text)}, {});
  EXPECT_EQ(d.files[0].file_bytes, text.size());
  EXPECT_EQ(d.files[0].estimated_json_bytes, text.size());
}

TEST(RankDiscovery, GzipEstimateIsIsizeButAtLeastFifteenTimesTheFile) {
  TempDir dir;
  // Compressible: 1 MB of one event repeated shrinks far more than 15x, so ISIZE wins.
  std::string big = R"({"schemaVersion":1,"traceEvents":[)";
  while (big.size() < 1'000'000) big += R"({"ph":"X","name":"k","ts":1,"dur":2},)";
  big += "{}]}";
  const std::string big_gz = gzip(big);
  ASSERT_LT(15 * big_gz.size(), big.size());
  // Tiny: gzip's header and trailer make the file nearly as large as the text, so 15x wins.
  const std::string small_gz = gzip(kTraceWithoutMeta);
  ASSERT_GT(15 * small_gz.size(), kTraceWithoutMeta.size());
  dir.write("rank0.json.gz", big_gz);
  dir.write("rank1.json.gz", small_gz);
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(d.files[0].file_bytes, big_gz.size());
  EXPECT_EQ(d.files[0].estimated_json_bytes, big.size());
  EXPECT_EQ(d.files[1].estimated_json_bytes, 15 * small_gz.size());
}

TEST(RankDiscovery, ZstdEstimateIsTheFrameContentSizeElseTwelveTimesTheFile) {
  TempDir dir;
  const std::string text = trace_with_meta(0, 2);
  const std::string sized = zstd(text, true);
  const std::string unsized = zstd(trace_with_meta(1, 2), false);
  dir.write("a.json.zst", sized);
  dir.write("b.json.zst", unsized);
  const Discovery d = discover_ranks({dir.path().string()}, {});
  EXPECT_EQ(d.files[0].estimated_json_bytes, text.size());
  EXPECT_EQ(d.files[1].estimated_json_bytes, 12 * unsized.size());
}

// ------------------------------------------------------------------------------------------
// Host names (§7.6) and small helpers

TEST(RankDiscovery, HostFromTensorboardTraceHandlerNames) {
  EXPECT_EQ(host_from_trace_file_name("node003_12345.1711964646000.pt.trace.json.gz"), "node003");
  EXPECT_EQ(host_from_trace_file_name("/runs/a_b/node003_12345.1711964646000.pt.trace.json"),
            "node003");
  EXPECT_EQ(host_from_trace_file_name("gpu-7.cluster_a.local_99.17.pt.trace.json"),
            "gpu-7.cluster_a.local");
  EXPECT_EQ(host_from_trace_file_name("rank0.json.gz"), "");
  EXPECT_EQ(host_from_trace_file_name("node003_abc.1711964646000.pt.trace.json"), "");
  EXPECT_EQ(host_from_trace_file_name("node003_12345.pt.trace.json"), "");
  EXPECT_EQ(host_from_trace_file_name("_12345.17.pt.trace.json"), "");
  EXPECT_EQ(host_from_trace_file_name("node003_12345.17.trace.json"), "");
}

TEST(RankDiscovery, RankFileCarriesTheHost) {
  TempDir dir;
  const std::string path =
      dir.write("node003_12345.1711964646000.pt.trace.json.gz", gzip(trace_with_meta(1, 2)));
  const Discovery d = discover_ranks({path}, {});
  EXPECT_EQ(d.files[0].host, "node003");
}

TEST(RankDiscovery, FormatRankSet) {
  EXPECT_EQ(format_rank_set({}), "");
  EXPECT_EQ(format_rank_set({4}), "4");
  EXPECT_EQ(format_rank_set({0, 1, 2, 3, 5, 7, 8, 9}), "0-3, 5, 7-9");
}

TEST(RankDiscovery, BadRankRegexIsAUsageError) {
  EXPECT_THROW(check_rank_regex("rank(\\d+"), std::invalid_argument);
  try {
    check_rank_regex("rank\\d+");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--rank-regex \"rank\\d+\" has no capture group; its first group must capture "
                 "the rank, as in rank_(\\d+).");
  }
  check_rank_regex(std::string(kDefaultRankRegex));
  EXPECT_EQ(rank_source_name(RankSource::kFileName), std::string("filename"));
}

}  // namespace
}  // namespace traceprism::multirank

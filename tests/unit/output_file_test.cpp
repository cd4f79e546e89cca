#include "io/output_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

#include "io/byte_source.hpp"
#include "support/temp_dir.hpp"

using traceprism::io::Compression;
using traceprism::io::OutputFile;

TEST(OutputFile, ReplacesTheTargetOnlyOnCommit) {
  traceprism::testing::TempDir dir;
  const std::string path = dir.write("report.csv", "old contents");
  {
    OutputFile out(path);
    out.write("new contents that never get committed");
    EXPECT_EQ(traceprism::testing::read_file(path), "old contents");
  }  // destroyed without commit: the old file stays, the temporary is gone
  EXPECT_EQ(traceprism::testing::read_file(path), "old contents");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);

  OutputFile out(path);
  out.write("new");
  out.commit();
  EXPECT_EQ(traceprism::testing::read_file(path), "new");
}

TEST(OutputFile, CompressedOutputRoundTrips) {
  traceprism::testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "{\"ph\":\"X\",\"ts\":" + std::to_string(i) + "},";
  for (Compression c : {Compression::kGzip, Compression::kZstd}) {
    OutputFile out(dir.file("t"), c);
    out.write(text);
    out.commit();
    EXPECT_EQ(out.bytes_written(), text.size());
    auto source = traceprism::io::open_byte_source(dir.file("t"));
    EXPECT_EQ(source->compression(), c);
    std::string back(text.size() + 10, '\0');
    std::size_t n = 0, got = 0;
    while ((got = source->read(back.data() + n, back.size() - n)) > 0) n += got;
    back.resize(n);
    EXPECT_EQ(back, text);
    EXPECT_LT(std::filesystem::file_size(dir.file("t")), text.size() / 4);
  }
}

TEST(OutputFile, UnwritableFolderIsAClearError) {
  try {
    OutputFile out("/nonexistent-folder/x.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/x.csv: cannot write output"),
              std::string::npos);
  }
}

// Issue 19, defect 4: renaming over a FIFO, a symlink or a device replaced it with a file.
TEST(OutputFile, OnlyARegularFileIsReplaced) {
  traceprism::testing::TempDir dir;
  const std::string target = dir.write("target.json", "kept");
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0);
  std::filesystem::create_symlink(target, dir.file("link"));
  std::filesystem::create_directory(dir.file("folder"));
  for (const char* name : {"fifo", "link", "folder"}) {
    SCOPED_TRACE(name);
    EXPECT_THROW(OutputFile(dir.file(name)), std::runtime_error);
  }
  EXPECT_TRUE(std::filesystem::is_fifo(dir.file("fifo")));
  EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link")));
  EXPECT_EQ(traceprism::testing::read_file(target), "kept");
  OutputFile regular(target);  // a regular file is replaced as before
  regular.write("new");
  regular.commit();
  EXPECT_EQ(traceprism::testing::read_file(target), "new");
}

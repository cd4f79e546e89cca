#include "io/report_manifest.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "io/json_text.hpp"
#include "io/output_file.hpp"
#include "io/small_file.hpp"

namespace traceprism::io {

namespace fs = std::filesystem;

namespace {

struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint32_t crc32 = 0;
};

std::optional<FileDigest> digest_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  FileDigest d;
  uLong crc = ::crc32(0L, Z_NULL, 0);
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(buffer.data()), static_cast<uInt>(n));
    d.bytes += n;
  }
  if (in.bad()) return std::nullopt;
  d.crc32 = static_cast<std::uint32_t>(crc);
  return d;
}

std::string hex32(std::uint32_t v) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", v);
  return text;
}

// Relative paths of the regular files under dir, the manifest excluded, sorted.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = entry.path().lexically_relative(dir).generic_string();
    if (rel != kReportManifestFile) out.push_back(std::move(rel));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::map<std::string, FileDigest>> read_manifest(const fs::path& dir) {
  const SmallFile file = read_small_file((dir / kReportManifestFile).string(), kMaxSmallFileBytes,
                                         SmallFileRole::kOwnOutput);
  if (file.status != SmallFile::Status::kOk) return std::nullopt;
  boost::json::error_code ec;
  const boost::json::value v = boost::json::parse(file.text, ec);
  const auto* root = ec ? nullptr : v.if_object();
  const auto* files = root && root->contains("files") ? root->at("files").if_array() : nullptr;
  if (!files) return std::nullopt;
  std::map<std::string, FileDigest> out;
  for (const auto& item : *files) {
    const auto* o = item.if_object();
    const auto* path = o && o->contains("path") ? o->at("path").if_string() : nullptr;
    const auto* bytes = o && o->contains("bytes") ? o->at("bytes").if_int64() : nullptr;
    const auto* crc = o && o->contains("crc32") ? o->at("crc32").if_string() : nullptr;
    if (!path || !bytes || !crc) return std::nullopt;
    FileDigest d;
    d.bytes = static_cast<std::uint64_t>(*bytes);
    d.crc32 = static_cast<std::uint32_t>(std::strtoul(crc->c_str(), nullptr, 16));
    out[std::string(*path)] = d;
  }
  return out;
}

}  // namespace

void write_report_manifest(const fs::path& dir) {
  std::string json = "{\n  \"schema\": \"traceprism.report-manifest/1\",\n  \"files\": [";
  bool first = true;
  for (const std::string& rel : files_under(dir)) {
    const std::optional<FileDigest> d = digest_of(dir / rel);
    if (!d) throw std::runtime_error((dir / rel).string() + ": cannot read it back to list it.");
    json += first ? "\n    {\"path\": " : ",\n    {\"path\": ";
    first = false;
    append_json_string(json, rel);
    json +=
        ", \"bytes\": " + std::to_string(d->bytes) + ", \"crc32\": \"" + hex32(d->crc32) + "\"}";
  }
  json += "\n  ]\n}\n";
  write_text_file_atomically((dir / kReportManifestFile).string(), json);
}

std::optional<std::set<std::string>> report_manifest_paths(const fs::path& dir) {
  const auto manifest = read_manifest(dir);
  if (!manifest) return std::nullopt;
  std::set<std::string> out;
  for (const auto& [path, digest] : *manifest) out.insert(path);
  return out;
}

std::vector<ManifestProblem> check_report_manifest(const fs::path& dir) {
  std::vector<ManifestProblem> problems;
  const auto manifest = read_manifest(dir);
  if (!manifest) {
    problems.push_back({kReportManifestFile,
                        "missing or unreadable: the folder was not written whole by one "
                        "traceprism run (reports of earlier versions have none)"});
    return problems;
  }
  for (const auto& [rel, listed] : *manifest) {
    const std::optional<FileDigest> d = digest_of(dir / rel);
    if (!d)
      problems.push_back({rel, "listed in the manifest but missing"});
    else if (d->bytes != listed.bytes || d->crc32 != listed.crc32)
      problems.push_back({rel, "differs from the manifest (" + std::to_string(d->bytes) +
                                   " bytes, CRC-32 " + hex32(d->crc32) + "; listed " +
                                   std::to_string(listed.bytes) + " bytes, " + hex32(listed.crc32) +
                                   "): it comes from another run"});
  }
  for (const std::string& rel : files_under(dir))
    if (!manifest->contains(rel))
      problems.push_back({rel, "not listed in the manifest: it comes from another run"});
  return problems;
}

}  // namespace traceprism::io

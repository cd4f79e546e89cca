#include "ingest/trace_reader.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cctype>
#include <exception>
#include <functional>
#include <memory>

#include "ingest/chunk_pipeline.hpp"
#include "ingest/index_builder.hpp"
#include "ingest/kineto_handler.hpp"
#include "ingest/parallel_reader.hpp"
#include "ingest/top_level_metadata.hpp"
#include "io/input_error.hpp"

namespace traceprism::ingest {

namespace {

std::string describe_parse_error(const boost::json::error_code& ec, std::size_t max_depth) {
  namespace je = boost::json;
  if (ec == je::error::too_deep) {
    return "expected at most " + std::to_string(max_depth) + " levels of nested arrays/objects";
  }
  if (ec == je::error::incomplete) return "expected more JSON text: the document is truncated";
  if (ec == je::error::extra_data) return "expected the end of the JSON document, found more text";
  if (ec == je::error::string_too_large) return "expected strings shorter than 64 MiB";
  if (ec == je::error::key_too_large) return "expected object keys shorter than 1 MiB";
  return "expected valid JSON (" + ec.message() + ")";
}

// What a syntax error at `at` in `chunk` found, where the bytes tell more than "syntax error":
// a byte order mark before the document, or a lone UTF-16 surrogate escape in a string.
std::string describe_syntax_error(const boost::json::error_code& ec, std::string_view chunk,
                                  std::size_t at, bool document_start, std::size_t max_depth) {
  if (ec == boost::json::error::syntax) {
    if (document_start && chunk.substr(at).starts_with("\xEF\xBB\xBF"))
      return "expected JSON, found a UTF-8 byte order mark (EF BB BF) before it; save the file "
             "without one";
    // Boost.JSON stops just after "\\uD8xx".."\\uDFxx" when no escape of the pair follows.
    const std::string_view before = chunk.substr(0, at);
    if (before.size() >= 6) {
      const std::string_view escape = before.substr(before.size() - 6);
      const char high = static_cast<char>(std::tolower(static_cast<unsigned char>(escape[2])));
      const char next = static_cast<char>(std::tolower(static_cast<unsigned char>(escape[3])));
      if (escape.starts_with("\\u") && high == 'd' &&
          std::string_view("89abcdef").find(next) != std::string_view::npos)
        return "expected a valid string, found a lone UTF-16 surrogate escape (" +
               std::string(escape) + " without its pair)";
    }
  }
  return describe_parse_error(ec, max_depth);
}

// Opens the input afresh each time it is called.
using SourceOpener = std::function<std::unique_ptr<io::ByteSource>()>;

TraceFile read_with_threads(const SourceOpener& open, const std::string& name,
                            const ReadOptions& options) {
  std::unique_ptr<io::ByteSource> source = open();
  if (options.threads > 1 && source->size_hint() >= options.parallel_min_bytes) {
    try {
      return read_trace_parallel(*source, name, options);
    } catch (...) {
      // Read again below: one thread gives the same index, or says what is wrong.
    }
    source = open();
  }
  return read_trace(*source, name, options);
}

}  // namespace

TraceFile read_trace(const std::string& path, const ReadOptions& options) {
  if (path == "-") {  // standard input cannot be read twice
    auto source = io::open_byte_source(path);
    TraceFile file = read_trace(*source, "<stdin>", options);
    file.path = path;
    return file;
  }
  return read_with_threads([&] { return io::open_byte_source(path); }, path, options);
}

TraceFile read_trace_bytes(std::string_view bytes, const std::string& name,
                           const ReadOptions& options) {
  return read_with_threads([&] { return io::open_memory_source(bytes, name); }, name, options);
}

TraceFile read_trace(io::ByteSource& source, const std::string& name, const ReadOptions& options) {
  TraceFile result;
  result.path = name;
  result.compression = source.compression();

  IndexBuilder builder(options.strict);
  builder.reserve_for(source.size_hint());
  if (options.keep) builder.keep_only(options.keep);
  boost::json::parse_options parse_options;
  parse_options.max_depth = options.max_depth;
  // Kernel and Python names are sometimes cut mid-character by the profiler; such bytes are
  // kept as they are rather than failing the whole trace (and validation costs ~6% of parsing).
  parse_options.allow_invalid_utf8 = true;
  boost::json::basic_parser<KinetoHandler> parser(parse_options, builder);
  boost::json::error_code ec;

  std::uint64_t json_offset = 0;
  auto fail_at = [&](std::uint64_t offset, const std::string& what) -> io::InputError {
    return io::InputError(name + ": at byte " + std::to_string(offset) +
                          " of the JSON text: " + what + ".");
  };

  try {
    ChunkPipeline pipeline(source, std::max<std::size_t>(options.chunk_bytes, 1));
    for (;;) {
      const Chunk& next = pipeline.next();
      if (next.size == 0) break;
      const std::string_view chunk(next.data.get(), next.size);
      parser.handler().set_chunk(chunk.data(), chunk.size(), json_offset);
      std::size_t used = 0;
      if (!parser.done()) used = parser.write_some(true, chunk.data(), chunk.size(), ec);
      if (ec) {
        if (const DocumentError* doc = parser.handler().error())
          throw fail_at(doc->byte_offset, doc->what);
        throw fail_at(json_offset + used,
                      describe_syntax_error(ec, chunk, used, json_offset == 0, options.max_depth));
      }
      // The document ended inside this chunk: only whitespace may follow it.
      auto rest = chunk.substr(used);
      if (std::size_t junk = rest.find_first_not_of(" \t\r\n"); junk != std::string_view::npos) {
        throw fail_at(json_offset + used + junk,
                      describe_parse_error(boost::json::error::extra_data, 0));
      }
      json_offset += chunk.size();
      if (options.progress) options.progress(pipeline.file_offset(), source.file_size());
    }
    if (json_offset == 0)
      throw io::InputError(name + ": the file is empty; expected a Kineto trace (JSON).");
    if (!parser.done()) parser.write_some(false, nullptr, 0, ec);
    if (ec) {
      if (const DocumentError* doc = parser.handler().error())
        throw fail_at(doc->byte_offset, doc->what);
      throw fail_at(json_offset, describe_parse_error(ec, options.max_depth));
    }
  } catch (const MalformedEvent& bad) {
    throw io::InputError(name + ": event " + std::to_string(bad.event_index) + " (near byte " +
                         std::to_string(bad.byte_offset) + "): " + bad.what + ".");
  }
  if (!parser.handler().saw_trace_events()) {
    throw io::InputError(name + ": expected a top-level \"traceEvents\" array, found none.");
  }

  result.file_bytes = source.file_offset();
  result.json_bytes = json_offset;
  try {
    apply_top_level_metadata(builder.metadata(), parser.handler().device_properties_json(),
                             parser.handler().distributed_info_json());
    result.index = builder.freeze();
  } catch (const MalformedEvent& bad) {
    throw io::InputError(name + ": event " + std::to_string(bad.event_index) + ": " + bad.what +
                         ".");
  }
  return result;
}

}  // namespace traceprism::ingest

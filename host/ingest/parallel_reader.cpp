#include "ingest/parallel_reader.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "index/string_pool.hpp"
#include "ingest/chunk_pipeline.hpp"
#include "ingest/event_splitter.hpp"
#include "ingest/index_builder.hpp"
#include "ingest/kineto_handler.hpp"
#include "ingest/top_level_metadata.hpp"

namespace traceprism::ingest {

namespace {

// What a worker's handler produced for one batch, in order, with the strings it interned in a
// pool of its own. Replayed on the reading thread: each event's strings new to that pool are
// interned into the index's pool just before the event is added, in the order the handler met
// them, which is the order the one-thread reader interns them in. The pool and its ids in the
// index's pool outlive the batch: a string this object met in an earlier batch was interned
// into the index when that batch was replayed, so it is looked up once per batch object, not
// once per batch.
class BatchEvents final : public EventSink {
 public:
  void clear() {
    entries_.clear();
    events_used_ = 0;
  }

  index::StringId intern(std::string_view text) override { return strings_.intern(text); }
  index::TraceMetadata& metadata() override { return unused_metadata_; }
  // The handler fills the batch's next event in place; events_ keeps every one (and its
  // strings' capacity) from batch to batch.
  RawEvent& event_slot(RawEvent&) override {
    if (events_used_ == events_.size()) events_.emplace_back();
    return events_[events_used_];
  }
  void add_event(RawEvent&) override {
    ++events_used_;
    entries_.push_back({false, 0, 0, last_string()});
  }
  void add_non_object(std::uint64_t event_index, std::uint64_t byte_offset) override {
    entries_.push_back({true, event_index, byte_offset, last_string()});
  }

  void replay(IndexBuilder& builder) {
    std::size_t next_event = 0;
    for (const Entry& entry : entries_) {
      while (in_index_.size() <= entry.strings_known)
        in_index_.push_back(builder.intern(strings_.interned_bytes(in_index_.size())));
      if (entry.non_object) {
        builder.add_non_object(entry.event_index, entry.byte_offset);
        continue;
      }
      RawEvent& e = events_[next_event++];
      e.name = in_index_[e.name];
      e.category = in_index_[e.category];
      e.pid.text = in_index_[e.pid.text];
      e.tid.text = in_index_[e.tid.text];
      builder.add_event(e);
    }
  }

 private:
  struct Entry {
    bool non_object;
    std::uint64_t event_index, byte_offset;  // of a non-object
    index::StringId strings_known;           // local ids interned up to this entry
  };
  index::StringId last_string() const { return static_cast<index::StringId>(strings_.size() - 1); }

  std::vector<Entry> entries_;
  std::vector<RawEvent> events_;  // reused from batch to batch, strings' capacity included
  std::size_t events_used_ = 0;
  index::StringPool strings_;                                // local ids
  std::vector<index::StringId> in_index_{index::kNoString};  // by local id
  index::TraceMetadata unused_metadata_;
};

// A run of consecutive elements of traceEvents: their text (with the commas between them), where
// it starts in the JSON, and what parsing it gave.
struct Batch {
  std::string text;
  std::uint64_t text_offset = 0;
  std::uint64_t first_event = 0;
  std::uint64_t elements = 0;
  BatchEvents events;
  bool parsed = false;
  bool done = false;
};

// Parses a batch as the elements of `{"traceEvents":[ ... ]}`, feeding the text in pieces cut
// where the one-thread reader's chunks are cut, so that the handler reports the same
// approximate byte offsets for events without a key of their own.
bool parse_batch(Batch& batch, const ReadOptions& options) {
  static constexpr std::string_view kPrefix = "{\"traceEvents\":[";
  static constexpr std::string_view kSuffix = "]}";
  batch.events.clear();
  boost::json::parse_options parse_options;
  parse_options.max_depth = options.max_depth;
  parse_options.allow_invalid_utf8 = true;
  boost::json::basic_parser<KinetoHandler> parser(parse_options, batch.events);
  KinetoHandler& handler = parser.handler();
  boost::json::error_code ec;
  const std::uint64_t chunk = std::max<std::size_t>(options.chunk_bytes, 1);
  auto feed = [&](std::string_view piece, std::uint64_t offset, bool more) {
    handler.set_chunk(piece.data(), piece.size(), offset, offset - offset % chunk);
    const std::size_t used = parser.write_some(more, piece.data(), piece.size(), ec);
    return !ec && used == piece.size();
  };
  if (!feed(kPrefix, batch.text_offset, true)) return false;
  handler.start_events_at(batch.first_event);
  const std::string_view text = batch.text;
  for (std::size_t at = 0; at < text.size();) {
    const std::uint64_t offset = batch.text_offset + at;
    const std::uint64_t next_cut = (offset / chunk + 1) * chunk;
    const std::size_t size = std::min<std::uint64_t>(text.size() - at, next_cut - offset);
    if (!feed(text.substr(at, size), offset, true)) return false;
    at += size;
  }
  if (!feed(kSuffix, batch.text_offset + text.size(), true) || !parser.done()) return false;
  return handler.next_event_index() == batch.first_event + batch.elements;
}

// Worker threads parsing batches, and the batches in file order for the reading thread.
class BatchPool {
 public:
  BatchPool(unsigned threads, const ReadOptions& options) : options_(options) {
    for (unsigned i = 0; i < 2 * threads; ++i) free_.push_back(std::make_unique<Batch>());
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~BatchPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  BatchPool(const BatchPool&) = delete;
  BatchPool& operator=(const BatchPool&) = delete;

  // An empty batch to fill; replays the oldest batches into `builder` when none is free.
  std::unique_ptr<Batch> take(IndexBuilder& builder) {
    replay_finished(builder);
    while (free_.empty()) replay_oldest(builder);
    std::unique_ptr<Batch> batch = std::move(free_.back());
    free_.pop_back();
    batch->text.clear();
    batch->elements = 0;
    batch->parsed = batch->done = false;
    return batch;
  }

  void submit(std::unique_ptr<Batch> batch) {
    std::lock_guard lock(mutex_);
    queue_.push_back(batch.get());
    in_order_.push_back(std::move(batch));
    changed_.notify_all();
  }

  // Replays, in order, the batches at the front that are parsed already.
  void replay_finished(IndexBuilder& builder) {
    while (!in_order_.empty() && is_done(*in_order_.front())) replay_oldest(builder);
  }
  void replay_all(IndexBuilder& builder) {
    while (!in_order_.empty()) replay_oldest(builder);
  }

 private:
  bool is_done(const Batch& batch) {
    std::lock_guard lock(mutex_);
    return batch.done;
  }

  void replay_oldest(IndexBuilder& builder) {
    std::unique_ptr<Batch> batch = std::move(in_order_.front());
    in_order_.pop_front();
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return batch->done; });
    }
    if (!batch->parsed) throw NotSplittable("a batch of events did not parse on its own");
    batch->events.replay(builder);
    free_.push_back(std::move(batch));
  }

  void work() {
    for (;;) {
      Batch* batch = nullptr;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
        if (stopping_) return;
        batch = queue_.front();
        queue_.pop_front();
      }
      bool parsed = false;
      try {
        parsed = parse_batch(*batch, options_);
      } catch (...) {
        parsed = false;  // the one-thread reader will say what is wrong
      }
      std::lock_guard lock(mutex_);
      batch->parsed = parsed;
      batch->done = true;
      changed_.notify_all();
    }
  }

  const ReadOptions& options_;
  std::vector<std::unique_ptr<Batch>> free_;     // reading thread only
  std::deque<std::unique_ptr<Batch>> in_order_;  // reading thread only
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// The document outside traceEvents' elements: handed to a KinetoHandler of its own, which must
// then see no event (an escaped "traceEvents" key the splitter did not recognise would show one).
class DocumentSink final : public EventSink {
 public:
  explicit DocumentSink(IndexBuilder& builder) : builder_(builder) {}
  index::StringId intern(std::string_view) override {
    unexpected_ = true;
    return index::kNoString;
  }
  index::TraceMetadata& metadata() override { return builder_.metadata(); }
  void add_event(RawEvent&) override { unexpected_ = true; }
  void add_non_object(std::uint64_t, std::uint64_t) override { unexpected_ = true; }
  bool saw_events() const { return unexpected_; }

 private:
  IndexBuilder& builder_;
  bool unexpected_ = false;
};

// Routes the splitter's ranges: the document to its parser, the elements into batches.
class Router final : public EventSplitter::Consumer {
 public:
  Router(IndexBuilder& builder, BatchPool& pool, const ReadOptions& options)
      : builder_(builder),
        pool_(pool),
        batch_bytes_(std::max<std::size_t>(options.batch_bytes, 1)),
        sink_(builder),
        parser_(document_options(options), sink_) {}

  void document(std::string_view text, std::uint64_t offset) override {
    std::size_t used = 0;
    if (!parser_.done()) {
      parser_.handler().set_chunk(text.data(), text.size(), offset);
      used = parser_.write_some(true, text.data(), text.size(), ec_);
      if (ec_) throw NotSplittable("the document did not parse");
    }
    // Once the document has ended, only whitespace may follow it.
    if (text.find_first_not_of(" \t\r\n", used) != std::string_view::npos)
      throw NotSplittable("text follows the document");
  }
  void elements(std::string_view text, std::uint64_t offset) override { append(text, offset); }
  void separator(std::uint64_t offset) override {
    if (batch_ && batch_->text.size() >= batch_bytes_) {
      submit();
      cut_ = true;
    } else {
      append(",", offset);
      ++batch_->elements;
    }
  }
  void array_end() override {
    const bool blank = !batch_ || batch_->text.find_first_not_of(" \t\r\n") == std::string::npos;
    // A blank end after a comma is a trailing comma, which JSON does not allow.
    if (blank && cut_) throw NotSplittable("a comma ends the traceEvents array");
    if (!blank) submit();
    batch_.reset();
    cut_ = false;
  }

  // After the last byte: the document must be complete, every batch replayed.
  void finish() {
    if (!parser_.done()) parser_.write_some(false, nullptr, 0, ec_);
    if (ec_ || !parser_.done()) throw NotSplittable("the document did not parse");
    if (batch_) throw NotSplittable("the traceEvents array did not end");
    pool_.replay_all(builder_);
    if (sink_.saw_events() || !parser_.handler().saw_trace_events())
      throw NotSplittable("traceEvents was not where the splitter found it");
  }
  void replay_finished() { pool_.replay_finished(builder_); }
  const KinetoHandler& document_handler() { return parser_.handler(); }

 private:
  static boost::json::parse_options document_options(const ReadOptions& options) {
    boost::json::parse_options parse_options;
    parse_options.max_depth = options.max_depth;
    parse_options.allow_invalid_utf8 = true;
    return parse_options;
  }

  void append(std::string_view text, std::uint64_t offset) {
    if (!batch_) {
      batch_ = pool_.take(builder_);
      batch_->text_offset = offset;
    }
    if (batch_->text_offset + batch_->text.size() != offset)
      throw NotSplittable("a batch of events is not contiguous");
    batch_->text.append(text);
  }
  void submit() {
    batch_->first_event = next_event_;
    batch_->elements += 1;
    next_event_ += batch_->elements;
    pool_.submit(std::move(batch_));
  }

  IndexBuilder& builder_;
  BatchPool& pool_;
  const std::size_t batch_bytes_;
  std::unique_ptr<Batch> batch_;
  bool cut_ = false;  // the array's last separator ended a batch
  std::uint64_t next_event_ = 0;
  DocumentSink sink_;
  boost::json::basic_parser<KinetoHandler> parser_;
  boost::json::error_code ec_;
};

}  // namespace

TraceFile read_trace_parallel(io::ByteSource& source, const std::string& name,
                              const ReadOptions& options) {
  TraceFile result;
  result.path = name;
  result.compression = source.compression();
  result.parse_threads = std::max(options.threads, 1u);

  IndexBuilder builder(options.strict);
  builder.reserve_for(source.size_hint());
  if (options.keep) builder.keep_only(options.keep);
  std::uint64_t json_offset = 0;
  {
    BatchPool pool(result.parse_threads, options);
    Router router(builder, pool, options);
    EventSplitter splitter;
    ChunkPipeline pipeline(source, std::max<std::size_t>(options.chunk_bytes, 1));
    for (;;) {
      const Chunk& next = pipeline.next();
      if (next.size == 0) break;
      splitter.scan(std::string_view(next.data.get(), next.size), json_offset, router);
      json_offset += next.size;
      router.replay_finished();
      if (options.progress) options.progress(pipeline.file_offset(), source.file_size());
    }
    router.finish();
    const KinetoHandler& document = router.document_handler();
    result.file_bytes = source.file_offset();
    result.json_bytes = json_offset;
    apply_top_level_metadata(builder.metadata(), document.device_properties_json(),
                             document.distributed_info_json());
  }
  result.index = builder.freeze();
  return result;
}

}  // namespace traceprism::ingest

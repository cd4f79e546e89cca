#include "ingest/kineto_handler.hpp"

#include <boost/json/error.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "ingest/time_text.hpp"
#include "io/json_text.hpp"

namespace traceprism::ingest {

namespace {

bool parse_int64(std::string_view text, std::int64_t& out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec == std::errc() && ptr == text.data() + text.size()) return true;
  // Integral values written as doubles ("7.0", "1e3").
  std::string copy(text);
  char* end = nullptr;
  double d = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(d) || d != std::floor(d) ||
      std::fabs(d) > 9.2e18) {
    return false;
  }
  out = static_cast<std::int64_t>(d);
  return true;
}

}  // namespace

bool KinetoHandler::fail(error_code& ec, std::string what) {
  if (error_.what.empty()) error_ = {key_offset_, std::move(what)};
  ec = boost::json::error::exception;
  return false;
}

bool KinetoHandler::number_as_int64(std::string_view text, std::int64_t& out) const {
  if (has_exact_int_) {
    out = exact_int_;
    return true;
  }
  return parse_int64(text, out);
}

bool KinetoHandler::wants_text() const {
  if (stack_.empty()) return true;
  Slot s = stack_.back().slot;
  return s != Slot::kSkip && s != Slot::kEvents;
}

std::string* KinetoHandler::capture_target(Field field) {
  switch (field) {
    case Field::kInputDims:
      return &event_->input_dims;
    case Field::kInputTypes:
      return &event_->input_types;
    case Field::kInputStrides:
      return &event_->input_strides;
    case Field::kConcreteInputs:
      return &event_->concrete_inputs;
    case Field::kGrid:
    case Field::kBlock:
      return &grid_text_;
    case Field::kDeviceProperties:
      return &device_properties_;
    case Field::kDistributedInfo:
      return &distributed_info_;
    default:
      return nullptr;
  }
}

void KinetoHandler::capture_value_prefix(Frame& frame) {
  if (frame.after_key) {  // value right after a key inside a captured object
    frame.after_key = false;
    return;
  }
  if (!frame.first) capture_target(frame.field)->push_back(',');
  frame.first = false;
}

bool KinetoHandler::begin_container(bool is_object, error_code& ec) {
  const char open = is_object ? '{' : '[';
  if (stack_.empty()) {
    if (is_object) {
      stack_.push_back({Slot::kTop});
    } else {
      sink_.metadata().bare_event_array = true;
      saw_trace_events_ = true;
      stack_.push_back({Slot::kEvents});
    }
    return true;
  }
  Frame& top = stack_.back();
  Field field = pending_;
  pending_ = Field::kNone;
  switch (top.slot) {
    case Slot::kTop:
      if (field == Field::kTraceEvents) {
        if (is_object)
          return fail(ec, "expected \"traceEvents\" to be an array of events, got an object");
        saw_trace_events_ = true;
        ++sink_.metadata().trace_events_arrays;
        stack_.push_back({Slot::kEvents});
      } else if (field == Field::kDeviceProperties || field == Field::kDistributedInfo) {
        std::string* target = capture_target(field);
        target->clear();
        target->push_back(open);
        stack_.push_back({Slot::kCapture, true, field, is_object});
      } else {
        stack_.push_back({Slot::kSkip});
      }
      return true;
    case Slot::kEvents:
      if (is_object) {
        event_ = &sink_.event_slot(own_event_);
        event_->reset(next_event_index_++, approximate_offset_);
        event_first_key_ = true;
        stack_.push_back({Slot::kEvent});
      } else {
        sink_.add_non_object(next_event_index_++, approximate_offset_);
        stack_.push_back({Slot::kSkip});
      }
      return true;
    case Slot::kEvent:
      stack_.push_back({field == Field::kArgs && is_object ? Slot::kArgs : Slot::kSkip});
      return true;
    case Slot::kArgs:
      if (std::string* target = capture_target(field); target && !is_object) {
        target->clear();
        target->push_back(open);
        stack_.push_back({Slot::kCapture, true, field, is_object});
      } else {
        stack_.push_back({Slot::kSkip});
      }
      return true;
    case Slot::kCapture: {
      capture_value_prefix(top);
      Field target_field = top.field;
      capture_target(target_field)->push_back(open);
      stack_.push_back({Slot::kCapture, true, target_field, is_object});
      return true;
    }
    case Slot::kSkip:
      stack_.push_back({Slot::kSkip});
      return true;
  }
  return true;
}

bool KinetoHandler::end_container(error_code&) {
  Frame frame = stack_.back();
  stack_.pop_back();
  switch (frame.slot) {
    case Slot::kCapture: {
      capture_target(frame.field)->push_back(frame.is_object ? '}' : ']');
      if (stack_.empty() || stack_.back().slot != Slot::kCapture) finish_capture(frame.field);
      break;
    }
    case Slot::kEvent:
      sink_.add_event(*event_);
      break;
    default:
      break;
  }
  return true;
}

void KinetoHandler::finish_capture(Field field) {
  if (field != Field::kGrid && field != Field::kBlock) return;
  std::int32_t* dst = field == Field::kGrid ? event_->grid : event_->block;
  // grid_text_ is "[x,y,z]"
  std::string_view t(grid_text_);
  std::size_t pos = 1;
  for (int i = 0; i < 3 && pos < t.size(); ++i) {
    std::size_t comma = t.find_first_of(",]", pos);
    if (comma == std::string_view::npos) break;
    std::int64_t v = 0;
    if (parse_int64(t.substr(pos, comma - pos), v)) dst[i] = static_cast<std::int32_t>(v);
    pos = comma + 1;
  }
}

bool KinetoHandler::on_key(string_view s, std::size_t, error_code&) {
  std::uint64_t offset = key_.empty() ? offset_of(s.data()) : key_offset_;
  key_offset_ = offset;
  std::string_view key;
  if (key_.empty()) {
    key = std::string_view(s.data(), s.size());
  } else {
    key_.append(s.data(), s.size());
    key = key_;
  }
  if (stack_.empty()) return true;
  Frame& top = stack_.back();
  switch (top.slot) {
    case Slot::kTop:
      if (key == "traceEvents")
        pending_ = Field::kTraceEvents;
      else if (key == "deviceProperties")
        pending_ = Field::kDeviceProperties;
      else if (key == "distributedInfo")
        pending_ = Field::kDistributedInfo;
      else {
        pending_ = Field::kTopScalar;
        top_key_.assign(key);
      }
      break;
    case Slot::kEvent:
      if (event_first_key_) {
        event_->byte_offset = offset;
        event_first_key_ = false;
      }
      pending_ = event_field(key);
      break;
    case Slot::kArgs:
      pending_ = arg_field(key);
      break;
    case Slot::kCapture: {
      capture_value_prefix(top);
      std::string* target = capture_target(top.field);
      io::append_json_string(*target, key);
      target->push_back(':');
      top.after_key = true;  // the value that follows takes no comma
      break;
    }
    default:
      break;
  }
  key_.clear();
  return true;
}

KinetoHandler::Field KinetoHandler::event_field(std::string_view key) {
  switch (key.size()) {
    case 2:
      if (key == "ph") return Field::kPh;
      if (key == "ts") return Field::kTs;
      if (key == "id") return Field::kId;
      if (key == "bp") return Field::kBp;
      break;
    case 3:
      if (key == "cat") return Field::kCat;
      if (key == "pid") return Field::kPid;
      if (key == "tid") return Field::kTid;
      if (key == "dur") return Field::kDur;
      break;
    case 4:
      if (key == "name") return Field::kName;
      if (key == "args") return Field::kArgs;
      break;
    default:
      break;
  }
  return Field::kNone;
}

KinetoHandler::Field KinetoHandler::arg_field(std::string_view key) {
  struct Entry {
    std::string_view key;
    Field field;
  };
  static constexpr Entry kArgs[] = {
      {"correlation", Field::kCorrelation},
      {"External id", Field::kExternalId},
      {"external id", Field::kLegacyExternalId},
      {"device", Field::kDevice},
      {"stream", Field::kStream},
      {"grid", Field::kGrid},
      {"block", Field::kBlock},
      {"registers per thread", Field::kRegisters},
      {"shared memory", Field::kSharedMemory},
      {"bytes", Field::kBytes},
      {"Input Dims", Field::kInputDims},
      {"Input dims", Field::kInputDims},
      {"Input type", Field::kInputTypes},
      {"Input Strides", Field::kInputStrides},
      {"Concrete Inputs", Field::kConcreteInputs},
      {"Sequence number", Field::kSequenceNumber},
      {"Fwd thread id", Field::kFwdThreadId},
      {"name", Field::kMetaName},
      {"labels", Field::kMetaLabels},
      {"sort_index", Field::kSortIndex},
      {"kind", Field::kCopyKind},
      {"In msg nelems", Field::kInMsgNelems},
      {"Out msg nelems", Field::kOutMsgNelems},
      {"Group size", Field::kGroupSize},
      {"dtype", Field::kCommDtype},
      {"Collective name", Field::kCollectiveName},
      {"Process Group Name", Field::kPgName},
      {"Process Group Description", Field::kPgDescription},
      {"Process Group Ranks", Field::kPgRanks},
      {"In split size", Field::kInSplitSizes},
      {"Out split size", Field::kOutSplitSizes},
      {"Seq", Field::kSeq},
      {"Rank", Field::kGroupRank},
      {"Src Rank", Field::kSrcRank},
      {"Dst Rank", Field::kDstRank},
      {"Global rank start", Field::kGlobalRankStart},
      {"Global rank stride", Field::kGlobalRankStride},
      {"Comms Id", Field::kCommsId},
      {"Is asynchronized op", Field::kAsyncOp},
      {"kernel", Field::kLaunchKernel},
  };
  // kArgs grouped by key length, with where each length starts: a key (every arg of every
  // event comes through here) is compared only with the names of its own length.
  constexpr std::size_t kMaxLength = 25;
  struct ByLength {
    std::array<Entry, std::size(kArgs)> entries{};
    std::array<std::size_t, kMaxLength + 2> first{};
  };
  static constexpr ByLength kByLength = [] {
    ByLength t{};
    std::size_t n = 0;
    for (std::size_t length = 0; length <= kMaxLength; ++length) {
      t.first[length] = n;
      for (const Entry& e : kArgs) {
        if (e.key.size() == length) t.entries[n++] = e;
      }
    }
    t.first[kMaxLength + 1] = n;
    if (n != std::size(kArgs)) throw "an arg name is longer than kMaxLength";
    return t;
  }();
  if (key.size() > kMaxLength) return Field::kNone;
  for (std::size_t i = kByLength.first[key.size()]; i < kByLength.first[key.size() + 1]; ++i) {
    const Entry& e = kByLength.entries[i];
    if (e.key[0] == key[0] && e.key == key) return e.field;
  }
  return Field::kNone;
}

bool KinetoHandler::on_string(string_view s, std::size_t, error_code& ec) {
  std::string_view text(s.data(), s.size());
  if (!text_.empty()) {
    text_.append(s.data(), s.size());
    text = text_;
  }
  bool ok = on_scalar(ScalarType::kString, text, ec);
  text_.clear();
  return ok;
}

bool KinetoHandler::on_number(string_view last_part, error_code& ec) {
  std::string_view text(last_part.data(), last_part.size());
  if (!number_.empty()) {
    number_.append(last_part.data(), last_part.size());
    text = number_;
  }
  bool ok = on_scalar(ScalarType::kNumber, text, ec);
  number_.clear();
  return ok;
}

bool KinetoHandler::on_bool(bool b, error_code& ec) {
  return on_scalar(ScalarType::kBool, b ? "true" : "false", ec);
}

bool KinetoHandler::on_null(error_code& ec) {
  return on_scalar(ScalarType::kNull, "null", ec);
}

namespace {
const char* type_phrase(int type) {
  static const char* const kPhrases[] = {"a string", "a number", "a boolean", "null"};
  return kPhrases[type];
}
}  // namespace

bool KinetoHandler::on_scalar(ScalarType type, std::string_view text, error_code& ec) {
  if (stack_.empty()) {
    return fail(ec, std::string("expected a JSON object with \"traceEvents\", got ") +
                        type_phrase(static_cast<int>(type)));
  }
  Frame& top = stack_.back();
  Field field = pending_;
  pending_ = Field::kNone;
  switch (top.slot) {
    case Slot::kTop:
      if (field == Field::kTraceEvents) {
        return fail(ec, std::string("expected \"traceEvents\" to be an array of events, got ") +
                            type_phrase(static_cast<int>(type)));
      }
      if (field == Field::kTopScalar) sink_.metadata().keys[top_key_] = std::string(text);
      break;
    case Slot::kEvents:
      sink_.add_non_object(next_event_index_++, approximate_offset_);
      break;
    case Slot::kEvent:
      assign_event_field(field, type, text);
      break;
    case Slot::kArgs:
      assign_arg(field, type, text);
      break;
    case Slot::kCapture: {
      capture_value_prefix(top);
      std::string* target = capture_target(top.field);
      if (type == ScalarType::kString)
        io::append_json_string(*target, text);
      else
        target->append(text);
      break;
    }
    case Slot::kSkip:
      break;
  }
  return true;
}

void KinetoHandler::assign_event_field(Field field, ScalarType type, std::string_view text) {
  const bool is_string = type == ScalarType::kString;
  switch (field) {
    case Field::kPh:
      event_->phase = is_string && text.size() == 1 ? text[0] : '?';
      break;
    case Field::kCat:
      if (is_string) event_->category = sink_.intern(text);
      break;
    case Field::kName:
      if (is_string) event_->name = sink_.intern(text);
      break;
    case Field::kPid:
    case Field::kTid: {
      IdField& id = field == Field::kPid ? event_->pid : event_->tid;
      if (is_string) {
        id = {IdField::State::kString, 0, sink_.intern(text)};
      } else if (type == ScalarType::kNumber && number_as_int64(text, id.number)) {
        id.state = IdField::State::kNumber;
      } else {
        id.state = IdField::State::kBad;
      }
      break;
    }
    case Field::kTs:
    case Field::kDur: {
      TimeField& t = field == Field::kTs ? event_->ts : event_->dur;
      if (type != ScalarType::kNumber) {
        t.state = TimeField::State::kWrongType;
        t.wrong_type = type_phrase(static_cast<int>(type));
        break;
      }
      constexpr std::int64_t kLimitUs = kTimeLimitNs / 1000;
      if (has_exact_int_ && exact_int_ >= -kLimitUs && exact_int_ <= kLimitUs) {
        t.ns = exact_int_ * 1000;  // what the text's conversion gives, without reading it again
        t.state = TimeField::State::kValue;
        break;
      }
      switch (microseconds_text_to_ns(text, t.ns)) {
        case TimeParse::kOk:
          t.state = TimeField::State::kValue;
          break;
        case TimeParse::kRounded:
          t.state = TimeField::State::kRounded;
          std::from_chars(text.data(), text.data() + text.size(), t.us);
          break;
        case TimeParse::kNotANumber:
        case TimeParse::kOutOfRange:
          t.state = TimeField::State::kOutOfRange;
          break;
      }
      break;
    }
    case Field::kId:
      if (type == ScalarType::kNumber) {
        event_->has_flow_id = number_as_int64(text, event_->flow_id);
      } else if (is_string) {
        // Chrome's format allows string ids ("0x1f"); accept integral ones.
        int base =
            text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') ? 16 : 10;
        std::string_view digits = base == 16 ? text.substr(2) : text;
        auto [ptr, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), event_->flow_id, base);
        event_->has_flow_id = ec == std::errc() && ptr == digits.data() + digits.size();
      }
      break;
    case Field::kBp:
      event_->binding_enclosing = is_string && text == "e";
      break;
    default:
      break;
  }
}

void KinetoHandler::assign_arg(Field field, ScalarType type, std::string_view text) {
  if (type == ScalarType::kString) {
    if (field == Field::kMetaName) {
      event_->meta_name.assign(text);
      event_->has_meta_name = true;
    } else if (field == Field::kMetaLabels) {
      event_->meta_labels.assign(text);
      event_->has_meta_labels = true;
    } else if (field == Field::kCopyKind) {
      event_->copy_kind.assign(text);
    } else if (field == Field::kCommDtype) {
      event_->comm_dtype.assign(text);
    } else if (field == Field::kCollectiveName) {
      event_->collective_name.assign(text);
    } else if (field == Field::kPgName) {
      event_->pg_name.assign(text);
    } else if (field == Field::kPgDescription) {
      event_->pg_description.assign(text);
    } else if (field == Field::kPgRanks) {
      event_->pg_ranks.assign(text);
    } else if (field == Field::kInSplitSizes) {
      event_->in_split_sizes.assign(text);
    } else if (field == Field::kOutSplitSizes) {
      event_->out_split_sizes.assign(text);
    } else if (field == Field::kLaunchKernel) {
      event_->launch_kernel.assign(text);
    }
    return;
  }
  if (field == Field::kAsyncOp && type != ScalarType::kNull) {
    event_->async_op = (text == "true" || text == "1") ? 1 : 0;
    return;
  }
  if (type != ScalarType::kNumber) return;
  if (field == Field::kCommsId) {
    // A 64-bit hash PyTorch prints unsigned; it may not fit int64.
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), event_->comms_id);
    if (ec != std::errc() || ptr != text.data() + text.size()) event_->comms_id = 0;
    return;
  }
  // Integer args and the RawEvent member each one fills.
  struct IntegerArg {
    Field field;
    std::int64_t RawEvent::*member;
  };
  static constexpr IntegerArg kIntegerArgs[] = {
      {Field::kCorrelation, &RawEvent::correlation},
      {Field::kExternalId, &RawEvent::external_id},
      {Field::kDevice, &RawEvent::device},
      {Field::kStream, &RawEvent::stream},
      {Field::kRegisters, &RawEvent::registers_per_thread},
      {Field::kSharedMemory, &RawEvent::shared_memory},
      {Field::kBytes, &RawEvent::bytes},
      {Field::kSequenceNumber, &RawEvent::sequence_number},
      {Field::kFwdThreadId, &RawEvent::fwd_thread_id},
      {Field::kSortIndex, &RawEvent::sort_index},
      {Field::kInMsgNelems, &RawEvent::in_msg_nelems},
      {Field::kOutMsgNelems, &RawEvent::out_msg_nelems},
      {Field::kGroupSize, &RawEvent::group_size},
      {Field::kSeq, &RawEvent::seq},
      {Field::kGroupRank, &RawEvent::group_rank},
      {Field::kSrcRank, &RawEvent::src_rank},
      {Field::kDstRank, &RawEvent::dst_rank},
      {Field::kGlobalRankStart, &RawEvent::global_rank_start},
      {Field::kGlobalRankStride, &RawEvent::global_rank_stride},
  };
  // The same, indexed by field (an integer arg is looked up for every GPU event).
  static constexpr auto kMemberOf = [] {
    std::array<std::int64_t RawEvent::*, static_cast<std::size_t>(Field::kTopScalar) + 1> m{};
    for (const IntegerArg& arg : kIntegerArgs) m[static_cast<std::size_t>(arg.field)] = arg.member;
    return m;
  }();
  std::int64_t* target = nullptr;
  if (field == Field::kLegacyExternalId) {
    // "external id" (PyTorch <= 1.9) only when "External id" did not come first.
    if (event_->external_id == index::kNoId) {
      target = &event_->external_id;
      event_->legacy_external_id = true;
    }
  } else {
    if (std::int64_t RawEvent::*member = kMemberOf[static_cast<std::size_t>(field)])
      target = &(event_->*member);
  }
  if (target) {
    std::int64_t v = 0;
    if (number_as_int64(text, v)) *target = v;
  }
}

}  // namespace traceprism::ingest

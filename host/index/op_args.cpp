#include "index/op_args.hpp"

#include <charconv>

namespace traceprism::index {

namespace {

// Minimal cursor over the canonical compact JSON the reader writes (no whitespace).
struct Cursor {
  std::string_view s;
  std::size_t pos = 0;

  bool eat(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool peek(char c) const { return pos < s.size() && s[pos] == c; }
  bool integer(std::int64_t& out) {
    const char* begin = s.data() + pos;
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), out);
    if (ec != std::errc()) return false;
    pos += static_cast<std::size_t>(ptr - begin);
    return true;
  }
};

}  // namespace

bool InputShapes::parse(std::string_view json) {
  dims_.clear();
  tensors_.clear();
  args_.clear();
  Cursor c{json};
  auto fail = [this] {
    dims_.clear();
    tensors_.clear();
    args_.clear();
    return false;
  };
  // One shape: [d0,d1,...] (the opening bracket already consumed).
  auto parse_shape = [&]() -> bool {
    Tensor t{static_cast<std::uint32_t>(dims_.size()), 0};
    if (!c.eat(']')) {
      do {
        std::int64_t d = 0;
        if (!c.integer(d)) return false;
        dims_.push_back(d);
        ++t.rank;
      } while (c.eat(','));
      if (!c.eat(']')) return false;
    }
    tensors_.push_back(t);
    return true;
  };

  if (!c.eat('[')) return fail();
  if (c.eat(']')) return c.pos == json.size() || fail();
  do {
    if (!c.eat('[')) return fail();
    Arg arg{static_cast<std::uint32_t>(tensors_.size()), 0, false};
    if (c.eat(']')) {
      args_.push_back(arg);  // scalar or None
      continue;
    }
    if (c.peek('[')) {  // TensorList: a list of shapes
      arg.is_list = true;
      do {
        if (!c.eat('[') || !parse_shape()) return fail();
        ++arg.tensor_count;
      } while (c.eat(','));
      if (!c.eat(']')) return fail();
    } else {
      if (!parse_shape()) return fail();
      arg.tensor_count = 1;
    }
    args_.push_back(arg);
  } while (c.eat(','));
  if (!c.eat(']') || c.pos != json.size()) return fail();
  return true;
}

std::vector<std::string> parse_string_list(std::string_view json) {
  std::vector<std::string> out;
  std::size_t i = 0;
  if (json.empty() || json[0] != '[') return out;
  ++i;
  while (i < json.size()) {
    char ch = json[i];
    if (ch == '"') {
      std::string value;
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) {
          char e = json[++i];
          switch (e) {
            case 'n':
              value += '\n';
              break;
            case 't':
              value += '\t';
              break;
            case 'r':
              value += '\r';
              break;
            case 'b':
              value += '\b';
              break;
            case 'f':
              value += '\f';
              break;
            case 'u': {
              // Canonical text only escapes control characters this way.
              unsigned code = 0;
              std::from_chars(json.data() + i + 1, json.data() + std::min(i + 5, json.size()), code,
                              16);
              value += static_cast<char>(code);
              i += 4;
              break;
            }
            default:
              value += e;
          }
        } else {
          value += json[i];
        }
      }
      out.push_back(std::move(value));
      ++i;
    } else if (ch == ',' || ch == ']') {
      ++i;
    } else {
      // A non-string element (number, null, nested list): keep its text as written.
      std::size_t start = i;
      int depth = 0;
      while (i < json.size() && !(depth == 0 && (json[i] == ',' || json[i] == ']'))) {
        if (json[i] == '[') ++depth;
        if (json[i] == ']') --depth;
        ++i;
      }
      out.emplace_back(json.substr(start, i - start));
    }
  }
  return out;
}

}  // namespace traceprism::index

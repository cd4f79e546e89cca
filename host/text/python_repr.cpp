#include "text/python_repr.hpp"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "text/python_format.hpp"

namespace traceprism::text {

namespace {

// A recursive printer over the reader's canonical JSON (whitespace tolerated). On malformed
// input it reports failure and the caller falls back to the text as written.
class ReprPrinter {
 public:
  ReprPrinter(std::string_view json, bool lists_as_tuples)
      : json_(json), lists_as_tuples_(lists_as_tuples) {}

  bool print_top(std::string& out) {
    skip_space();
    // str() of a bare string is the string itself; everything else prints as its repr.
    if (peek() == '"') {
      std::string text;
      if (!parse_string(text)) return false;
      out += text;
    } else if (!print_value(out, lists_as_tuples_)) {
      return false;
    }
    skip_space();
    return pos_ == json_.size();
  }

 private:
  char peek() const { return pos_ < json_.size() ? json_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < json_.size() && (json_[pos_] == ' ' || json_[pos_] == '\n' ||
                                   json_[pos_] == '\t' || json_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool eat_word(std::string_view word) {
    if (json_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool print_value(std::string& out, bool tuples) {
    skip_space();
    switch (peek()) {
      case '[':
        return print_list(out, tuples);
      case '{':
        return print_object(out);
      case '"': {
        std::string text;
        if (!parse_string(text)) return false;
        out += python_string_repr(text);
        return true;
      }
      case 't':
        out += "True";
        return eat_word("true");
      case 'f':
        out += "False";
        return eat_word("false");
      case 'n':
        out += "None";
        return eat_word("null");
      default:
        return print_number(out);
    }
  }

  bool print_list(std::string& out, bool tuples) {
    ++pos_;  // [
    out += tuples ? '(' : '[';
    std::size_t count = 0;
    if (!eat(']')) {
      do {
        if (count++) out += ", ";
        if (!print_value(out, tuples)) return false;
      } while (eat(','));
      if (!eat(']')) return false;
    }
    if (tuples && count == 1) out += ',';  // (512,)
    out += tuples ? ')' : ']';
    return true;
  }

  bool print_object(std::string& out) {
    ++pos_;  // {
    out += '{';
    std::size_t count = 0;
    if (!eat('}')) {
      do {
        if (count++) out += ", ";
        skip_space();
        std::string key;
        if (peek() != '"' || !parse_string(key) || !eat(':')) return false;
        out += python_string_repr(key);
        out += ": ";
        if (!print_value(out, /*tuples=*/false)) return false;
      } while (eat(','));
      if (!eat('}')) return false;
    }
    out += '}';
    return true;
  }

  // JSON integers stay Python ints (digits as written); numbers with a fraction or exponent
  // are Python floats and print with float repr. json.loads also accepts NaN and Infinity.
  bool print_number(std::string& out) {
    for (const auto& [token, repr] :
         {std::pair{"NaN", "nan"}, std::pair{"Infinity", "inf"}, std::pair{"-Infinity", "-inf"}}) {
      if (eat_word(token)) {
        out += repr;
        return true;
      }
    }
    const std::size_t start = pos_;
    bool is_float = false;
    while (pos_ < json_.size()) {
      const char c = json_[pos_];
      if (c == '.' || c == 'e' || c == 'E') {
        is_float = true;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
      ++pos_;
    }
    const std::string text(json_.substr(start, pos_ - start));
    if (text.empty() || text == "-") return false;
    if (is_float) {
      out += python_float_repr(std::strtod(text.c_str(), nullptr));
    } else if (text.find_first_not_of("-0") == std::string::npos) {
      out += '0';  // int("-0") is 0
    } else {
      out += text;
    }
    return true;
  }

  bool parse_string(std::string& text) {
    ++pos_;  // opening quote
    while (pos_ < json_.size() && json_[pos_] != '"') {
      if (json_[pos_] != '\\') {
        text += json_[pos_++];
        continue;
      }
      if (++pos_ >= json_.size()) return false;
      const char e = json_[pos_++];
      switch (e) {
        case 'n':
          text += '\n';
          break;
        case 't':
          text += '\t';
          break;
        case 'r':
          text += '\r';
          break;
        case 'b':
          text += '\b';
          break;
        case 'f':
          text += '\f';
          break;
        case 'u':
          if (!parse_unicode_escape(text)) return false;
          break;
        default:
          text += e;  // \" \\ \/
      }
    }
    if (pos_ >= json_.size()) return false;
    ++pos_;  // closing quote
    return true;
  }

  bool read_hex4(std::uint32_t& value) {
    if (pos_ + 4 > json_.size()) return false;
    value = static_cast<std::uint32_t>(
        std::strtoul(std::string(json_.substr(pos_, 4)).c_str(), nullptr, 16));
    pos_ += 4;
    return true;
  }

  bool parse_unicode_escape(std::string& text) {
    std::uint32_t cp = 0;
    if (!read_hex4(cp)) return false;
    if (cp >= 0xd800 && cp <= 0xdbff && json_.substr(pos_, 2) == "\\u") {
      const std::size_t save = pos_;
      pos_ += 2;
      std::uint32_t low = 0;
      if (read_hex4(low) && low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      } else {
        pos_ = save;
      }
    }
    append_utf8(text, cp);
    return true;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string_view json_;
  std::size_t pos_ = 0;
  bool lists_as_tuples_;
};

std::string python_str(std::string_view canonical_json, bool lists_as_tuples) {
  if (canonical_json.empty()) return "None";
  std::string out;
  ReprPrinter printer(canonical_json, lists_as_tuples);
  if (!printer.print_top(out)) return std::string(canonical_json);
  return out;
}

}  // namespace

std::string python_tuple_repr(std::string_view canonical_json) {
  return python_str(canonical_json, /*lists_as_tuples=*/true);
}

std::string python_list_repr(std::string_view canonical_json) {
  return python_str(canonical_json, /*lists_as_tuples=*/false);
}

std::string python_string_list_repr(const std::vector<std::string_view>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += python_string_repr(items[i]);
  }
  return out + "]";
}

namespace {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

}  // namespace

std::string_view intern_report_text(std::string_view text) {
  // Never destroyed: views handed out stay valid during static destruction too.
  static std::mutex* mutex = new std::mutex;
  static auto* texts = new std::unordered_set<std::string, TextHash, std::equal_to<>>;
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = texts->find(text);
  if (it == texts->end()) it = texts->emplace(text).first;
  return *it;  // set nodes never move, so the view stays valid
}

std::string_view ArgReprCache::tuple_repr(index::StringId id) {
  auto [it, fresh] = tuples_.try_emplace(id);
  if (fresh)
    it->second = intern_report_text(id == index::kNoString ? std::string("None")
                                                           : python_tuple_repr(strings_.view(id)));
  return it->second;
}

std::string_view ArgReprCache::list_repr(index::StringId id) {
  auto [it, fresh] = lists_.try_emplace(id);
  if (fresh)
    it->second = intern_report_text(id == index::kNoString ? std::string()
                                                           : python_list_repr(strings_.view(id)));
  return it->second;
}

}  // namespace traceprism::text

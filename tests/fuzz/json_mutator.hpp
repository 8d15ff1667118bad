// JsonMutator: deterministic, structure-aware corruption of JSON text for decoder fuzz tests.
//
// Seeded std::mt19937, so a failing mutant is reproducible from the seed and iteration alone.
// Mutations mix blind byte damage (flips, inserts, deletes, truncation, splicing two samples) with
// JSON-aware damage that gets past the parser into the decoder's shape checks (huge / negative /
// fractional numbers, non-UTF-8 strings, duplicate keys, wrong value types, deep nesting).
//
//   json_fuzz::JsonMutator mutator(json_fuzz::kSeed, {sample_a, sample_b});
//   for (std::size_t i = 0; i < json_fuzz::iterations(2000); ++i) decode(mutator.mutate());
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace json_fuzz {

inline constexpr std::uint32_t kSeed = 0x5EED'2024;

// `fallback`, or WHIZBANG_FUZZ_ITERATIONS when it is set to a positive number (longer runs).
inline std::size_t iterations(std::size_t fallback) {
  const char* text = std::getenv("WHIZBANG_FUZZ_ITERATIONS");
  if (text == nullptr) return fallback;
  const unsigned long long value = std::strtoull(text, nullptr, 10);
  return value > 0 ? static_cast<std::size_t>(value) : fallback;
}

// Where the value of each object member starts (the byte after `":`), in document order. Meant
// for well-formed samples; on damaged text it still returns in-bounds offsets.
inline std::vector<std::size_t> member_value_offsets(std::string_view json) {
  std::vector<std::size_t> offsets;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (i + 1 < json.size() && json[i + 1] == ':') offsets.push_back(i + 2);
      }
    } else if (c == '"') {
      in_string = true;
    }
  }
  return offsets;
}

// One past the end of the JSON value starting at `start` (a string, a bracketed value or a bare
// token); clamped to the text's end when the value is unterminated.
inline std::size_t value_end(std::string_view json, std::size_t start) {
  std::size_t i = start;
  if (i >= json.size()) return json.size();
  if (json[i] == '"') {
    for (++i; i < json.size(); ++i) {
      if (json[i] == '\\') {
        ++i;
      } else if (json[i] == '"') {
        return i + 1;
      }
    }
    return json.size();
  }
  if (json[i] == '{' || json[i] == '[') {
    int depth = 0;
    bool in_string = false;
    for (; i < json.size(); ++i) {
      const char c = json[i];
      if (in_string) {
        if (c == '\\') ++i;
        if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return json.size();
  }
  while (i < json.size() && json[i] != ',' && json[i] != '}' && json[i] != ']') ++i;
  return i;
}

// `json` with the member value starting at `start` replaced by `with`.
inline std::string replace_value(std::string_view json, std::size_t start, std::string_view with) {
  std::string out(json.substr(0, start));
  out += with;
  out += json.substr(value_end(json, start));
  return out;
}

// Values of every JSON type, and numbers at the edges a decoder must range-check.
inline const std::vector<std::string>& replacement_values() {
  static const std::vector<std::string> values = {
      "null", "true", "false", "0", "-1", "1.5", "-0", "1e400", "-1e-400", "9223372036854775807",
      "-9223372036854775808", "18446744073709551615", "99999999999999999999999", "\"\"", "\"x\"",
      "[]", "[1,\"a\"]", "{}", "{\"a\":1}",
      // Non-UTF-8 and escape edge cases: overlong NUL, lone surrogates, raw high bytes.
      "\"\xC0\x80\"", "\"\xFF\xFE\"", "\"\xED\xA0\x80\"", "\"\\u0000\"", "\"\\uD800\"",
      "\"\\uDC00x\"", "\"\\uD83D\\uDE00\""};
  return values;
}

// `count` '[' characters, or a balanced array that deep when `closed`.
inline std::string deep_array(std::size_t count, bool closed) {
  std::string out(count, '[');
  if (closed) out.append(count, ']');
  return out;
}

class JsonMutator {
 public:
  JsonMutator(std::uint32_t seed, std::vector<std::string> samples)
      : random_(seed), samples_(std::move(samples)) {}

  // A random sample with one to three random mutations applied.
  std::string mutate() { return mutate(samples_[pick(samples_.size())]); }

  std::string mutate(std::string json) {
    const std::size_t rounds = 1 + pick(3);
    for (std::size_t round = 0; round < rounds; ++round) json = mutate_once(std::move(json));
    return json;
  }

 private:
  std::size_t pick(std::size_t bound) {
    return bound == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, bound - 1)(random_);
  }
  char any_byte() { return static_cast<char>(pick(256)); }
  // A byte that matters to a JSON parser more often than a random one would.
  char structural_byte() {
    static constexpr std::string_view kBytes = "{}[]:,\"\\-+.0123456789eEtfn \t\n\x7F\x80\xFF";
    return pick(2) == 0 ? kBytes[pick(kBytes.size())] : any_byte();
  }

  std::string mutate_once(std::string json) {
    const std::size_t at = pick(json.size() + 1);
    const std::vector<std::size_t> values = member_value_offsets(json);
    switch (pick(10)) {
      case 0:  // flip one bit
        if (!json.empty()) json[at % json.size()] ^= static_cast<char>(1u << pick(8));
        return json;
      case 1:  // insert a byte
        json.insert(json.begin() + static_cast<std::ptrdiff_t>(at), structural_byte());
        return json;
      case 2:  // delete a short run of bytes
        if (!json.empty()) json.erase(at % json.size(), 1 + pick(8));
        return json;
      case 3:  // truncate
        json.resize(at);
        return json;
      case 4: {  // splice: this prefix, another sample's suffix
        const std::string& other = samples_[pick(samples_.size())];
        return json.substr(0, at) + other.substr(pick(other.size() + 1));
      }
      case 5:  // a member's value becomes another type, an edge number or a bad string
      case 6:
        if (values.empty()) return json;
        return replace_value(json, values[pick(values.size())],
                             replacement_values()[pick(replacement_values().size())]);
      case 7: {  // duplicate a member, with a different value, right after its object opens
        if (values.empty()) return json;
        // values[i] - 2 is the key's closing quote, so its opening quote is before that.
        const std::size_t value = values[pick(values.size())];
        const std::size_t key_start = value < 3 ? std::string::npos : json.rfind('"', value - 3);
        if (key_start == std::string::npos) return json;
        const std::size_t open = json.rfind('{', key_start);
        if (open == std::string::npos) return json;
        const std::string key = json.substr(key_start, value - key_start);
        const std::string& other = replacement_values()[pick(replacement_values().size())];
        return json.insert(open + 1, key + other + ",");
      }
      case 8: {  // deep nesting as a member's value, balanced (parses) or not (parse error)
        if (values.empty()) return json;
        // Mostly shallow enough to stay fast; now and then deep enough to overflow a recursive
        // parser's stack.
        const std::size_t depth = pick(16) == 0 ? 100'000 : 1 + pick(1'000);
        return replace_value(json, values[pick(values.size())], deep_array(depth, pick(2) == 0));
      }
      default:  // duplicate a run of bytes in place
        if (json.empty()) return json;
        return json.insert(at, json.substr(pick(json.size()), 1 + pick(32)));
    }
  }

  std::mt19937 random_;
  std::vector<std::string> samples_;
};

}  // namespace json_fuzz

// One parse per envelope per worker cycle.
//
// A message's envelope text is read several times on one thread in one cycle: the inbox reads
// its routing fields when it arrives, the claim splits an event into its stored parts, and the
// handling reads the whole envelope; the outbox drain splits and reads it too. Parsing was a
// third of the per-message work (docs/guide/13-rabbitmq.md, "What it costs"), most of it these
// repeats.
//
// While an EnvelopeParseMemo is open on a thread, parsed_envelope() keeps each document it parses
// and answers the same text again from it. The memo is the cycle's: it is emptied when the
// outermost one closes, so nothing outlives the cycle. It keeps at most kMaxDocuments documents,
// of texts no longer than kMaxTextBytes each and kMaxKeptTextBytes together (a cycle of large
// envelopes must not hold them all); beyond that it parses as if no memo were open. A document
// is read only, so sharing it changes no reader's result.
//
//   const EnvelopeParseMemo memo;  // a worker cycle
//   ...
//   rapidjson::Document scratch;
//   internal::BoundedParseResult result;
//   const rapidjson::Document* document = parsed_envelope(json, scratch, result);
//   if (document == nullptr) return error(describe_parse_error(result));
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string_view>

#include "whizbang/internal/bounded_json.hpp"

namespace whizbang {

class EnvelopeParseMemo {
 public:
  static constexpr std::size_t kMaxDocuments = 1024;
  static constexpr std::size_t kMaxTextBytes = 64 * 1024;
  static constexpr std::size_t kMaxKeptTextBytes = 4 * 1024 * 1024;

  EnvelopeParseMemo();
  ~EnvelopeParseMemo();
  EnvelopeParseMemo(const EnvelopeParseMemo&) = delete;
  EnvelopeParseMemo& operator=(const EnvelopeParseMemo&) = delete;
};

// The document of `json` as parse_bounded() reads it: from this thread's open memo when the same
// text was parsed in it, else parsed now (into the memo when one is open, else into `scratch`).
// nullptr when the text does not parse; `result` then says where and why.
const rapidjson::Document* parsed_envelope(std::string_view json, rapidjson::Document& scratch,
                                           internal::BoundedParseResult& result);

}  // namespace whizbang

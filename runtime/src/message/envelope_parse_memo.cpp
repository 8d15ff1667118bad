#include "whizbang/message/envelope_parse_memo.hpp"

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang {
namespace {

// A kept document allocates from a pool of its own with small chunks: rapidjson's default first
// chunk is 64 KiB, and an envelope's document needs a few.
struct KeptDocument {
  static constexpr std::size_t kChunkBytes = 8 * 1024;
  rapidjson::MemoryPoolAllocator<> pool{kChunkBytes};
  rapidjson::Document document{&pool};
};

struct Memo {
  int open = 0;  // nested memos share the outermost one's documents
  std::size_t kept_text_bytes = 0;
  absl::flat_hash_map<std::string, std::unique_ptr<KeptDocument>> documents;
};

Memo& this_threads_memo() {
  thread_local Memo memo;
  return memo;
}

}  // namespace

EnvelopeParseMemo::EnvelopeParseMemo() { ++this_threads_memo().open; }

EnvelopeParseMemo::~EnvelopeParseMemo() {
  Memo& memo = this_threads_memo();
  if (--memo.open == 0) {
    memo.documents.clear();
    memo.kept_text_bytes = 0;
  }
}

const rapidjson::Document* parsed_envelope(std::string_view json, rapidjson::Document& scratch,
                                           internal::BoundedParseResult& result) {
  Memo& memo = this_threads_memo();
  const bool kept = memo.open > 0 && json.size() <= EnvelopeParseMemo::kMaxTextBytes;
  if (kept) {
    if (auto found = memo.documents.find(internal::absl_view(json));
        found != memo.documents.end()) {
      result = {};
      return &found->second->document;
    }
  }
  if (!kept || memo.documents.size() >= EnvelopeParseMemo::kMaxDocuments ||
      memo.kept_text_bytes + json.size() > EnvelopeParseMemo::kMaxKeptTextBytes) {
    result = internal::parse_bounded(json, scratch);
    return result.IsError() ? nullptr : &scratch;
  }
  auto kept_document = std::make_unique<KeptDocument>();
  result = internal::parse_bounded(json, kept_document->document);
  if (result.IsError()) return nullptr;
  memo.kept_text_bytes += json.size();
  return &memo.documents.emplace(std::string(json), std::move(kept_document))
              .first->second->document;
}

}  // namespace whizbang

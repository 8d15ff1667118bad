// What must hold after an inbox took any delivered batch (docs/guide/16-security.md, "What a
// sender on the broker can and cannot do"), for the delivery-path fuzzers: the mutation test
// (delivery_fuzz_test.cpp, every backend) and the libFuzzer target
// (libfuzzer/delivery_path_fuzzer.cpp).
//
// - The store took the batch: a store that is up never sends a delivered batch back.
// - A refused message holds no inbox row under the id it claims.
// - An admitted message is stored under its id, as clean text (valid UTF-8, no control
//   character in its type), with an envelope whose id is that id.
// - Every dead letter, refused or not, is valid UTF-8 text.
// - The worker's next cycle handles or dead-letters what is stored, without failing.
//
//   const DeliveryOutcome outcome = worker.receive(batch);
//   std::string broken = delivery_oracle::violation(store, worker, batch, outcome);
//   EXPECT_EQ(broken, "");
#pragma once

#include <rapidjson/document.h>

#include <set>
#include <span>
#include <string>

#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/store/store_reader.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/workers/inbox_worker.hpp"

namespace delivery_oracle {

inline bool clean_text(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return false;
  }
  return whizbang::internal::valid_utf8(text);
}

// "" when every property above holds after `worker` answered `outcome` to `batch`; else what
// broke. Runs one cycle of `worker`.
inline std::string violation(whizbang::WorkStore& store, whizbang::InboxWorker& worker,
                             std::span<const whizbang::TransportMessage> batch,
                             const whizbang::DeliveryOutcome& outcome) {
  if (!outcome.ok())
    return "the store was up, yet the batch came back: " + std::string(outcome.status.message());
  std::set<std::size_t> refused;
  for (const whizbang::RefusedDelivery& refusal : outcome.refused) {
    if (refusal.index >= batch.size()) return "a refusal names no delivered message";
    if (!clean_text(refusal.reason)) return "a refusal's reason is not clean text";
    refused.insert(refusal.index);
  }
  whizbang::StoreReader* reader = whizbang::reader_of(store);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto row = reader->find_inbox_row(batch[i].message_id);
    if (!row.ok()) return "reading a row failed: " + std::string(row.status().message());
    if (refused.contains(i)) {
      // A copy of an earlier admitted message may share its id: only a first sight is checked.
      bool seen_before = false;
      for (std::size_t j = 0; j < i; ++j) {
        seen_before |= batch[j].message_id == batch[i].message_id && !refused.contains(j);
      }
      if (row->has_value() && !seen_before) return "a refused message took its id's slot";
      continue;
    }
    if (!row->has_value()) continue;  // refused and kept by the inbox itself, or handled
    const whizbang::InboxMessage& stored = (*row)->message;
    if (!clean_text(stored.message_type)) return "a stored type is not clean text";
    rapidjson::Document document;
    if (whizbang::internal::parse_bounded(stored.envelope_json, document).IsError() ||
        !document.IsObject() || !document.HasMember("id") || !document["id"].IsString()) {
      return "a stored envelope does not parse";
    }
    const auto envelope_id = whizbang::Uuid::parse(
        std::string_view(document["id"].GetString(), document["id"].GetStringLength()));
    if (!envelope_id.ok() || *envelope_id != stored.message_id.uuid()) {
      return "a stored envelope's id is not its row's";
    }
  }
  auto cycle = worker.run_once();
  if (!cycle.ok()) return "the next cycle failed: " + std::string(cycle.status().message());
  auto letters = store.dead_letters(1000);
  if (!letters.ok()) return "listing dead letters failed";
  for (const whizbang::DeadLetter& letter : *letters) {
    if (!whizbang::internal::valid_utf8(letter.error) ||
        !whizbang::internal::valid_utf8(letter.message_type)) {
      return "a dead letter is not valid UTF-8";
    }
  }
  return {};
}

}  // namespace delivery_oracle

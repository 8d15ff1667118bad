// Perspectives (read models) and lifecycle-stage receptors for the perspective tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <whizbang/attributes.hpp>

#include "absl/status/status.h"

namespace persp {

struct OrderCreated : whizbang::Event {
  std::string order_id;
  std::int32_t items = 0;
};
struct OrderShipped : whizbang::Event {
  std::string order_id;
};
struct NoteAdded : whizbang::Event {  // no perspective applies it
  std::string note;
};

// What ran, in order ("apply:Summary", "PostPerspectiveInline", ...).
class Journal {
 public:
  void add(std::string entry) {
    std::lock_guard lock(mutex_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }
  int count(const std::string& entry) const;
  // Position of the first occurrence; -1 when absent.
  int index_of(const std::string& entry) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> entries_;
};

// Knobs the perspectives read.
struct Behaviour {
  std::chrono::milliseconds summary_delay{0};  // SummaryPerspective sleeps before applying
  bool fail_count = false;                     // CountPerspective returns an error
};

struct Money {
  std::int64_t cents = 0;
};
struct OrderSummary {
  std::string order_id;
  std::int32_t items = 0;
  bool shipped = false;
  std::int32_t applied = 0;
  Money total;
};
struct OrderCount {
  std::int64_t created = 0;
  std::vector<std::string> ids;
};

class SummaryPerspective : public whizbang::Perspective<OrderSummary> {
 public:
  SummaryPerspective(Journal& journal, const Behaviour& behaviour);
  void apply(OrderSummary& model, const OrderCreated& event);
  void apply(OrderSummary& model, const OrderShipped& event);

 private:
  Journal& journal_;
  const Behaviour& behaviour_;
};

class CountPerspective : public whizbang::Perspective<OrderCount> {
 public:
  CountPerspective(Journal& journal, const Behaviour& behaviour);
  absl::Status apply(OrderCount& model, const OrderCreated& event);

 private:
  Journal& journal_;
  const Behaviour& behaviour_;
};

// One receptor per stage of interest; each writes its stage name to the journal.
#define PERSP_STAGE_RECEPTOR(Name, Message, ...)                                       \
  class [[whizbang::fire_at(__VA_ARGS__)]] Name : public whizbang::Receptor<Message> { \
   public:                                                                             \
    explicit Name(Journal& journal) : journal_(journal) {}                             \
    void handle(const Message& message);                                               \
                                                                                       \
   private:                                                                            \
    Journal& journal_;                                                                 \
  };

PERSP_STAGE_RECEPTOR(PrePerspectiveDetachedReceptor, OrderCreated,
                     whizbang::Stage::PrePerspectiveDetached)
PERSP_STAGE_RECEPTOR(PrePerspectiveInlineReceptor, OrderCreated,
                     whizbang::Stage::PrePerspectiveInline)
PERSP_STAGE_RECEPTOR(PostPerspectiveDetachedReceptor, OrderCreated,
                     whizbang::Stage::PostPerspectiveDetached)
PERSP_STAGE_RECEPTOR(PostPerspectiveInlineReceptor, OrderCreated,
                     whizbang::Stage::PostPerspectiveInline)
PERSP_STAGE_RECEPTOR(PostAllPerspectivesDetachedReceptor, OrderCreated,
                     whizbang::Stage::PostAllPerspectivesDetached)
PERSP_STAGE_RECEPTOR(PostAllPerspectivesInlineReceptor, OrderCreated,
                     whizbang::Stage::PostAllPerspectivesInline)
PERSP_STAGE_RECEPTOR(PostLifecycleDetachedReceptor, OrderCreated,
                     whizbang::Stage::PostLifecycleDetached)
PERSP_STAGE_RECEPTOR(PostLifecycleInlineReceptor, OrderCreated,
                     whizbang::Stage::PostLifecycleInline)
PERSP_STAGE_RECEPTOR(NoteAllPerspectivesReceptor, NoteAdded,
                     whizbang::Stage::PostAllPerspectivesInline)
PERSP_STAGE_RECEPTOR(NoteLifecycleReceptor, NoteAdded, whizbang::Stage::PostLifecycleInline)

#undef PERSP_STAGE_RECEPTOR

// Fires during replay/rebuild too.
class [[whizbang::idempotent(whizbang::OnReplay::AlwaysFire)]] [[whizbang::fire_at(
    whizbang::Stage::PostPerspectiveInline)]] ReplayAwareReceptor
    : public whizbang::Receptor<OrderCreated> {
 public:
  explicit ReplayAwareReceptor(Journal& journal) : journal_(journal) {}
  void handle(const OrderCreated& event);

 private:
  Journal& journal_;
};

}  // namespace persp

// Receptors for the dispatcher tests: one command per result shape, plus event receptors that
// record what reached them. Parsed by whizbang-gen through whizbang_generate().
#pragma once

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "journal.hpp"
#include "messages.hpp"

namespace whizbang {
class Dispatcher;
}  // namespace whizbang

namespace dispatch_test {

using whizbang::Route;
using whizbang::Routed;
using whizbang::RoutedNone;

// ---- commands, one per shape ---------------------------------------------------------------

struct CreateOrder : whizbang::Command {
  std::string order_id;
};
class CreateOrderReceptor
    : public whizbang::Receptor<CreateOrder, std::tuple<OrderResult, OrderCreated>> {
 public:
  std::tuple<OrderResult, OrderCreated> handle(const CreateOrder& c) {
    OrderCreated created;
    created.order_id = c.order_id;
    return {OrderResult{c.order_id}, created};
  }
};

struct ShipOrder : whizbang::Command {
  std::string order_id;
};
class ShipOrderReceptor
    : public whizbang::Receptor<ShipOrder,
                                std::tuple<OrderResult, OrderShipped, InventoryUpdated>> {
 public:
  std::tuple<OrderResult, OrderShipped, InventoryUpdated> handle(const ShipOrder& c) {
    OrderShipped shipped;
    shipped.order_id = c.order_id;
    InventoryUpdated inventory;
    inventory.product_id = "p-" + c.order_id;
    inventory.delta = -1;
    return {OrderResult{c.order_id}, shipped, inventory};
  }
};

struct NotifyAll : whizbang::Command {
  int count = 0;
};
class NotifyAllReceptor : public whizbang::Receptor<NotifyAll, std::vector<OrderCreated>> {
 public:
  std::vector<OrderCreated> handle(const NotifyAll& c) {
    std::vector<OrderCreated> out(static_cast<std::size_t>(c.count));
    for (int i = 0; i < c.count; ++i) out[static_cast<std::size_t>(i)].order_id = std::to_string(i);
    return out;
  }
};

struct ComplexCommand : whizbang::Command {
  std::string id;
};
class ComplexReceptor
    : public whizbang::Receptor<ComplexCommand,
                                std::tuple<OrderResult, std::tuple<OrderCreated, OrderShipped>>> {
 public:
  std::tuple<OrderResult, std::tuple<OrderCreated, OrderShipped>> handle(const ComplexCommand& c) {
    OrderCreated created;
    created.order_id = c.id;
    OrderShipped shipped;
    shipped.order_id = c.id;
    return {OrderResult{c.id}, {created, shipped}};
  }
};

struct GetDto : whizbang::Command {
  std::string id;
};
class GetDtoReceptor : public whizbang::Receptor<GetDto, OrderResult> {
 public:
  OrderResult handle(const GetDto& c) { return OrderResult{c.id}; }
};

struct EmptyBatch : whizbang::Command {};
class EmptyBatchReceptor
    : public whizbang::Receptor<EmptyBatch, std::tuple<OrderResult, std::vector<OrderCreated>>> {
 public:
  std::tuple<OrderResult, std::vector<OrderCreated>> handle(const EmptyBatch&) {
    return {OrderResult{"empty"}, {}};
  }
};

struct ProcessOrder : whizbang::Command {
  std::string order_id;
};
class ProcessOrderReceptor
    : public whizbang::Receptor<ProcessOrder, std::tuple<OrderResult, OrderCreated, SendInvoice>> {
 public:
  std::tuple<OrderResult, OrderCreated, SendInvoice> handle(const ProcessOrder& c) {
    OrderCreated created;
    created.order_id = c.order_id;
    SendInvoice invoice;
    invoice.order_id = c.order_id;
    return {OrderResult{c.order_id}, created, invoice};
  }
};

struct RouteEach : whizbang::Command {};
class RouteEachReceptor
    : public whizbang::Receptor<RouteEach,
                                std::tuple<OrderResult, Routed<OrderCreated>,
                                           Routed<ExternalNoticed>, Routed<AuditLogged>>> {
 public:
  std::tuple<OrderResult, Routed<OrderCreated>, Routed<ExternalNoticed>, Routed<AuditLogged>>
  handle(const RouteEach&) {
    OrderCreated created;
    created.order_id = "local";
    ExternalNoticed noticed;
    noticed.note = "outbox";
    AuditLogged audit;
    audit.action = "both";
    return {OrderResult{"confirmation"}, Route::Local(created), Route::Outbox(noticed),
            Route::Both(audit)};
  }
};

struct RouteNoneMix : whizbang::Command {};
class RouteNoneMixReceptor
    : public whizbang::Receptor<RouteNoneMix, std::tuple<RoutedNone, OrderCreated, RoutedNone>> {
 public:
  std::tuple<RoutedNone, OrderCreated, RoutedNone> handle(const RouteNoneMix&) {
    OrderCreated created;
    created.order_id = "between-nones";
    return {Route::None(), created, Route::None()};
  }
};

struct RoutedBatch : whizbang::Command {};
class RoutedBatchReceptor
    : public whizbang::Receptor<RoutedBatch, Routed<std::vector<ExternalNoticed>>> {
 public:
  Routed<std::vector<ExternalNoticed>> handle(const RoutedBatch&) {
    std::vector<ExternalNoticed> notes(2);
    notes[0].note = "a";
    notes[1].note = "b";
    return Route::Outbox(notes);
  }
};

// Outer collection wrapper Local; the inner individual wrapper Outbox wins for its message.
struct NestedRoute : whizbang::Command {};
class NestedRouteReceptor
    : public whizbang::Receptor<NestedRoute,
                                Routed<std::tuple<Routed<ExternalNoticed>, OrderShipped>>> {
 public:
  Routed<std::tuple<Routed<ExternalNoticed>, OrderShipped>> handle(const NestedRoute&) {
    ExternalNoticed noticed;
    noticed.note = "inner-outbox";
    OrderShipped shipped;
    shipped.order_id = "outer-local";
    return Route::Local(std::tuple{Route::Outbox(noticed), shipped});
  }
};

struct AttributeRoute : whizbang::Command {};
class AttributeRouteReceptor : public whizbang::Receptor<AttributeRoute, Routed<CacheWarmed>> {
 public:
  Routed<CacheWarmed> handle(const AttributeRoute&) {
    CacheWarmed warmed;
    warmed.key = "k";
    return Route::Outbox(warmed);  // the type says LocalNoPersist, which wins
  }
};

struct ReceptorDefault : whizbang::Command {};
class [[whizbang::default_routing(whizbang::DispatchModes::Outbox)]] ReceptorDefaultReceptor
    : public whizbang::Receptor<ReceptorDefault, std::tuple<Routed<OrderCreated>>> {
 public:
  std::tuple<Routed<OrderCreated>> handle(const ReceptorDefault&) {
    OrderCreated created;
    created.order_id = "receptor-default";
    return {Route::Local(created)};  // the receptor's default (Outbox) beats the wrapper
  }
};

struct AuditOnly : whizbang::Command {};
class AuditOnlyReceptor
    : public whizbang::Receptor<AuditOnly, std::tuple<OrderResult, Routed<AuditLogged>>> {
 public:
  std::tuple<OrderResult, Routed<AuditLogged>> handle(const AuditOnly&) {
    AuditLogged audit;
    audit.action = "audit-only";
    return {OrderResult{"r"}, Route::EventStoreOnly(audit)};
  }
};

struct Ephemeral : whizbang::Command {};
class EphemeralReceptor : public whizbang::Receptor<Ephemeral, Routed<OrderCreated>> {
 public:
  Routed<OrderCreated> handle(const Ephemeral&) {
    OrderCreated created;
    created.order_id = "ephemeral";
    return Route::LocalNoPersist(created);
  }
};

struct MaybeEmit : whizbang::Command {
  bool emit = false;
};
class MaybeEmitReceptor : public whizbang::Receptor<MaybeEmit, std::optional<OrderCreated>> {
 public:
  std::optional<OrderCreated> handle(const MaybeEmit& c) {
    if (!c.emit) return std::nullopt;
    OrderCreated created;
    created.order_id = "maybe";
    return created;
  }
};

struct TwoOfAKind : whizbang::Command {};
class TwoOfAKindReceptor
    : public whizbang::Receptor<TwoOfAKind, std::tuple<ExternalNoticed, ExternalNoticed>> {
 public:
  std::tuple<ExternalNoticed, ExternalNoticed> handle(const TwoOfAKind&) {
    ExternalNoticed first;
    first.note = "first";
    ExternalNoticed second;
    second.note = "second";
    return {first, second};
  }
};

struct WithNonMessages : whizbang::Command {};
class WithNonMessagesReceptor
    : public whizbang::Receptor<WithNonMessages, std::tuple<OrderCreated, int, std::string>> {
 public:
  std::tuple<OrderCreated, int, std::string> handle(const WithNonMessages&) {
    OrderCreated created;
    created.order_id = "with-non-messages";
    return {created, 42, "text"};
  }
};

struct RoutedAnswer : whizbang::Command {};
class RoutedAnswerReceptor : public whizbang::Receptor<RoutedAnswer, Routed<OrderCreated>> {
 public:
  Routed<OrderCreated> handle(const RoutedAnswer&) {
    OrderCreated created;
    created.order_id = "routed-answer";
    return Route::Local(created);
  }
};

struct ShipPair : whizbang::Command {};
class ShipPairReceptor : public whizbang::Receptor<ShipPair, std::array<OrderShipped, 2>> {
 public:
  std::array<OrderShipped, 2> handle(const ShipPair&) {
    std::array<OrderShipped, 2> out;
    out[0].order_id = "a1";
    out[1].order_id = "a2";
    return out;
  }
};

struct Batches : whizbang::Command {};
class BatchesReceptor : public whizbang::Receptor<Batches, std::vector<std::vector<OrderCreated>>> {
 public:
  std::vector<std::vector<OrderCreated>> handle(const Batches&) {
    std::vector<std::vector<OrderCreated>> out(2);
    out[0].resize(2);
    out[0][0].order_id = "A1";
    out[0][1].order_id = "A2";
    out[1].resize(1);
    out[1][0].order_id = "B1";
    return out;
  }
};

// A command whose receptor returns nothing cascadable, used for security probes.
struct WhoAmI : whizbang::Command {
  std::string tag;
};
class WhoAmIReceptor : public whizbang::Receptor<WhoAmI, std::tuple<OrderResult, AuditLogged>> {
 public:
  explicit WhoAmIReceptor(Journal& journal) : journal_(journal) {}
  std::tuple<OrderResult, AuditLogged> handle(const WhoAmI& c) {
    journal_.add("WhoAmI", c.tag);
    AuditLogged audit;
    audit.action = "whoami:" + c.tag;
    return {OrderResult{c.tag}, audit};
  }

 private:
  Journal& journal_;
};

// Lets a receptor dispatch from inside its handler (the test sets it once the dispatcher exists).
struct DispatcherSlot {
  whizbang::Dispatcher* dispatcher = nullptr;
};

// A user's command whose handler escalates: it publishes an audit event as the system for the
// "ops" tenant, whoever the user was.
struct EscalateToSystem : whizbang::Command {
  std::string tag;
};
class EscalateToSystemReceptor : public whizbang::Receptor<EscalateToSystem> {
 public:
  EscalateToSystemReceptor(Journal& journal, DispatcherSlot& slot)
      : journal_(journal), slot_(slot) {}
  // Defined in dispatcher_security_test.cpp, where the generated message traits are visible.
  void handle(const EscalateToSystem& c);

 private:
  Journal& journal_;
  DispatcherSlot& slot_;
};

// ---- event receptors (default stages: they run on local dispatch) ---------------------------

class OrderCreatedJournal : public whizbang::Receptor<OrderCreated> {
 public:
  explicit OrderCreatedJournal(Journal& journal) : journal_(journal) {}
  void handle(const OrderCreated& e) { journal_.add("OrderCreated", e.order_id); }

 private:
  Journal& journal_;
};

// Registered at a later stage only: never runs from a cascade or a publish.
class [[whizbang::fire_at(whizbang::Stage::PostAllPerspectivesDetached)]] OrderCreatedLater
    : public whizbang::Receptor<OrderCreated> {
 public:
  explicit OrderCreatedLater(Journal& journal) : journal_(journal) {}
  void handle(const OrderCreated& e) { journal_.add("OrderCreatedLater", e.order_id); }

 private:
  Journal& journal_;
};

class OrderShippedJournal : public whizbang::Receptor<OrderShipped> {
 public:
  explicit OrderShippedJournal(Journal& journal) : journal_(journal) {}
  void handle(const OrderShipped& e) { journal_.add("OrderShipped", e.order_id); }

 private:
  Journal& journal_;
};

// Two receptors of one event that both emit AuditLogged: sibling handlings of one message.
class InventoryAuditA : public whizbang::Receptor<InventoryUpdated, AuditLogged> {
 public:
  explicit InventoryAuditA(Journal& journal) : journal_(journal) {}
  AuditLogged handle(const InventoryUpdated& e) {
    journal_.add("InventoryAuditA", e.product_id);
    AuditLogged audit;
    audit.action = "inventory-a:" + e.product_id;
    return audit;
  }

 private:
  Journal& journal_;
};
class InventoryAuditB : public whizbang::Receptor<InventoryUpdated, AuditLogged> {
 public:
  explicit InventoryAuditB(Journal& journal) : journal_(journal) {}
  AuditLogged handle(const InventoryUpdated& e) {
    journal_.add("InventoryAuditB", e.product_id);
    AuditLogged audit;
    audit.action = "inventory-b:" + e.product_id;
    return audit;
  }

 private:
  Journal& journal_;
};

class AuditJournal : public whizbang::Receptor<AuditLogged> {
 public:
  explicit AuditJournal(Journal& journal) : journal_(journal) {}
  void handle(const AuditLogged& e) { journal_.add("AuditLogged", e.action); }

 private:
  Journal& journal_;
};

class CacheWarmedJournal : public whizbang::Receptor<CacheWarmed> {
 public:
  explicit CacheWarmedJournal(Journal& journal) : journal_(journal) {}
  void handle(const CacheWarmed& e) { journal_.add("CacheWarmed", e.key); }

 private:
  Journal& journal_;
};

class SendInvoiceReceptor : public whizbang::Receptor<SendInvoice> {
 public:
  explicit SendInvoiceReceptor(Journal& journal) : journal_(journal) {}
  void handle(const SendInvoice& c) { journal_.add("SendInvoice", c.order_id); }

 private:
  Journal& journal_;
};

// ---- CascadeScenarioTests (the reference's cascade scenarios 1-45), one command per shape ----

struct SingleEvent : whizbang::Command {};  // scenarios 2, 31
class SingleEventReceptor : public whizbang::Receptor<SingleEvent, OrderShipped> {
 public:
  OrderShipped handle(const SingleEvent&) {
    OrderShipped shipped;
    shipped.order_id = "single";
    return shipped;
  }
};

struct AnswerInt : whizbang::Command {};  // scenario 3: an int is not a message
class AnswerIntReceptor : public whizbang::Receptor<AnswerInt, int> {
 public:
  int handle(const AnswerInt&) { return 42; }
};

struct AnswerText : whizbang::Command {};  // scenario 3: a string is not a message
class AnswerTextReceptor : public whizbang::Receptor<AnswerText, std::string> {
 public:
  std::string handle(const AnswerText&) { return "hello"; }
};

struct EventIntEvent : whizbang::Command {};  // scenario 4
class EventIntEventReceptor
    : public whizbang::Receptor<EventIntEvent, std::tuple<OrderCreated, int, OrderCreated>> {
 public:
  std::tuple<OrderCreated, int, OrderCreated> handle(const EventIntEvent&) {
    OrderCreated first;
    first.order_id = "first";
    OrderCreated second;
    second.order_id = "second";
    return {first, 42, second};
  }
};

struct SparseBatch : whizbang::Command {};  // scenario 7: empty optionals stand in for nulls
class SparseBatchReceptor
    : public whizbang::Receptor<SparseBatch, std::vector<std::optional<OrderCreated>>> {
 public:
  std::vector<std::optional<OrderCreated>> handle(const SparseBatch&) {
    OrderCreated e1;
    e1.order_id = "E1";
    OrderCreated e2;
    e2.order_id = "E2";
    return {e1, std::nullopt, e2, std::nullopt};
  }
};

struct EventCommandEvent : whizbang::Command {};  // scenario 8
class EventCommandEventReceptor
    : public whizbang::Receptor<EventCommandEvent,
                                std::tuple<OrderCreated, SendInvoice, OrderShipped>> {
 public:
  std::tuple<OrderCreated, SendInvoice, OrderShipped> handle(const EventCommandEvent&) {
    OrderCreated created;
    created.order_id = "ece";
    SendInvoice invoice;
    invoice.order_id = "ece";
    OrderShipped shipped;
    shipped.order_id = "ece";
    return {created, invoice, shipped};
  }
};

struct EventAndInt : whizbang::Command {};  // scenario 9
class EventAndIntReceptor : public whizbang::Receptor<EventAndInt, std::pair<OrderShipped, int>> {
 public:
  std::pair<OrderShipped, int> handle(const EventAndInt&) {
    OrderShipped shipped;
    shipped.order_id = "with-int";
    return {shipped, 42};
  }
};

struct LocalBatch : whizbang::Command {};  // scenario 11: collection wrapper
class LocalBatchReceptor
    : public whizbang::Receptor<LocalBatch, Routed<std::vector<OrderCreated>>> {
 public:
  Routed<std::vector<OrderCreated>> handle(const LocalBatch&) {
    std::vector<OrderCreated> batch(2);
    batch[0].order_id = "L1";
    batch[1].order_id = "L2";
    return Route::Local(batch);
  }
};

struct LocalAroundOutbox : whizbang::Command {};  // scenario 12: Local{A, Outbox(B)}
class LocalAroundOutboxReceptor
    : public whizbang::Receptor<LocalAroundOutbox,
                                Routed<std::tuple<OrderCreated, Routed<ExternalNoticed>>>> {
 public:
  Routed<std::tuple<OrderCreated, Routed<ExternalNoticed>>> handle(const LocalAroundOutbox&) {
    OrderCreated a;
    a.order_id = "A";
    ExternalNoticed b;
    b.note = "B";
    return Route::Local(std::tuple{a, Route::Outbox(b)});
  }
};

struct LocalDefault : whizbang::Command {};  // scenario 13
class [[whizbang::default_routing(whizbang::DispatchModes::Local)]] LocalDefaultReceptor
    : public whizbang::Receptor<LocalDefault, Routed<OrderCreated>> {
 public:
  Routed<OrderCreated> handle(const LocalDefault&) {
    OrderCreated created;
    created.order_id = "receptor-local";
    return Route::Outbox(created);  // the receptor's default (Local) beats the wrapper
  }
};

struct BothDefaultCache : whizbang::Command {};  // scenario 14
class [[whizbang::default_routing(whizbang::DispatchModes::Both)]] BothDefaultCacheReceptor
    : public whizbang::Receptor<BothDefaultCache, Routed<CacheWarmed>> {
 public:
  Routed<CacheWarmed> handle(const BothDefaultCache&) {
    CacheWarmed warmed;
    warmed.key = "type-wins";
    return Route::Outbox(warmed);  // CacheWarmed's own LocalNoPersist beats receptor and wrapper
  }
};

struct NothingToDo : whizbang::Command {};  // scenario 15
class NothingToDoReceptor : public whizbang::Receptor<NothingToDo, RoutedNone> {
 public:
  RoutedNone handle(const NothingToDo&) { return Route::None(); }
};

struct NoneModes : whizbang::Command {};  // scenario 16
class NoneModesReceptor
    : public whizbang::Receptor<NoneModes, std::tuple<Routed<OrderCreated>, Routed<OrderShipped>>> {
 public:
  std::tuple<Routed<OrderCreated>, Routed<OrderShipped>> handle(const NoneModes&) {
    OrderShipped shipped;
    shipped.order_id = "explicit-none";
    return {Routed<OrderCreated>{}, Routed<OrderShipped>{shipped, whizbang::DispatchModes::None}};
  }
};

struct RoutedList : whizbang::Command {};  // scenario 17: {e1, None, e2, None}
class RoutedListReceptor
    : public whizbang::Receptor<RoutedList, std::vector<Routed<OrderCreated>>> {
 public:
  std::vector<Routed<OrderCreated>> handle(const RoutedList&) {
    OrderCreated e1;
    e1.order_id = "e1";
    OrderCreated e2;
    e2.order_id = "e2";
    return {Route::Local(e1), Routed<OrderCreated>{}, Route::Local(e2),
            Routed<OrderCreated>{e2, whizbang::DispatchModes::None}};
  }
};

struct EachNoPersist : whizbang::Command {};  // scenario 19: per-item wrappers
class EachNoPersistReceptor
    : public whizbang::Receptor<EachNoPersist, std::vector<Routed<OrderShipped>>> {
 public:
  std::vector<Routed<OrderShipped>> handle(const EachNoPersist&) {
    std::vector<OrderShipped> items(3);
    for (int i = 0; i < 3; ++i) items[static_cast<std::size_t>(i)].order_id = std::to_string(i);
    return Route::LocalNoPersistEach(items);
  }
};

struct OutboxOnlyEvent : whizbang::Command {};  // scenario 32: an event with a local receptor
class OutboxOnlyEventReceptor : public whizbang::Receptor<OutboxOnlyEvent, Routed<OrderCreated>> {
 public:
  Routed<OrderCreated> handle(const OutboxOnlyEvent&) {
    OrderCreated created;
    created.order_id = "outbox-only";
    return Route::Outbox(created);
  }
};

struct OutboxCommand : whizbang::Command {};  // scenario 36: a command with a local receptor
class OutboxCommandReceptor
    : public whizbang::Receptor<OutboxCommand, std::tuple<OrderResult, Routed<SendInvoice>>> {
 public:
  std::tuple<OrderResult, Routed<SendInvoice>> handle(const OutboxCommand&) {
    SendInvoice invoice;
    invoice.order_id = "via-outbox";
    return {OrderResult{"queued"}, Route::Outbox(invoice)};
  }
};

}  // namespace dispatch_test

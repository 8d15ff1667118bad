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

}  // namespace dispatch_test

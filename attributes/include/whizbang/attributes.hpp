// The annotations users write on message types and receptors.
//
// g++ never reads these attributes; `whizbang-gen` (Clang) is their only reader and validator.
// Every misspelt name, unknown stage or misplaced attribute is a WHIZ error from the generator.
//
// Class attributes go after the class-key. Arguments are qualified enumerators or string
// literals, never bare identifiers.
//
//   struct [[whizbang::wire_name("shop.OrderCreated")]]
//   [[whizbang::default_routing(whizbang::DispatchModes::Both)]] OrderCreated : whizbang::Event {
//     std::string order_id;
//   };
//
//   class [[whizbang::fire_at(whizbang::Stage::PostInboxInline, whizbang::Stage::PreOutboxInline)]]
//   Audit : public whizbang::Receptor<OrderCreated> {
//    public:
//     void handle(const OrderCreated& event);
//   };
//
// The attributes:
//   fire_at(Stage...)            receptor: the stages it fires at (default LocalImmediateDetached
//                                + PostInboxDetached)
//   once_across_services         receptor: fires once for a message across every service
//   idempotent                   receptor: opts out of the double-fire guardrail
//   idempotent(OnReplay::AlwaysFire)  ... and also fires during replay/rebuild
//   default_routing(DispatchModes::X) message type or receptor: default cascade route
//   wire_name("...")             message type: stable name on the wire and in derived ids
//   dotnet_type("Ns.Type, Assembly")  message type: shared with Whizbang .NET services; its
//                                wire name is the .NET full name and its payload is encoded as
//                                .NET encodes it (docs/guide/15-dotnet-services.md)
//   dotnet_name("...")           data member of a shared message (or a struct it holds): its C#
//                                property name, when PascalCase of the member is not it
//   version(N)                   message type: the version (integer literal >= 1, default 1) of
//                                its payload's current shape; payloads written by older code are
//                                upcast to it on every read. Perspective class: the version of
//                                its projection code (rebuilds). A plain struct (no Event/Command
//                                base): an OLD SHAPE, version N of some message type's payload
//   upcaster                     free function `Next f(const OldShape&)`: turns version K into
//                                version K+1 (the next old shape, or the message type itself).
//                                Every version below a message's own needs a chain of them
//                                (WHIZ016); docs/guide/07-perspectives.md
//
//   struct [[whizbang::version(1)]] OrderPlacedV1 { std::string order_id; std::int64_t price; };
//   struct [[whizbang::version(2)]] OrderPlaced : whizbang::Event {
//     std::string order_id;
//     Money total;
//   };
//   [[whizbang::upcaster]] OrderPlaced upcast(const OrderPlacedV1& old);
//
// Threads: one receptor instance serves every worker thread of its service (the inbox worker,
// the executors of detached stages, perspective workers), so a receptor's members need their own
// locking, and per-message state belongs in locals (docs/guide/16-security.md).
//
// Perspectives (read models): a class deriving from `Perspective<Model>` with one
// `void apply(Model&, const E&)` (or `absl::Status apply(...)`) per event type E it projects.
// The model is a plain struct (JSON-encoded like a message's nested struct) stored per stream.
//
//   struct OrderSummary { std::string order_id; int items = 0; bool shipped = false; };
//   class OrderSummaryPerspective : public whizbang::Perspective<OrderSummary> {
//    public:
//     void apply(OrderSummary& model, const OrderCreated& event);
//     void apply(OrderSummary& model, const OrderShipped& event);
//   };
#pragma once

#include "whizbang/dispatch_modes.hpp"
#include "whizbang/stage.hpp"

#if defined(__GNUC__) && !defined(__clang__)
// GCC >= 12 understands this pragma; it keeps -Wattributes quiet for our namespace only.
#pragma GCC diagnostic ignored_attributes "whizbang::"
#endif

namespace whizbang {

// Marker bases. A message type derives from exactly one of them.
struct Event {};
struct Command {};

// What an idempotent receptor does during replay or rebuild.
enum class OnReplay : int {
  Skip = 0,
  AlwaysFire = 1,
};

// Receptor base: `Message` is the handled type, `Result` what `handle` returns (void by default).
// The derived class provides `Result handle(const Message&)`; its constructor parameters are
// wired from the host's service registry by generated code.
template <class Message, class Result = void>
class Receptor {
 public:
  using message_type = Message;
  using result_type = Result;

 protected:
  Receptor() = default;
  ~Receptor() = default;
};

// Perspective base: `Model` is the read model the derived class's `apply` overloads update. Its
// constructor parameters are wired from the host's service registry like a receptor's.
template <class Model>
class Perspective {
 public:
  using model_type = Model;

 protected:
  Perspective() = default;
  ~Perspective() = default;
};

}  // namespace whizbang

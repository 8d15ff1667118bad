// Dispatcher: send and publish once per idempotency key (dispatcher.hpp; docs/guide/17-your-
// data.md, "Publish once").
#include "dispatcher_internal.hpp"
#include "whizbang/ids/derived_identity.hpp"

namespace whizbang {

absl::StatusOr<DeliveryReceipt> Dispatcher::send_any(const AnyMessage& message,
                                                     const IdempotencyKey& key) {
  return keyed(message, key, /*sending=*/true,
               [&](const MessageId& id) { return send_any_now(message, &id); });
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_any(const AnyMessage& message,
                                                        DispatchModes mode,
                                                        const IdempotencyKey& key) {
  return keyed(message, key, /*sending=*/false,
               [&](const MessageId& id) { return publish_any_now(message, mode, &id); });
}

absl::StatusOr<DeliveryReceipt> Dispatcher::keyed(
    const AnyMessage& message, const IdempotencyKey& key, bool sending,
    const std::function<absl::StatusOr<DeliveryReceipt>(const MessageId&)>& dispatch) {
  if (!message) return absl::InvalidArgumentError("cannot dispatch an empty AnyMessage");
  const MessageTypeInfo& type = *message.info();
  if (key.value.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}({}): the idempotency key is empty",
                                                  sending ? "send" : "publish", type.wire_name));
  }
  // The record of the key must commit with what the dispatch writes, or a crash between the two
  // would lose the message (recorded, never written) or send it twice (written, not recorded).
  if (options_.store == nullptr || !options_.unit_of_work) {
    return absl::FailedPreconditionError(
        fmt::format("{}({}) with an idempotency key needs a store and a unit of work to record "
                    "the key in (a ServiceHost's dispatcher has both)",
                    sending ? "send" : "publish", type.wire_name));
  }
  const MessageId id =
      DispatchKeyIdentity::derive(options_.self.service_name, type.wire_name, key.value);
  return unit_of_work<DeliveryReceipt>([&]() -> absl::StatusOr<DeliveryReceipt> {
    absl::StatusOr<bool> first = options_.store->remember_dispatch(id);
    if (!first.ok()) return first.status();
    if (*first) return dispatch(id);
    // A retry: nothing is done again. The receipt says what the first call's said.
    const Entry* entry = entry_for(type);
    const bool handled_here = entry != nullptr && !entry->all.empty();
    DeliveryReceipt receipt =
        !sending || handled_here ? DeliveryReceipt::delivered(id, std::string(type.wire_name))
                                 : DeliveryReceipt::accepted(id, destination_for(type),
                                                             std::nullopt, std::nullopt, id.uuid());
    receipt.duplicate = true;
    return receipt;
  });
}

}  // namespace whizbang

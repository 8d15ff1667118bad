// Dispatcher: construction and the receptor index (see dispatcher_internal.hpp).
#include "dispatcher_internal.hpp"
#include "kept_destinations.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "whizbang/message/envelope_json.hpp"

namespace whizbang {

absl::StatusOr<std::unique_ptr<Dispatcher>> Dispatcher::create(const Registry& registry,
                                                               const ServiceRegistry& services,
                                                               DispatcherOptions options) {
  absl::StatusOr<ReceptorSet> receptors = registry.create_receptors(services);
  if (!receptors.ok()) return receptors.status();
  return std::unique_ptr<Dispatcher>(
      new Dispatcher(registry, *std::move(receptors), std::move(options)));
}

Dispatcher::Dispatcher(const Registry& registry, ReceptorSet receptors, DispatcherOptions options)
    : registry_(registry), receptors_(std::move(receptors)), options_(std::move(options)) {
  if (!options_.serialize) {
    options_.serialize = [](const Envelope& envelope) { return serialize_envelope(envelope); };
  }
  using ResolverFunction = std::string (*)(const MessageTypeInfo&);
  const ResolverFunction* resolver = options_.destination.target<ResolverFunction>();
  const bool uses_default_destination = resolver != nullptr && *resolver == &default_destination;
  for (const MessageEntry& message : registry_.messages()) {
    auto entry = std::make_unique<Entry>();
    for (const ReceptorInfo& receptor :
         registry_.receptors().subspan(message.first_receptor, message.receptor_count)) {
      entry->all.push_back(&receptor);
      for (const Stage stage : receptor.stages) {
        const auto index = static_cast<std::size_t>(stage);
        if (stage != Stage::AfterReceptorCompletion && index < Entry::kFiringStages) {
          entry->at_stage[index].push_back(&receptor);
        }
      }
      if (receptor.default_stages) {
        entry->default_stage.push_back(&receptor);
        entry->default_stage_all_void &= receptor.response_key == nullptr;
      }
      const bool has_result = receptor.response_key != nullptr;
      if (has_result && entry->first_with_result == nullptr) entry->first_with_result = &receptor;
      if (!has_result && entry->first_void == nullptr) entry->first_void = &receptor;
    }
    if (uses_default_destination) {
      entry->cached_destination =
          dispatch_internal::keep_destination(default_destination(*message.info));
    }
    entries_.push_back(std::move(entry));
  }
  std::size_t slots = 2;
  while (slots < 2 * entries_.size()) slots *= 2;
  entry_shift_ = 64 - static_cast<unsigned>(std::countr_zero(slots));
  entry_slots_.assign(slots, {nullptr, nullptr});
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const MessageTypeInfo* type = registry_.messages()[i].info;
    std::size_t slot = entry_slot(type);
    while (entry_slots_[slot].first != nullptr) slot = (slot + 1) & (slots - 1);
    entry_slots_[slot] = {type, entries_[i].get()};
  }
}

Dispatcher::~Dispatcher() = default;

StaticOrOwnedString Dispatcher::destination_for(const MessageTypeInfo& type) const {
  return destination_for(entry_for(type), type);
}

StaticOrOwnedString Dispatcher::destination_for(const Entry* entry,
                                                const MessageTypeInfo& type) const {
  if (entry != nullptr && entry->cached_destination) {
    return StaticOrOwnedString::borrow(*entry->cached_destination);
  }
  return options_.destination(type);
}

std::span<const ReceptorInfo* const> Dispatcher::receptors_at(const MessageTypeInfo& type,
                                                              Stage stage) const {
  const Entry* entry = entry_for(type);
  const auto index = static_cast<std::size_t>(stage);
  if (entry == nullptr || stage == Stage::AfterReceptorCompletion ||
      index >= Entry::kFiringStages) {
    return {};
  }
  return entry->at_stage[index];
}

}  // namespace whizbang

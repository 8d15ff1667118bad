#include "whizbang/registry.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace whizbang {

const MessageTypeInfo* Registry::find_message(std::string_view wire_name) const {
  const MessageEntry* entry = find_entry(wire_name);
  return entry ? entry->info : nullptr;
}

std::optional<std::uint32_t> Registry::index_of(const MessageTypeInfo& info) const {
  const MessageEntry* entry = find_entry(info.wire_name);
  if (entry == nullptr || entry->info != &info) return std::nullopt;
  return static_cast<std::uint32_t>(entry - messages_.data());
}

std::span<const ReceptorInfo> Registry::receptors_for(const MessageTypeInfo& info) const {
  const std::optional<std::uint32_t> index = index_of(info);
  if (!index) return {};
  const MessageEntry& entry = messages_[*index];
  return receptors_.subspan(entry.first_receptor, entry.receptor_count);
}

std::span<const PerspectiveInfo* const> Registry::perspectives_for(
    const MessageTypeInfo& info) const {
  const std::optional<std::uint32_t> index = index_of(info);
  return index ? messages_[*index].perspectives : std::span<const PerspectiveInfo* const>();
}

const PerspectiveInfo* Registry::find_perspective(std::string_view name) const {
  for (const PerspectiveInfo& perspective : perspectives_) {
    if (perspective.name == name) return &perspective;
  }
  return nullptr;
}

const ReceptorInfo* Registry::find_receptor(std::string_view id) const {
  for (const ReceptorInfo& receptor : receptors_) {
    if (receptor.id == id) return &receptor;
  }
  return nullptr;
}

std::optional<DispatchModes> Registry::receptor_default_routing(const MessageTypeInfo& info) const {
  const std::optional<std::uint32_t> index = index_of(info);
  return index ? messages_[*index].receptor_default_routing : std::nullopt;
}

absl::StatusOr<ReceptorSet> Registry::create_receptors(const ServiceRegistry& services) const {
  std::vector<std::shared_ptr<void>> instances;
  instances.reserve(receptors_.size());
  for (const ReceptorInfo& receptor : receptors_) {
    absl::StatusOr<std::shared_ptr<void>> instance = receptor.create(services);
    if (!instance.ok()) return instance.status();
    instances.push_back(*std::move(instance));
  }
  return ReceptorSet(std::move(instances));
}

absl::StatusOr<ReceptorSet> Registry::create_perspectives(const ServiceRegistry& services) const {
  std::vector<std::shared_ptr<void>> instances;
  instances.reserve(perspectives_.size());
  for (const PerspectiveInfo& perspective : perspectives_) {
    absl::StatusOr<std::shared_ptr<void>> instance = perspective.create(services);
    if (!instance.ok()) return instance.status();
    instances.push_back(*std::move(instance));
  }
  return ReceptorSet(std::move(instances));
}

absl::Status Registry::dispatch(const AnyMessage& message, const ReceptorSet& receptors,
                                DispatchVisitor& visitor) const {
  if (message.info() == nullptr) return absl::InvalidArgumentError("empty AnyMessage");
  const std::optional<std::uint32_t> index = index_of(*message.info());
  if (!index) {
    return absl::NotFoundError(std::string("registry '") + std::string(name_) +
                               "' does not know message type " +
                               std::string(message.info()->wire_name));
  }
  if (receptors.size() != receptors_.size()) {
    return absl::FailedPreconditionError("ReceptorSet was built by another registry");
  }
  return dispatch_(*index, message, receptors, visitor);
}

absl::Status Registry::invoke(const ReceptorInfo& receptor, const ReceptorSet& receptors,
                              const AnyMessage& message, CascadeSink& sink,
                              std::shared_ptr<void>* response) const {
  void* instance = receptors.get(receptor.index);
  if (instance == nullptr) return absl::FailedPreconditionError("receptor not constructed");
  return receptor.invoke(instance, message, sink, response);
}

const MessageEntry* Registry::find_entry(std::string_view wire_name) const {
  auto it = std::lower_bound(messages_.begin(), messages_.end(), wire_name,
                             [](const MessageEntry& entry, std::string_view name) {
                               return entry.info->wire_name < name;
                             });
  if (it == messages_.end() || it->info->wire_name != wire_name) return nullptr;
  return &*it;
}

}  // namespace whizbang

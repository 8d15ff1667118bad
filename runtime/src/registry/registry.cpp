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

namespace {

// One instance per row, each built by the row's `create` thunk; the first missing dependency
// fails the whole set.
template <class Row>
absl::StatusOr<ReceptorSet> create_all(std::span<const Row> rows, const ServiceRegistry& services) {
  std::vector<std::shared_ptr<void>> instances;
  instances.reserve(rows.size());
  for (const Row& row : rows) {
    absl::StatusOr<std::shared_ptr<void>> instance = row.create(services);
    if (!instance.ok()) return instance.status();
    instances.push_back(*std::move(instance));
  }
  return ReceptorSet(std::move(instances));
}

}  // namespace

absl::StatusOr<ReceptorSet> Registry::create_receptors(const ServiceRegistry& services) const {
  return create_all(receptors_, services);
}

absl::StatusOr<ReceptorSet> Registry::create_perspectives(const ServiceRegistry& services) const {
  return create_all(perspectives_, services);
}

}  // namespace whizbang

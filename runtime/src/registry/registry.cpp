#include "whizbang/registry/registry.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "whizbang/internal/text.hpp"

namespace whizbang {

const MessageTypeInfo* Registry::find_message(std::string_view name) const {
  if (const MessageEntry* entry = find_entry(name)) return entry->info;
  // "Ns.Type, Assembly[, Version=…, Culture=…, PublicKeyToken=…]": a type shared with .NET has
  // the full name as its wire name and the first two parts as its dotnet_type.
  const std::size_t comma = name.find(',');
  if (comma == std::string_view::npos) return nullptr;
  const std::string_view full_name = internal::trim_spaces(name.substr(0, comma));
  std::string_view assembly = name.substr(comma + 1);
  assembly = internal::trim_spaces(assembly.substr(0, assembly.find(',')));
  const MessageEntry* entry = find_entry(full_name);
  if (entry == nullptr) return nullptr;
  const std::string_view declared = entry->info->dotnet_type;
  const bool same_type = declared.size() == full_name.size() + 2 + assembly.size() &&
                         declared.substr(full_name.size(), 2) == ", " &&
                         declared.substr(full_name.size() + 2) == assembly;
  return same_type ? entry->info : nullptr;
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

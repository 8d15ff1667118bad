#include "whizbang/registry/registry.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "whizbang/internal/text.hpp"

namespace whizbang {

namespace {

// Whether `a` and `b` name one type, spelling a nested type either way: .NET's '+' before it
// ("Ns.Outer+Inner", a nested type's wire name) or a plain separator ("Ns.Outer.Inner",
// "ns::Outer::Inner": an earlier wire name, or a sender that does not know the nesting).
bool same_type_name(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  auto separator_at = [](std::string_view text, std::size_t at) -> std::size_t {
    if (text.compare(at, 2, "::") == 0) return 2;
    return at < text.size() && text[at] == '.' ? 1 : 0;
  };
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++i;
      ++j;
    } else if (a[i] == '+' && separator_at(b, j) != 0) {
      ++i;
      j += separator_at(b, j);
    } else if (b[j] == '+' && separator_at(a, i) != 0) {
      i += separator_at(a, i);
      ++j;
    } else {
      return false;
    }
  }
  return i == a.size() && j == b.size();
}

}  // namespace

const MessageTypeInfo* Registry::find_message(std::string_view name) const {
  if (const MessageEntry* entry = find_entry(name)) return entry->info;
  // Not by its exact name: the other spelling of a nested type (rare, so a scan).
  auto by_either_spelling = [this](std::string_view type_name) -> const MessageTypeInfo* {
    if (const MessageEntry* entry = find_entry(type_name)) return entry->info;
    for (const MessageEntry& entry : messages_) {
      if (same_type_name(entry.info->wire_name, type_name)) return entry.info;
    }
    return nullptr;
  };
  // "Ns.Type, Assembly[, Version=…, Culture=…, PublicKeyToken=…]": a type shared with .NET has
  // the full name as its wire name and the first two parts as its dotnet_type.
  const std::size_t comma = name.find(',');
  if (comma == std::string_view::npos) return by_either_spelling(name);
  const std::string_view full_name = internal::trim_spaces(name.substr(0, comma));
  std::string_view assembly = name.substr(comma + 1);
  assembly = internal::trim_spaces(assembly.substr(0, assembly.find(',')));
  const MessageTypeInfo* info = by_either_spelling(full_name);
  if (info == nullptr) return nullptr;
  const std::string_view declared = info->dotnet_type;
  const std::size_t declared_comma = declared.find(',');
  const bool same_assembly = declared_comma != std::string_view::npos &&
                             internal::trim_spaces(declared.substr(declared_comma + 1)) == assembly;
  return same_assembly ? info : nullptr;
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

// ServiceRegistry: the services receptors and perspectives are constructed with.
// Part of the registry contract (whizbang/registry/registry.hpp).
#pragma once

#include <memory>
#include <unordered_map>

#include "whizbang/internal/type_key.hpp"

namespace whizbang {

// ServiceRegistry: the host's typed services, used to construct receptors.
//
// Non-owning: the host keeps each service alive for as long as receptors built from the
// registry live. Keyed by `internal::type_key<T>()`; a receptor constructor parameter `Mailer&`,
// `const Mailer&`, `Mailer*` or `Mailer` (copied) is resolved with `find<Mailer>()`.
//
//   whizbang::ServiceRegistry services;
//   services.add<shop::Mailer>(mailer).add<shop::Clock>(clock);
class ServiceRegistry {
 public:
  template <class T>
  ServiceRegistry& add(T& service) {
    entries_[internal::type_key<T>()] =
        const_cast<void*>(static_cast<const void*>(std::addressof(service)));
    return *this;
  }
  // nullptr when no service of type T was added.
  template <class T>
  T* find() const {
    auto it = entries_.find(internal::type_key<T>());
    return it == entries_.end() ? nullptr : static_cast<T*>(it->second);
  }
  bool contains(internal::TypeKey key) const { return entries_.contains(key); }

 private:
  std::unordered_map<internal::TypeKey, void*> entries_;
};

}  // namespace whizbang

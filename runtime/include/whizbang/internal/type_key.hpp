// TypeKey: a per-type identity without RTTI.
//
// Each type gets the address of its own inline variable template instance. Inline variables
// have one address per program (vague linkage), so two translation units, or two generated
// registries, agree on the key of a type. cv-qualifiers are ignored: `const Mailer` and `Mailer`
// share a key.
//
//   whizbang::internal::TypeKey key = whizbang::internal::type_key<shop::Mailer>();
#pragma once

#include <type_traits>

namespace whizbang::internal {

using TypeKey = const void*;

template <class T>
inline constexpr char kTypeKeyTag = 0;

template <class T>
constexpr TypeKey type_key() {
  return &kTypeKeyTag<std::remove_cv_t<T>>;
}

}  // namespace whizbang::internal

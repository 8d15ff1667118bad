// RPC response extraction for generated code (ReceptorInfo::find_response). Not for direct use.
//
// find_response(value, wanted) returns the address of the first sub-value whose type key is
// `wanted`, depth-first and left to right (docs/guide/01-getting-started.md): the value itself;
// then tuple/pair elements; the value of a Routed whose mode is not None; an engaged optional; the
// elements of a vector. RoutedNone and everything else yield nullptr.
#pragma once

#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "whizbang/internal/type_key.hpp"
#include "whizbang/message/route.hpp"

namespace whizbang::internal {

template <class T>
struct IsTupleLike : std::false_type {};
template <class... Ts>
struct IsTupleLike<std::tuple<Ts...>> : std::true_type {};
template <class A, class B>
struct IsTupleLike<std::pair<A, B>> : std::true_type {};

template <class T>
struct IsOptionalResponse : std::false_type {};
template <class T>
struct IsOptionalResponse<std::optional<T>> : std::true_type {};

template <class T>
struct IsVectorResponse : std::false_type {};
template <class T, class A>
struct IsVectorResponse<std::vector<T, A>> : std::true_type {};

template <class T>
const void* find_response(const T& value, TypeKey wanted) {
  if (type_key<T>() == wanted) return &value;
  if constexpr (IsTupleLike<T>::value) {
    const void* found = nullptr;
    std::apply(
        [&](const auto&... items) {
          ((found = found ? found : find_response(items, wanted)), ...);
        },
        value);
    return found;
  } else if constexpr (is_routed_v<T>) {
    return value.mode == DispatchModes::None ? nullptr : find_response(value.value, wanted);
  } else if constexpr (IsOptionalResponse<T>::value) {
    return value.has_value() ? find_response(*value, wanted) : nullptr;
  } else if constexpr (IsVectorResponse<T>::value) {
    for (const auto& item : value) {
      if (const void* found = find_response(item, wanted)) return found;
    }
    return nullptr;
  } else {
    return nullptr;
  }
}

}  // namespace whizbang::internal

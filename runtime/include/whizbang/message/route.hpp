// Route, Routed<T> and RoutedNone: per-message routing on values a receptor returns.
//
//   return std::tuple{OrderResult{id}, whizbang::Route::Both(OrderCreated{id})};
//   return std::tuple{Route::EventStoreOnly(AuditEvent{...}), Route::None()};
//
// A wrapper around a message sets that message's *individual* mode; a wrapper around anything
// else (a tuple, a vector, another wrapper) sets the *collection* mode of what it contains.
// Resolution priority is documented in docs/guide/03-routing.md (message attribute, receptor
// attribute, individual wrapper, collection wrapper, then Local).
//
// The factory names keep the cascade page's spelling (Route::Local, Route::Outbox, ...).
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "whizbang/dispatch_modes.hpp"

namespace whizbang {

// A value paired with the route it should take. A default-constructed Routed has mode None and
// is dispatched nowhere.
template <class T>
struct Routed {
  using value_type = T;
  T value{};
  DispatchModes mode = DispatchModes::None;

  friend bool operator==(const Routed&, const Routed&) = default;
};

// "Dispatch nothing": used as one branch of a tuple (success, failure) result.
struct RoutedNone {
  static constexpr DispatchModes mode = DispatchModes::None;
  friend constexpr bool operator==(RoutedNone, RoutedNone) { return true; }
};

template <class T>
struct is_routed : std::false_type {};
template <class T>
struct is_routed<Routed<T>> : std::true_type {};
template <class T>
inline constexpr bool is_routed_v = is_routed<std::remove_cvref_t<T>>::value;

struct Route {
  // Local receptors and event-store persistence (the default cascade route).
  template <class T>
  static Routed<std::decay_t<T>> Local(T&& value) {
    return {std::forward<T>(value), DispatchModes::Local};
  }
  // Local receptors only; nothing is persisted.
  template <class T>
  static Routed<std::decay_t<T>> LocalNoPersist(T&& value) {
    return {std::forward<T>(value), DispatchModes::LocalNoPersist};
  }
  // The outbox only (cross-service transport; the event store is fed from the outbox).
  template <class T>
  static Routed<std::decay_t<T>> Outbox(T&& value) {
    return {std::forward<T>(value), DispatchModes::Outbox};
  }
  // Local receptors and the outbox.
  template <class T>
  static Routed<std::decay_t<T>> Both(T&& value) {
    return {std::forward<T>(value), DispatchModes::Both};
  }
  // The event store only: no local receptors, no transport (outbox row with null destination).
  template <class T>
  static Routed<std::decay_t<T>> EventStoreOnly(T&& value) {
    return {std::forward<T>(value), DispatchModes::EventStoreOnly};
  }
  static constexpr RoutedNone None() { return {}; }

  // Per-item wrappers. A range passed to LocalNoPersist/EventStoreOnly is one collection wrapper;
  // these wrap every element on its own instead.
  template <class Range>
  static auto LocalNoPersistEach(const Range& items) {
    return each(items, DispatchModes::LocalNoPersist);
  }
  template <class Range>
  static auto EventStoreOnlyEach(const Range& items) {
    return each(items, DispatchModes::EventStoreOnly);
  }

 private:
  template <class Range>
  static auto each(const Range& items, DispatchModes mode) {
    using Element = std::remove_cvref_t<decltype(*std::begin(items))>;
    std::vector<Routed<Element>> out;
    for (const auto& item : items) out.push_back(Routed<Element>{item, mode});
    return out;
  }
};

}  // namespace whizbang

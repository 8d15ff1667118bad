// Event-version diagnostics: WHIZ016 a version with no upcaster path or an old shape nobody
// upcasts, WHIZ015 an upcaster of the wrong shape or versions or a second one from one shape,
// WHIZ009 bad [[whizbang::version]] / [[whizbang::upcaster]] arguments, WHIZ003 misplaced ones.
#pragma once

#include <string>

#include <whizbang/attributes.hpp>

namespace diagv {

// Version 3 with only the v2 -> v3 step: version 1 cannot reach it.
struct [[whizbang::version(2)]] ShippedV2 {
  std::string id;
};
struct [[whizbang::version(3)]] Shipped : whizbang::Event {  // expected-error WHIZ016
  std::string id;
  std::string carrier;
};
[[whizbang::upcaster]] Shipped upcast(const ShippedV2& old);

// An old shape no upcaster starts from.
struct [[whizbang::version(1)]] Orphan {  // expected-error WHIZ016
  int n = 0;
};

// Versions that are not consecutive (1 -> 3), and a second upcaster from one shape.
struct [[whizbang::version(1)]] PaidV1 {
  int cents = 0;
};
struct [[whizbang::version(2)]] PaidV2 {
  long cents = 0;
};
struct [[whizbang::version(3)]] Paid : whizbang::Event {
  long cents = 0;
  std::string currency;
};
[[whizbang::upcaster]] Paid skip(const PaidV1& old);  // expected-error WHIZ015
[[whizbang::upcaster]] PaidV2 upcast(const PaidV1& old);
[[whizbang::upcaster]] PaidV2 again(const PaidV1& old);  // expected-error WHIZ015
[[whizbang::upcaster]] Paid upcast(const PaidV2& old);

// Upcasters of the wrong shape: a mutable parameter, a parameter that is no old shape, a result
// that is no shape or message, two parameters.
struct [[whizbang::version(1)]] RefundedV1 {
  int n = 0;
};
struct [[whizbang::version(2)]] Refunded : whizbang::Event {
  int n = 0;
};
[[whizbang::upcaster]] Refunded upcast(RefundedV1& old);           // expected-error WHIZ015
[[whizbang::upcaster]] Refunded upcast(const std::string& old);    // expected-error WHIZ015
[[whizbang::upcaster]] int as_number(const RefundedV1& old);       // expected-error WHIZ015
[[whizbang::upcaster]] Refunded both(const RefundedV1& a, int b);  // expected-error WHIZ015
[[whizbang::upcaster]] Refunded upcast(const RefundedV1& old);

// Bad arguments and misplaced attributes.
struct [[whizbang::version(0)]] Zero : whizbang::Event {  // expected-error WHIZ009
  int n = 0;
};
struct [[whizbang::version("2")]] Quoted : whizbang::Event {  // expected-error WHIZ009
  int n = 0;
};
[[whizbang::upcaster(1)]] Refunded with_argument(const RefundedV1& old);  // expected-error WHIZ009
struct [[whizbang::upcaster]] NotAFunction {                              // expected-error WHIZ003
  int n = 0;
};
class [[whizbang::version(2)]] Audit  // expected-error WHIZ003
    : public whizbang::Receptor<Refunded> {
 public:
  void handle(const Refunded& event);
};

}  // namespace diagv

// Message diagnostics: WHIZ005 unsupported field type, WHIZ007 duplicate wire names.
#pragma once

#include <list>
#include <map>
#include <memory>
#include <string>

#include <whizbang/attributes.hpp>

namespace diag {

struct Inner {
  std::list<int> values;  // expected-error WHIZ005
};

struct Order : whizbang::Event {
  std::string id;
  int* raw = nullptr;                 // expected-error WHIZ005
  std::shared_ptr<std::string> ptr;   // expected-error WHIZ005
  std::map<int, std::string> by_int;  // expected-error WHIZ005
  char letter = 'a';                  // expected-error WHIZ005
  Inner inner;

 private:
  std::list<int> hidden_;  // private members are not serialized: no error
};

struct [[whizbang::wire_name("diag.Shipped")]] Shipped : whizbang::Event {
  std::string id;
};

struct [[whizbang::wire_name("diag.Shipped")]] ShippedAgain : whizbang::Event {  // expected-error WHIZ007
  std::string id;
};

}  // namespace diag

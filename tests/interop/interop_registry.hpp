// The interop tests' message types by name, as the generated registry knows them.
#pragma once

#include <string_view>

#include "whizbang_registry.hpp"

namespace interop_test {

inline const whizbang::MessageTypeInfo* resolve(std::string_view name) {
  return whizbang::generated::whizbang_interop_tests::registry().find_message(name);
}

}  // namespace interop_test

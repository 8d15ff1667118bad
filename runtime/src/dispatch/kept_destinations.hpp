// Destinations kept for the life of the program, so a DeliveryReceipt can borrow one instead of
// copying it on every publish (StaticOrOwnedString): a dispatcher keeps each message type's
// default destination here once, when it is built. Each distinct text is kept once; there are as
// many as there are destinations in the registries, and none is ever freed (a receipt may outlive
// the dispatcher that made it).
#pragma once

#include <string>
#include <string_view>

namespace whizbang::dispatch_internal {

// `destination`, as text that lives as long as the program. Thread-safe.
std::string_view keep_destination(const std::string& destination);

}  // namespace whizbang::dispatch_internal

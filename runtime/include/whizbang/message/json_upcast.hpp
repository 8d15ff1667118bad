// The upcast entry points of generated code: MessageTraits<T>::upcast (whizbang_messages.hpp of
// a target with a [[whizbang::version(N)]] type) decodes an older payload as its old shape and
// applies the [[whizbang::upcaster]] chain (whizbang/message/payload_version.hpp).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/json_codec.hpp"
#include "whizbang/message/message_type.hpp"

namespace whizbang::internal {

// InvalidArgument: no upcaster chain starts at `version`; `known` lists the versions this build
// reads ("1, 2, 3").
absl::Status unknown_payload_version(const MessageTypeInfo& info, std::uint32_t version,
                                     std::string_view known);

// Decodes `payload` as `Shape` (an old shape of the message type `info`) and upcasts it with
// `upcast` (the generated chain of [[whizbang::upcaster]] calls). An upcaster that throws is an
// InvalidArgument naming the type and version, never a crash of the reading worker.
template <class Shape, JsonStyle Style, class Upcast>
absl::StatusOr<AnyMessage> upcast_payload(const MessageTypeInfo& info, std::uint32_t version,
                                          const void* payload, Upcast&& upcast) {
  using Current = std::decay_t<std::invoke_result_t<Upcast, const Shape&>>;
  Shape shape{};
  if (absl::Status status = read_value(*static_cast<const JsonValue*>(payload), shape, "$", Style);
      !status.ok()) {
    return absl::InvalidArgumentError("version " + std::to_string(version) + " of " +
                                      std::string(info.wire_name) + ": " +
                                      std::string(status.message()));
  }
  try {
    auto message = std::make_shared<Current>(upcast(static_cast<const Shape&>(shape)));
    return AnyMessage::from_parts(std::shared_ptr<const void>(std::move(message)),
                                  MessageTraits<Current>::info());
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError("upcasting version " + std::to_string(version) + " of " +
                                      std::string(info.wire_name) + " threw: " + error.what());
  } catch (...) {
    return absl::InvalidArgumentError("upcasting version " + std::to_string(version) + " of " +
                                      std::string(info.wire_name) + " threw");
  }
}

}  // namespace whizbang::internal

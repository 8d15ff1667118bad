// AnyMessage: a message of any generated type, type-erased without RTTI.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "whizbang/message/message_type.hpp"

namespace whizbang {

// AnyMessage: an owning, immutable, type-erased message (shared, cheap to copy).
//
//   AnyMessage m = AnyMessage::make(shop::OrderCreated{"o-1", "c-9"});
//   if (const auto* created = m.get_if<shop::OrderCreated>()) use(created->order_id);
//   std::string json = m.to_json();
class AnyMessage {
 public:
  AnyMessage() = default;

  template <GeneratedMessage T>
  static AnyMessage make(T message) {
    return AnyMessage(std::make_shared<const T>(std::move(message)), MessageTraits<T>::info());
  }
  template <GeneratedMessage T>
  static AnyMessage share(std::shared_ptr<const T> message) {
    return AnyMessage(std::move(message), MessageTraits<T>::info());
  }
  // Refers to `message` without owning or copying it (no allocation): valid only while `message`
  // lives. The dispatcher's entry points use it, as a dispatch finishes before it returns.
  template <GeneratedMessage T>
  static AnyMessage borrow(const T& message) {
    // The aliasing constructor with an empty owner: a non-null pointer with no control block.
    return AnyMessage(std::shared_ptr<const void>(std::shared_ptr<const void>(), &message),
                      MessageTraits<T>::info());
  }
  // For generated decoders: `data` must point at an instance of the type `info` describes.
  static AnyMessage from_parts(std::shared_ptr<const void> data, const MessageTypeInfo& info) {
    return AnyMessage(std::move(data), info);
  }

  bool has_value() const { return data_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  // nullptr for an empty AnyMessage.
  const MessageTypeInfo* info() const { return info_; }
  const void* data() const { return data_.get(); }
  const std::shared_ptr<const void>& shared_data() const { return data_; }

  // The message as a T, or nullptr when it holds another type (pointer comparison, no RTTI).
  template <GeneratedMessage T>
  const T* get_if() const {
    return info_ == &MessageTraits<T>::info() ? static_cast<const T*>(data_.get()) : nullptr;
  }
  template <GeneratedMessage T>
  bool is() const {
    return info_ == &MessageTraits<T>::info();
  }

  // Empty string for an empty AnyMessage.
  std::string to_json() const { return info_ ? info_->to_json(data_.get()) : std::string(); }

 private:
  AnyMessage(std::shared_ptr<const void> data, const MessageTypeInfo& info)
      : data_(std::move(data)), info_(&info) {}

  std::shared_ptr<const void> data_;
  const MessageTypeInfo* info_ = nullptr;
};

}  // namespace whizbang

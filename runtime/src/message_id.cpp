#include "whizbang/message_id.hpp"

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "fmt/format.h"

namespace whizbang {
namespace {

constexpr std::uint32_t kCounterBits = 26;
constexpr std::uint32_t kCounterMax = (1u << kCounterBits) - 1;
// A fresh millisecond seeds the counter with 25 random bits, leaving the top bit as headroom so
// increments within the millisecond rarely overflow (the reference generator does the same).
constexpr std::uint32_t kCounterSeedMask = (1u << (kCounterBits - 1)) - 1;

std::int64_t now_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

absl::InsecureBitGen& thread_bits() {
  thread_local absl::InsecureBitGen bits;
  return bits;
}

// Process-wide (millisecond, counter) clock. Shared so that ids sort in minting order across
// threads; the critical section is a handful of instructions.
class MonotonicClock {
 public:
  struct Tick {
    std::int64_t millis;
    std::uint32_t counter;
  };

  Tick next(std::uint32_t seed) {
    const std::int64_t now = now_millis();
    absl::MutexLock lock(&mutex_);
    if (now > millis_) {
      millis_ = now;
      counter_ = seed & kCounterSeedMask;
    } else if (counter_ < kCounterMax) {
      // Same millisecond, or the wall clock went backwards: keep the later time.
      ++counter_;
    } else {
      // Counter exhausted within one millisecond: borrow the next millisecond.
      ++millis_;
      counter_ = seed & kCounterSeedMask;
    }
    return {millis_, counter_};
  }

 private:
  absl::Mutex mutex_;
  std::int64_t millis_ ABSL_GUARDED_BY(mutex_) = 0;
  std::uint32_t counter_ ABSL_GUARDED_BY(mutex_) = 0;
};

MonotonicClock& clock() {
  static MonotonicClock* instance =
      new MonotonicClock();  // never destroyed: minting at exit is safe
  return *instance;
}

}  // namespace

bool is_v7(const Uuid& id) { return id.version() == 7 && id.variant_bits() == 0b10; }

MessageId MessageId::mint() {
  absl::InsecureBitGen& bits = thread_bits();
  const std::uint64_t random = absl::Uniform<std::uint64_t>(bits);
  const std::uint32_t seed = absl::Uniform<std::uint32_t>(bits);
  const MonotonicClock::Tick tick = clock().next(seed);

  Uuid::Bytes b{};
  const auto ms = static_cast<std::uint64_t>(tick.millis);
  for (int i = 0; i < 6; ++i) b[i] = static_cast<std::uint8_t>(ms >> (40 - 8 * i));
  const std::uint32_t high = tick.counter >> 14;    // 12 bits
  const std::uint32_t low = tick.counter & 0x3FFF;  // 14 bits
  b[6] = static_cast<std::uint8_t>(0x70 | (high >> 8));
  b[7] = static_cast<std::uint8_t>(high & 0xFF);
  b[8] = static_cast<std::uint8_t>(0x80 | (low >> 8));
  b[9] = static_cast<std::uint8_t>(low & 0xFF);
  for (int i = 0; i < 6; ++i) b[10 + i] = static_cast<std::uint8_t>(random >> (8 * i));
  return MessageId(Uuid(b));
}

absl::StatusOr<MessageId> MessageId::from(const Uuid& id) {
  if (!is_v7(id)) {
    return absl::InvalidArgumentError(fmt::format(
        "message id {} is not a version 7 UUID with the RFC variant (version {}, variant bits {})",
        id.to_string(), id.version(), id.variant_bits()));
  }
  return MessageId(id);
}

absl::StatusOr<MessageId> MessageId::parse(std::string_view text) {
  absl::StatusOr<Uuid> id = Uuid::parse(text);
  if (!id.ok()) return id.status();
  return from(*id);
}

std::int64_t MessageId::unix_millis() const {
  std::uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | uuid_.bytes()[i];
  return static_cast<std::int64_t>(ms);
}

std::chrono::system_clock::time_point MessageId::timestamp() const {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(unix_millis()));
}

std::uint32_t MessageId::counter() const {
  const auto& b = uuid_.bytes();
  const std::uint32_t high = (static_cast<std::uint32_t>(b[6] & 0x0F) << 8) | b[7];
  const std::uint32_t low = (static_cast<std::uint32_t>(b[8] & 0x3F) << 8) | b[9];
  return (high << 14) | low;
}

}  // namespace whizbang

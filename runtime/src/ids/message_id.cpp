#include "whizbang/ids/message_id.hpp"

#include <atomic>
#include <bit>
#include <cstring>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "whizbang/internal/fast_clock.hpp"

namespace whizbang {
namespace {

constexpr std::uint32_t kCounterBits = 26;
constexpr std::uint64_t kCounterMax = (1u << kCounterBits) - 1;
// A fresh millisecond seeds the counter with 25 random bits, leaving the top bit as headroom so
// increments within the millisecond rarely overflow (the reference generator does the same).
constexpr std::uint64_t kCounterSeedMask = (1u << (kCounterBits - 1)) - 1;

// FastClock: a clock_gettime costs more than the rest of a mint on virtual machines; the id only
// needs the millisecond, and the monotonic word below absorbs any step back.
std::int64_t now_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             internal::FastClock::now().time_since_epoch())
      .count();
}

// splitmix64 per thread, seeded once from Abseil's entropy: id tails need uniqueness, not secrecy,
// and this costs a few instructions per id.
std::uint64_t next_random() {
  thread_local std::uint64_t state = absl::Uniform<std::uint64_t>(absl::BitGen());
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Process-wide (millisecond, counter) clock in one atomic word, so ids sort in minting order
// across threads without a lock. The word holds the milliseconds since the clock's base
// (38 bits: 8.7 years of process life) above the 26-bit counter.
class MonotonicClock {
 public:
  struct Tick {
    std::int64_t millis;
    std::uint32_t counter;
  };

  Tick next(std::uint64_t seed) {
    const std::int64_t now = now_millis();
    const auto now_delta = static_cast<std::uint64_t>(now > base_ ? now - base_ : 0);
    std::uint64_t old_state = state_.load(std::memory_order_relaxed);
    std::uint64_t new_state = 0;
    do {
      const std::uint64_t delta = old_state >> kCounterBits;
      const std::uint64_t counter = old_state & kCounterMax;
      if (now_delta > delta) {
        new_state = (now_delta << kCounterBits) | (seed & kCounterSeedMask);
      } else if (counter < kCounterMax) {
        // Same millisecond, or the wall clock went backwards: keep the later time.
        new_state = old_state + 1;
      } else {
        // Counter exhausted within one millisecond: borrow the next millisecond.
        new_state = ((delta + 1) << kCounterBits) | (seed & kCounterSeedMask);
      }
    } while (!state_.compare_exchange_weak(old_state, new_state, std::memory_order_relaxed));
    return {base_ + static_cast<std::int64_t>(new_state >> kCounterBits),
            static_cast<std::uint32_t>(new_state & kCounterMax)};
  }

 private:
  const std::int64_t base_ = now_millis() - 1;
  std::atomic<std::uint64_t> state_{0};
};

MonotonicClock& clock() {
  static MonotonicClock* instance =
      new MonotonicClock();  // never destroyed: minting at exit is safe
  return *instance;
}

}  // namespace

bool is_v7(const Uuid& id) { return id.version() == 7 && id.variant_bits() == 0b10; }

MessageId MessageId::mint() {
  const std::uint64_t random = next_random();
  // The tail takes the low 48 bits; a new millisecond's counter seed takes the top 25.
  const MonotonicClock::Tick tick = clock().next(random >> 39);

  // Bytes 0-7 as one big-endian word (48-bit millisecond, version, counter's high 12 bits) and
  // the tail as the random word's low bytes in order: a few stores instead of a byte loop.
  const std::uint32_t high = tick.counter >> 14;    // 12 bits
  const std::uint32_t low = tick.counter & 0x3FFF;  // 14 bits
  const std::uint64_t head =
      (static_cast<std::uint64_t>(tick.millis) << 16) | 0x7000u | static_cast<std::uint64_t>(high);
  constexpr bool kLittle = std::endian::native == std::endian::little;
  const std::uint64_t head_bytes = kLittle ? __builtin_bswap64(head) : head;      // big-endian
  const std::uint64_t tail_bytes = kLittle ? random : __builtin_bswap64(random);  // LSB first
  Uuid::Bytes b;
  std::memcpy(b.data(), &head_bytes, 8);
  b[8] = static_cast<std::uint8_t>(0x80 | (low >> 8));
  b[9] = static_cast<std::uint8_t>(low & 0xFF);
  std::memcpy(b.data() + 10, &tail_bytes, 6);
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

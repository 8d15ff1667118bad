// StaticOrOwnedString: invocation records borrow registry ids and own decoded text.
#include "whizbang/message/static_or_owned_string.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace whizbang {
namespace {

constexpr std::string_view kReceptorId = "shop::orders::SendConfirmationReceptor";

TEST(StaticOrOwnedStringTests, Borrow_RefersToTheStaticText) {
  const StaticOrOwnedString id = StaticOrOwnedString::borrow(kReceptorId);
  EXPECT_EQ(id.view().data(), kReceptorId.data());
  const StaticOrOwnedString copy = id;  // copies keep borrowing
  EXPECT_EQ(copy.view().data(), kReceptorId.data());
  EXPECT_EQ(copy, id);
}

TEST(StaticOrOwnedStringTests, Borrowed_ConvertsWithoutCopying) {
  struct Field {
    StaticOrOwnedString id;
  };
  const Field field{StaticOrOwnedString::Borrowed{kReceptorId}};
  EXPECT_EQ(field.id.view().data(), kReceptorId.data());
  EXPECT_EQ(field.id, kReceptorId);
}

TEST(StaticOrOwnedStringTests, Owned_OutlivesItsSource) {
  StaticOrOwnedString id;
  {
    std::string decoded = "shop::Mailer-decoded-from-a-row";
    id = decoded;
    decoded.assign(decoded.size(), 'x');
  }
  EXPECT_EQ(id, "shop::Mailer-decoded-from-a-row");
  StaticOrOwnedString moved = std::move(id);
  EXPECT_EQ(moved.view(), "shop::Mailer-decoded-from-a-row");
}

TEST(StaticOrOwnedStringTests, ComparesTextWhateverItsStorage) {
  const StaticOrOwnedString borrowed = StaticOrOwnedString::borrow(kReceptorId);
  const StaticOrOwnedString owned = std::string(kReceptorId);
  EXPECT_EQ(borrowed, owned);
  EXPECT_EQ(borrowed, kReceptorId);
  EXPECT_EQ(borrowed, std::string(kReceptorId));
  EXPECT_EQ(borrowed, "shop::orders::SendConfirmationReceptor");
  EXPECT_NE(borrowed, "shop::Other");
  EXPECT_TRUE(StaticOrOwnedString().empty());
  std::ostringstream printed;
  printed << borrowed;
  EXPECT_EQ(printed.str(), kReceptorId);
}

}  // namespace
}  // namespace whizbang

// The emitters' template printer: substitution, the trimmed template edges, `$$`, and the
// internal errors a broken template aborts with.
#include <gtest/gtest.h>

#include "printer.hpp"

namespace {

using whizgen::Printer;

TEST(PrinterTests, SubstitutesVariablesEverywhereTheyAppear) {
  Printer p;
  p.print("struct $name$ { $name$() = default; };\n", {{"name", "Foo"}});
  EXPECT_EQ(p.str(), "struct Foo { Foo() = default; };\n");
}

TEST(PrinterTests, RawStringTemplate_DropsTheLeadingNewlineAndTheClosingIndentation) {
  Printer p;
  p.print(R"cc(
    int $var$ = 0;
  )cc",
          {{"var", "x"}});
  EXPECT_EQ(p.str(), "    int x = 0;\n");
}

TEST(PrinterTests, KeepsBlankLinesInsideATemplate) {
  Printer p;
  p.print(R"cc(
    a();

    b();

  )cc");
  EXPECT_EQ(p.str(), "    a();\n\n    b();\n\n");
}

TEST(PrinterTests, DoubleDollarPrintsOneDollar) {
  Printer p;
  p.print("cost: $$$amount$\n", {{"amount", "5"}});
  EXPECT_EQ(p.str(), "cost: $5\n");
}

TEST(PrinterTests, MultiLineValueIsInsertedAsIs) {
  Printer p;
  p.print("{\n$body$}\n", {{"body", "one();\ntwo();\n"}});
  EXPECT_EQ(p.str(), "{\none();\ntwo();\n}\n");
}

TEST(PrinterTests, PrintsAppendInOrder) {
  Printer p;
  p.print("a\n");
  p.print("b\n");
  EXPECT_EQ(p.str(), "a\nb\n");
}

TEST(PrinterDeathTests, UnknownVariable_AbortsNamingIt) {
  EXPECT_DEATH(
      {
        Printer p;
        p.print("$missing$");
      },
      "no template variable 'missing'");
}

TEST(PrinterDeathTests, UnterminatedDollar_Aborts) {
  EXPECT_DEATH(
      {
        Printer p;
        p.print("price $5");
      },
      "unterminated");
}

}  // namespace

// Perspective diagnostics: WHIZ012 an apply for a non-event, WHIZ013 an unusable perspective
// (apply of the wrong shape, no apply, a model that is not a plain struct), WHIZ010 an
// unresolvable constructor parameter, WHIZ003 an attribute on a perspective.
#pragma once

#include <string>

#include <whizbang/attributes.hpp>

namespace diagp {

struct Created : whizbang::Event {
  int n = 0;
};
struct Create : whizbang::Command {
  int n = 0;
};
struct NotAMessage {
  int n = 0;
};
struct Model {
  int count = 0;
};

class CommandApply : public whizbang::Perspective<Model> {
 public:
  void apply(Model& model, const Create& command);  // expected-error WHIZ012
};

class PlainApply : public whizbang::Perspective<Model> {
 public:
  void apply(Model& model, const NotAMessage& value);  // expected-error WHIZ012
};

class ConstModel : public whizbang::Perspective<Model> {
 public:
  void apply(const Model& model, const Created& event);  // expected-error WHIZ013
};

class MutableEvent : public whizbang::Perspective<Model> {
 public:
  void apply(Model& model, Created& event);  // expected-error WHIZ013
};

class ReturnsInt : public whizbang::Perspective<Model> {
 public:
  int apply(Model& model, const Created& event);  // expected-error WHIZ013
};

class NoApply : public whizbang::Perspective<Model> {};  // expected-error WHIZ013

class IntModel : public whizbang::Perspective<int> {  // expected-error WHIZ013
 public:
  void apply(int& model, const Created& event);
};

class RvalueDependency : public whizbang::Perspective<Model> {
 public:
  explicit RvalueDependency(std::string&& name);  // expected-error WHIZ010
  void apply(Model& model, const Created& event);
};

class [[whizbang::idempotent]] Annotated  // expected-error WHIZ003
    : public whizbang::Perspective<Model> {
 public:
  void apply(Model& model, const Created& event);
};

}  // namespace diagp

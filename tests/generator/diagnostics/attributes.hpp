// Attribute diagnostics: WHIZ001 unknown attribute, WHIZ002 unknown stage, WHIZ003 misplaced,
// WHIZ009 bad arguments.
#pragma once

#include <whizbang/attributes.hpp>

namespace diag {

struct Ping : whizbang::Event {
  int n = 0;
};

class [[whizbang::fire_a(whizbang::Stage::PostInboxInline)]] Typo  // expected-error WHIZ001
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class [[whizbang::fire_at(whizbang::Stage::PostInboxInlin)]] BadStage  // expected-error WHIZ002
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class [[whizbang::fire_at(whizbang::DispatchModes::Local)]] NotAStage  // expected-error WHIZ002
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class [[whizbang::fire_at(whizbang::Stage::AfterReceptorCompletion)]] TagHook  // expected-error WHIZ002
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

struct [[whizbang::idempotent]] PlainStruct {  // expected-error WHIZ003
  int n = 0;
};

[[whizbang::once_across_services]] void free_function();  // expected-error WHIZ003

struct [[whizbang::fire_at(whizbang::Stage::PostInboxInline)]] Pong  // expected-error WHIZ003
    : whizbang::Event {
  int n = 0;
};

class [[whizbang::wire_name("diag.Receptor")]] NamedReceptor  // expected-error WHIZ003
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class [[fire_at(whizbang::Stage::PostInboxInline)]] Bare  // expected-error WHIZ009
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

struct [[whizbang::wire_name(42)]] NumericName : whizbang::Event {  // expected-error WHIZ009
  int n = 0;
};

class [[whizbang::default_routing(whizbang::DispatchModes::Sideways)]] BadMode  // expected-error WHIZ009
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

class [[whizbang::once_across_services(1)]] OnceWithArgs  // expected-error WHIZ009
    : public whizbang::Receptor<Ping> {
 public:
  void handle(const Ping& ping);
};

}  // namespace diag

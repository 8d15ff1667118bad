// Receptor diagnostics: WHIZ004 no matching handle, WHIZ006 unsupported result shape,
// WHIZ008 a command with two receptors, WHIZ010 unresolvable dependency, WHIZ011 not a message.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <variant>

#include <whizbang/attributes.hpp>

namespace diag {

struct Ping : whizbang::Event {
  int n = 0;
};
struct Pong : whizbang::Event {
  int n = 0;
};
struct Go : whizbang::Command {
  int n = 0;
};

class NoHandle : public whizbang::Receptor<Ping> {};  // expected-error WHIZ004

class WrongReturn : public whizbang::Receptor<Ping, Pong> {  // expected-error WHIZ004
 public:
  void handle(const Ping& ping);
};

class WrongParameter : public whizbang::Receptor<Ping> {  // expected-error WHIZ004
 public:
  void handle(Ping& ping);
};

class PrivateHandle : public whizbang::Receptor<Ping> {  // expected-error WHIZ004
  void handle(const Ping& ping);
};

class VariantResult : public whizbang::Receptor<Ping, std::variant<Pong, int>> {  // expected-error WHIZ006
 public:
  std::variant<Pong, int> handle(const Ping& ping);
};

class PointerResult : public whizbang::Receptor<Ping, std::unique_ptr<Pong>> {  // expected-error WHIZ006
 public:
  std::unique_ptr<Pong> handle(const Ping& ping);
};

class MapResult : public whizbang::Receptor<Ping, std::map<std::string, Pong>> {  // expected-error WHIZ006
 public:
  std::map<std::string, Pong> handle(const Ping& ping);
};

class FirstGo : public whizbang::Receptor<Go> {
 public:
  void handle(const Go& go);
};

class SecondGo : public whizbang::Receptor<Go> {  // expected-error WHIZ008
 public:
  void handle(const Go& go);
};

struct Clock {};

class MovedDependency : public whizbang::Receptor<Ping> {
 public:
  explicit MovedDependency(Clock&& clock);  // expected-error WHIZ010
  void handle(const Ping& ping);
};

class NoPublicConstructor : public whizbang::Receptor<Pong> {  // expected-error WHIZ010
 public:
  void handle(const Pong& pong);

 private:
  NoPublicConstructor();
};

class IntReceptor : public whizbang::Receptor<int> {  // expected-error WHIZ011
 public:
  void handle(const int& value);
};

}  // namespace diag

// The generator's model: what the scanner found, as plain structs with no Clang types.
//
// The scanner (scanner.cpp) fills a Model from the AST; the emitters (emit_*.cpp) turn it into
// C++ text. Names are fully qualified C++ spellings without a leading "::"; locations are
// already relative to --root, so the model is all an emitter needs and is trivially testable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace whizgen {

struct Location {
  std::string file;  // relative to --root when under it
  unsigned line = 0;
};

// A public data member serialized by the JSON codec.
struct Field {
  std::string name;
  std::string type;  // spelled for diagnostics and comments
  // Its name in the .NET style (a C# property): [[whizbang::dotnet_name]] or the name in
  // PascalCase.
  std::string dotnet_name;
  // The C# type System.Text.Json reads its JSON as ("System.DateTime"); empty when that type
  // has a name of its own (an enum, a struct).
  std::string dotnet_type;
};

// A plain struct reachable from a message's fields: gets a JsonCodec of its own.
struct StructModel {
  std::string cpp_name;
  Location location;
  std::vector<Field> fields;
};

enum class MessageKind { Event, Command };

// One step of a message type's upcast chain: the old shape of `version` (a plain struct with
// [[whizbang::version(version)]]) and the [[whizbang::upcaster]] function from it to the next
// version (`result`: the next old shape, or the message type itself).
struct UpcastStep {
  std::uint32_t version = 1;
  std::string shape;     // qualified struct name
  std::string upcaster;  // qualified function name
  std::string result;    // qualified type name of the upcaster's result
  Location location;     // the upcaster's
};

struct MessageModel {
  std::string cpp_name;
  std::string wire_name;
  // [[whizbang::dotnet_type("Ns.Type, Assembly")]]: the .NET type it is shared with; empty when
  // it has none. Such a message's wire name is the .NET full name.
  std::string dotnet_type;
  MessageKind kind = MessageKind::Event;
  std::optional<std::string> default_routing;  // DispatchModes enumerator name
  Location location;
  std::vector<Field> fields;
  // Its receptors: model.receptors[first_receptor, first_receptor + receptor_count), set once
  // the receptors are ordered (scanner), read by every emitter.
  std::size_t first_receptor = 0;
  std::size_t receptor_count = 0;
  // default_routing of the first of those receptors that carries one.
  std::optional<std::string> receptor_default_routing;
  // [[whizbang::version(N)]]: the version of the payload's current shape (1 when absent).
  std::uint32_t version = 1;
  // The steps from each older version, by version (1 .. version-1); empty when version is 1.
  std::vector<UpcastStep> upcasts;
};

// How a receptor constructor parameter is obtained from the ServiceRegistry.
struct Dependency {
  enum class Kind { Reference, Pointer, Value };
  std::string type;  // unqualified (no const), fully qualified name
  Kind kind = Kind::Reference;
};

// The structure of a receptor result, as far as the cascade walk is concerned.
struct Shape {
  enum class Kind {
    Message,     // a message type: emitted
    Tuple,       // std::tuple / std::pair: children left to right
    Range,       // std::vector / std::array / std::span: one child, the element
    Routed,      // whizbang::Routed<T>: one child
    RoutedNone,  // whizbang::RoutedNone: nothing
    Optional,    // std::optional<T>: one child
    Ignored,     // anything else: reported to CascadeSink::ignored
  };
  Kind kind = Kind::Ignored;
  std::string type;                            // spelled type of this node
  std::optional<std::string> message_routing;  // Message: the type's default_routing
  std::vector<Shape> children;
};

// The stages of a receptor without [[whizbang::fire_at]] (Stage enumerator names).
inline const std::vector<std::string> kDefaultStageNames = {"LocalImmediateDetached",
                                                            "PostInboxDetached"};

struct ReceptorModel {
  std::string id;                   // qualified class name
  std::string message;              // qualified message type name
  std::vector<std::string> stages;  // Stage enumerator names
  bool default_stages = true;
  bool idempotent = false;
  bool always_fire = false;
  bool once_across_services = false;
  std::optional<std::string> default_routing;
  std::string response_type;  // empty for void
  std::optional<Shape> result;
  std::vector<Dependency> dependencies;
  Location location;
};

// A perspective: a Perspective<Model> subclass with apply(Model&, const Event&) overloads.
struct PerspectiveModel {
  std::string id;                   // qualified class name (also its store name)
  std::string model;                // qualified model type name
  std::vector<std::string> events;  // qualified event names, in messages (wire-name) order
  std::vector<Dependency> dependencies;
  Location location;
  // [[whizbang::version(N)]] on the perspective class (1 when absent).
  std::uint32_t version = 1;
};

struct Model {
  std::string target;                        // whizbang_generate() target name
  std::string namespace_name;                // C++ identifier derived from target
  std::vector<std::string> headers;          // as named in the banner (relative to root)
  std::vector<std::string> header_includes;  // include spellings for generated code
  std::vector<StructModel> structs;          // dependency order (a struct after the ones it uses)
  std::vector<std::string> codec_order;      // structs and messages, each after what it contains
  std::vector<MessageModel> messages;        // sorted by wire name
  std::vector<ReceptorModel> receptors;  // grouped by message (messages order), then declaration
  std::vector<PerspectiveModel> perspectives;  // sorted by id
};

}  // namespace whizgen

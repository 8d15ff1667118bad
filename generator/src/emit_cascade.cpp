// Cascade walks: code generated from a receptor's result type that hands every message it
// contains to a CascadeSink, depth-first and left to right, with its resolved route.
//
// Route priority (docs/guide/03-routing.md; a bare message routes Local): the message type's
// default_routing > the receptor's default_routing > the innermost Routed around the message
// (individual) > the innermost Routed around a collection (collection) > Local. The first two
// are known here and become constants; the wrapper modes are read from the values.
#include "emit.hpp"

namespace whizgen {
namespace {

constexpr const char* kModes = "::whizbang::DispatchModes::";

class CascadeWalk {
 public:
  CascadeWalk(const ReceptorModel& receptor, Printer& printer) : receptor_(receptor), p_(printer) {}

  void walk(const Shape& shape, const std::string& expr, const std::string& individual,
            const std::string& collection) {
    switch (shape.kind) {
      case Shape::Kind::Message:
        emit_message(shape, expr, individual, collection);
        return;
      case Shape::Kind::Tuple:
        for (std::size_t i = 0; i < shape.children.size(); ++i) {
          walk(shape.children[i], "std::get<" + std::to_string(i) + ">(" + expr + ")", individual,
               collection);
        }
        return;
      case Shape::Kind::Range: {
        const std::string var = next_var();
        p_.print("for (const auto& $var$ : $expr$) {\n", {{"var", var}, {"expr", expr}});
        body(shape.children[0], var, individual, collection);
        p_.print("}\n");
        return;
      }
      case Shape::Kind::Optional: {
        const std::string var = next_var();
        p_.print("if (const auto& $var$ = $expr$; $var$.has_value()) {\n",
                 {{"var", var}, {"expr", expr}});
        body(shape.children[0], "*" + var, individual, collection);
        p_.print("}\n");
        return;
      }
      case Shape::Kind::Routed: {
        const std::string var = next_var();
        p_.print("if (const auto& $var$ = $expr$; $var$.mode != $modes$None) {\n",
                 {{"var", var}, {"expr", expr}, {"modes", kModes}});
        const std::string mode = var + ".mode";
        const bool around_message = is_message_like(shape.children[0]);
        body(shape.children[0], var + ".value", around_message ? mode : individual,
             around_message ? collection : mode);
        p_.print("}\n");
        return;
      }
      case Shape::Kind::RoutedNone:
        p_.print("// whizbang::RoutedNone: nothing to dispatch\n");
        return;
      case Shape::Kind::Ignored:
        p_.print("sink.ignored($type$);\n", {{"type", cpp_string(shape.type)}});
        return;
    }
  }

 private:
  void body(const Shape& child, const std::string& var, const std::string& individual,
            const std::string& collection) {
    if (!uses_value(child)) p_.print("static_cast<void>($var$);\n", {{"var", var}});
    walk(child, var, individual, collection);
  }

  void emit_message(const Shape& shape, const std::string& expr, const std::string& individual,
                    const std::string& collection) {
    std::string mode;
    std::string why;
    if (shape.message_routing) {
      mode = kModes + *shape.message_routing;
      why = "message type default_routing";
    } else if (receptor_.default_routing) {
      mode = kModes + *receptor_.default_routing;
      why = "receptor default_routing";
    } else if (!individual.empty()) {
      mode = individual;
      why = "Routed around the message";
    } else if (!collection.empty()) {
      mode = collection;
      why = "Routed around its collection";
    } else {
      mode = std::string(kModes) + "Local";
      why = "default";
    }
    if (mode == std::string(kModes) + "None") {
      p_.print("// $type$: routed None ($why$), nothing to dispatch\n",
               {{"type", shape.type}, {"why", why}});
      return;
    }
    p_.print("sink.emit(::whizbang::AnyMessage::make($expr$), $mode$);  // $type$: $why$\n",
             {{"expr", expr}, {"mode", mode}, {"type", shape.type}, {"why", why}});
  }

  static bool is_message_like(const Shape& shape) {
    return shape.kind == Shape::Kind::Message ||
           (shape.kind == Shape::Kind::Optional && is_message_like(shape.children[0]));
  }

  static bool uses_value(const Shape& shape) {
    switch (shape.kind) {
      case Shape::Kind::Ignored:
      case Shape::Kind::RoutedNone:
        return false;
      case Shape::Kind::Tuple:
        for (const Shape& child : shape.children) {
          if (uses_value(child)) return true;
        }
        return false;
      default:
        return true;
    }
  }

  // Appended, not "v" + ...: g++ 12 warns falsely (-Wrestrict) on that operator+ at -O3.
  std::string next_var() {
    std::string var = "v";
    var += std::to_string(counter_++);
    return var;
  }

  const ReceptorModel& receptor_;
  Printer& p_;
  int counter_ = 0;
};

}  // namespace

void emit_cascade(const ReceptorModel& receptor, std::size_t index, Printer& p) {
  p.print(R"cc(
    // Cascade of $result$ returned by $receptor$.
    void cascade_$index$([[maybe_unused]] const auto& value,
                         [[maybe_unused]] ::whizbang::CascadeSink& sink) {
  )cc",
          {{"result", receptor.response_type},
           {"receptor", receptor.id},
           {"index", std::to_string(index)}});
  CascadeWalk(receptor, p).walk(*receptor.result, "value", "", "");
  p.print("}\n\n");
}

}  // namespace whizgen

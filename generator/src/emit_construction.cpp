// The create thunk of a receptor or perspective: its constructor's services, looked up in the
// ServiceRegistry, then the instance.
#include "emit.hpp"

namespace whizgen {

void emit_create(const std::string& function, const std::string& class_id, const std::string& owner,
                 const std::vector<Dependency>& dependencies, Printer& p) {
  p.print(R"cc(
    absl::StatusOr<std::shared_ptr<void>> $function$(
        [[maybe_unused]] const ::whizbang::ServiceRegistry& services) {
  )cc",
          {{"function", function}});
  std::string args;
  for (std::size_t d = 0; d < dependencies.size(); ++d) {
    const Dependency& dependency = dependencies[d];
    const std::string var = "dependency" + std::to_string(d);
    p.print(R"cc(
      auto* $var$ = services.find<$type$>();
      if ($var$ == nullptr) return missing_dependency($owner$, $type_string$);
    )cc",
            {{"var", var},
             {"type", global_type(dependency.type)},
             {"owner", cpp_string(owner)},
             {"type_string", cpp_string(dependency.type)}});
    if (!args.empty()) args += ", ";
    args += dependency.kind == Dependency::Kind::Pointer ? var : "*" + var;
  }
  p.print(R"cc(
      return std::shared_ptr<void>(std::make_shared<::$type$>($args$));
    }

  )cc",
          {{"type", class_id}, {"args", args}});
}

}  // namespace whizgen

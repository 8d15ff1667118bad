#include "attributes.hpp"

#include <string>
#include <vector>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "diagnostics.hpp"

namespace whizgen {
namespace {

using clang::ParsedAttr;
using clang::ParsedAttrInfo;

template <const char* kScoped, const char* kBare>
class WhizbangAttrInfo : public ParsedAttrInfo {
 public:
  WhizbangAttrInfo() {
    OptArgs = 15;
    static constexpr Spelling kSpellings[] = {{ParsedAttr::AS_CXX11, kScoped},
                                              {ParsedAttr::AS_CXX11, kBare}};
    Spellings = kSpellings;
  }

  // Accept on any declaration: the scanner reports misplaced uses with better context (WHIZ003).
  bool diagAppertainsToDecl(clang::Sema&, const ParsedAttr&, const clang::Decl*) const override {
    return true;
  }

  AttrHandling handleDeclAttribute(clang::Sema& sema, clang::Decl* decl,
                                   const ParsedAttr& attr) const override {
    const clang::SourceManager& sm = sema.getSourceManager();
    if (!attr.hasScope() || attr.getScopeName()->getName() != "whizbang") {
      Diagnostics::instance().report(sm, attr.getLoc(), Code::BadAttributeArgument,
                                     std::string("write [[") + kScoped + "]]: the bare spelling '" +
                                         kBare + "' is not a Whizbang attribute");
      return AttributeNotApplied;
    }
    std::vector<clang::Expr*> args;
    for (unsigned i = 0; i < attr.getNumArgs(); ++i) {
      if (attr.isArgIdent(i)) {
        Diagnostics::instance().report(sm, attr.getArgAsIdent(i)->Loc, Code::BadAttributeArgument,
                                       std::string("arguments of [[") + kScoped +
                                           "]] must be qualified enumerators, string or integer "
                                           "literals, not bare identifiers");
        return AttributeNotApplied;
      }
      args.push_back(attr.getArgAsExpr(i));
    }
    decl->addAttr(clang::AnnotateAttr::Create(sema.Context, kScoped, args.data(),
                                              static_cast<unsigned>(args.size()), attr));
    return AttributeApplied;
  }
};

constexpr char kFireAt[] = "whizbang::fire_at";
constexpr char kFireAtBare[] = "fire_at";
constexpr char kOnce[] = "whizbang::once_across_services";
constexpr char kOnceBare[] = "once_across_services";
constexpr char kIdempotent[] = "whizbang::idempotent";
constexpr char kIdempotentBare[] = "idempotent";
constexpr char kRouting[] = "whizbang::default_routing";
constexpr char kRoutingBare[] = "default_routing";
constexpr char kWireName[] = "whizbang::wire_name";
constexpr char kWireNameBare[] = "wire_name";
constexpr char kDotNetType[] = "whizbang::dotnet_type";
constexpr char kDotNetTypeBare[] = "dotnet_type";
constexpr char kDotNetName[] = "whizbang::dotnet_name";
constexpr char kDotNetNameBare[] = "dotnet_name";
constexpr char kVersion[] = "whizbang::version";
constexpr char kVersionBare[] = "version";
constexpr char kUpcaster[] = "whizbang::upcaster";
constexpr char kUpcasterBare[] = "upcaster";

clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kFireAt, kFireAtBare>> fire_at_registration(
    "whizbang_fire_at", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kOnce, kOnceBare>> once_registration(
    "whizbang_once_across_services", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kIdempotent, kIdempotentBare>>
    idempotent_registration("whizbang_idempotent", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kRouting, kRoutingBare>> routing_registration(
    "whizbang_default_routing", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kWireName, kWireNameBare>>
    wire_name_registration("whizbang_wire_name", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kDotNetType, kDotNetTypeBare>>
    dotnet_type_registration("whizbang_dotnet_type", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kDotNetName, kDotNetNameBare>>
    dotnet_name_registration("whizbang_dotnet_name", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kVersion, kVersionBare>> version_registration(
    "whizbang_version", "");
clang::ParsedAttrInfoRegistry::Add<WhizbangAttrInfo<kUpcaster, kUpcasterBare>>
    upcaster_registration("whizbang_upcaster", "");

}  // namespace

void link_attributes() {}

}  // namespace whizgen

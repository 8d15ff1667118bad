// The .NET types of payload members: which C++ types stand for .NET's DateTime, DateOnly,
// TimeOnly and TimeSpan (whizbang/message/dotnet_date_time.hpp), and the C# type a Whizbang .NET
// service declares for a member (written to whizbang_tables.json for shared messages).
#pragma once

#include <string>

#include "clang/AST/ASTContext.h"

namespace whizgen {

// "System.DateTime" for whizbang::DateTime, and likewise DateOnly and TimeOnly; "System.TimeSpan"
// for whizbang::TimeSpan (std::chrono::duration<int64_t, std::ratio<1, 10000000>>); empty for
// any other type.
std::string dotnet_time_type(clang::QualType type, const clang::ASTContext& context);

// The C# type System.Text.Json reads a member's JSON as: "System.Int32", "System.String",
// "System.Guid", "System.DateTimeOffset" (a system_clock time point), the four above, "T?" of an
// optional, "System.Collections.Generic.List<T>" of a vector and
// "System.Collections.Generic.Dictionary<System.String, T>" of a map. Empty when the C# type has
// a name of its own this side does not know (an enum, a struct).
std::string dotnet_member_type(clang::QualType type, const clang::ASTContext& context);

}  // namespace whizgen

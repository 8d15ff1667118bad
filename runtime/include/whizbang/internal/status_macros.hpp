// Early returns on an error status: the runtime's one family (the store's store_support.hpp
// defines the same macros identically until it includes this header instead).
//
//   WB_RETURN_IF_ERROR(read_string(object, "u", user, at));
//   WB_ASSIGN_OR_RETURN(Envelope envelope, deserialize_envelope(json, resolver));
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#ifndef WB_RETURN_IF_ERROR
#define WB_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    if (absl::Status wb_status_ = (expr); !wb_status_.ok()) return wb_status_; \
  } while (false)
#define WB_CONCAT_INNER(a, b) a##b
#define WB_CONCAT(a, b) WB_CONCAT_INNER(a, b)
#define WB_ASSIGN_OR_RETURN(lhs, expr) \
  WB_ASSIGN_OR_RETURN_IMPL(WB_CONCAT(wb_or_, __LINE__), lhs, expr)
#define WB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = *std::move(tmp)
#endif

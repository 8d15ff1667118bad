// The columns of each row type `whizbang store` prints (row_columns.hpp): the one place where a
// field joins or leaves both the text table and the --json objects.
#pragma once

#include <span>

#include "cli/row_columns.hpp"
#include "whizbang/store/store_inspector.hpp"

namespace whizbang::cli {

// store inspect's sections.
std::span<const Column<OutboxRow>> outbox_columns();
std::span<const Column<InboxRow>> inbox_columns();
std::span<const Column<StoredEvent>> event_store_columns();
std::span<const Column<PerspectiveEventRow>> perspective_event_columns();
std::span<const Column<StoredReceptorInvocation>> receptor_invocation_columns();
// store stream: one stream's events, with their payloads.
std::span<const Column<StoredEvent>> stream_event_columns();
// store dead-letters.
std::span<const Column<DeadLetter>> dead_letter_columns();

}  // namespace whizbang::cli

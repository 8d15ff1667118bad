// Decoding of the SQLite backend's rows into the read-side views of whizbang/store/store_rows.hpp.
// Each decoder reads the column list of the same name in sql.hpp, from column 0; the work store
// and the inspector share them, so a row reads the same through both.
#pragma once

#include "store/sqlite/statement.hpp"
#include "whizbang/store/sqlite/sqlite_store_inspector.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang::sqlite {

OutboxRow decode_outbox_row(const Use& use);   // sql::kOutboxRowColumns
InboxRow decode_inbox_row(const Use& use);     // sql::kInboxRowColumns
StoredEvent decode_event_row(const Use& use);  // sql::kEventRowColumns
PerspectiveEventRow decode_perspective_event_row(
    const Use& use);  // sql::kPerspectiveEventRowColumns
StoredReceptorInvocation decode_receptor_invocation_row(const Use& use);
DeadLetter decode_dead_letter(const Use& use);  // the columns of sql::kDeadLetters

}  // namespace whizbang::sqlite

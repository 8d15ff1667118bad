// Rows of the PostgreSQL store decoded from the column lists of store/postgres/sql.hpp.
#pragma once

#include "store/postgres/connection.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang::postgres {

OutboxRow decode_outbox_row(const Query& query);
InboxRow decode_inbox_row(const Query& query);
StoredEvent decode_event_row(const Query& query);
PerspectiveEventRow decode_perspective_event_row(const Query& query);
DeadLetter decode_dead_letter(const Query& query);
StoredReceptorInvocation decode_receptor_invocation_row(const Query& query);

}  // namespace whizbang::postgres

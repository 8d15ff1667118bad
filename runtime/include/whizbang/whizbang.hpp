// The one header user code includes: attributes, marker bases, routing wrappers, ids and the
// .NET date and time types of payload members.
#pragma once

#include "whizbang/attributes.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/dotnet_date_time.hpp"
#include "whizbang/message/route.hpp"

// The one header user code includes: attributes, marker bases, routing wrappers and ids.
#pragma once

#include "whizbang/attributes.hpp"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/route.hpp"

// The one header user code includes: attributes, marker bases, routing wrappers and ids.
#pragma once

#include "whizbang/attributes.hpp"
#include "whizbang/message_id.hpp"
#include "whizbang/route.hpp"
#include "whizbang/uuid.hpp"

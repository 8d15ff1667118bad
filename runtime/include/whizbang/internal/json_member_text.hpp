// Where the values of a JSON object's top-level members are written in its text. The event store
// keeps an envelope's payload and hops as the sender wrote them, cut from the envelope's text
// (store_support.cpp): writing them out again from the parsed envelope cost twice as much and
// changed what a .NET sender wrote (docs/guide/06-stores-and-workers.md, "What a claim writes").
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace whizbang::internal {

// Fills `texts[i]` with the text of the value of `json`'s top-level member `keys[i]`, exactly as
// written (nullopt when there is no such member). False, and `texts` unspecified, when `json` is
// not an object or a key is written with escapes: the caller reads its parsed document instead.
// `json` must have parsed as JSON with unique keys; any other text is read safely but answered
// unreliably.
bool top_level_member_texts(std::string_view json, std::span<const std::string_view> keys,
                            std::span<std::optional<std::string_view>> texts);

}  // namespace whizbang::internal

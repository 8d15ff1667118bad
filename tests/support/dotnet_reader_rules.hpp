// What a Whizbang .NET service's reader demands of an envelope, checked without this library's
// own decoder (so a writer and reader that agree on a mistake cannot both pass): short hop keys,
// ISO-8601 timestamps with an offset, TimeSpan durations, ScopeDelta scopes, UUIDv7 ids, a hop
// service instance with all four fields, and a payload object (docs/guide/13-rabbitmq.md, "On
// the wire"). Keys .NET does not know ("t", "ss", "ri") are allowed: its reader skips them.
// Receptor invocation records ("rin") must have every member .NET requires (r, s, at, du, sn), and
// its newer members ("sid", "sseq", "cbid", "cbseq", "tgt", "sto", "pri") their .NET types.
#pragma once

#include <rapidjson/document.h>

#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace whizbang::test {

class DotNetReaderRules {
 public:
  // The problems .NET's reader would have with `envelope_json`; empty when it reads it.
  // `payload_keys`: the C# property names the payload must use (each present, nothing else).
  static std::vector<std::string> problems(std::string_view envelope_json,
                                           const std::set<std::string>& payload_keys = {}) {
    DotNetReaderRules rules;
    rules.check(envelope_json, payload_keys);
    return rules.problems_;
  }

 private:
  using Value = rapidjson::Value;

  void check(std::string_view json, const std::set<std::string>& payload_keys) {
    rapidjson::Document document;
    document.Parse(json.data(), json.size());
    if (document.HasParseError() || !document.IsObject()) return fail("$", "not a JSON object");
    if (const Value* v = find(document, "v"); v != nullptr && !v->IsInt())
      fail("$.v", "not an int");
    if (const Value* dc = find(document, "dc")) check_dispatch_context(*dc);
    const Value* id = find(document, "id");
    if (id == nullptr) {
      fail("$.id", "missing");
    } else {
      check_v7(*id, "$.id");
    }
    const Value* payload = find(document, "p");
    if (payload == nullptr || !(payload->IsObject() || payload->IsNull())) {
      fail("$.p", "not an embedded object");
    } else if (payload->IsObject() && !payload_keys.empty()) {
      check_payload_keys(*payload, payload_keys);
    }
    check_newer_members(document);
    const Value* hops = find(document, "h");
    if (hops == nullptr || !hops->IsArray()) return fail("$.h", "not an array");
    for (rapidjson::SizeType i = 0; i < hops->Size(); ++i) {
      check_hop((*hops)[i], "$.h[" + std::to_string(i) + "]");
    }
  }

  // MessageEnvelope's members since the first snapshot; .NET writes no nulls for them.
  void check_newer_members(const Value& document) {
    if (const Value* rin = find(document, "rin")) {
      if (!rin->IsArray()) return fail("$.rin", "not an array");
      for (rapidjson::SizeType i = 0; i < rin->Size(); ++i) {
        check_record((*rin)[i], "$.rin[" + std::to_string(i) + "]");
      }
    }
    for (const char* key : {"sid", "cbid"}) {
      if (const Value* id = find(document, key); id != nullptr && !is_guid(*id)) {
        fail(std::string("$.") + key, "not a GUID");
      }
    }
    for (const char* key : {"sseq", "cbseq"}) {
      if (const Value* number = find(document, key); number != nullptr && !number->IsInt64()) {
        fail(std::string("$.") + key, "not an Int64");
      }
    }
    if (const Value* tgt = find(document, "tgt"); tgt != nullptr && !tgt->IsString()) {
      fail("$.tgt", "not a string");
    }
    if (const Value* sto = find(document, "sto"); sto != nullptr && !sto->IsBool()) {
      fail("$.sto", "not a bool");
    }
    if (const Value* pri = find(document, "pri"); pri != nullptr && !pri->IsInt()) {
      fail("$.pri", "not an Int32");
    }
  }

  // ReceptorInvocationRecord: every member is `required` (.NET throws without one).
  void check_record(const Value& record, const std::string& path) {
    if (!record.IsObject()) return fail(path, "not an object");
    for (const char* key : {"r", "sn"}) {
      const Value* text = find(record, key);
      if (text == nullptr || !text->IsString()) fail(path + "." + key, "not a string (required)");
    }
    const Value* stage = find(record, "s");
    if (stage == nullptr || !stage->IsInt() || stage->GetInt() < -1 || stage->GetInt() > 23) {
      fail(path + ".s", "not a LifecycleStage integer (required)");
    }
    static const std::regex kTimestamp(
        R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2}))");
    const Value* at = find(record, "at");
    if (at == nullptr || !at->IsString() || !std::regex_match(at->GetString(), kTimestamp)) {
      fail(path + ".at", "not an ISO-8601 timestamp with an offset (required)");
    }
    static const std::regex kTimeSpan(R"(-?(\d+\.)?\d{2}:\d{2}:\d{2}(\.\d{1,7})?)");
    const Value* du = find(record, "du");
    if (du == nullptr || !du->IsString() || !std::regex_match(du->GetString(), kTimeSpan)) {
      fail(path + ".du", "not a TimeSpan (required)");
    }
  }

  static bool is_guid(const Value& id) {
    static const std::regex kGuid(
        R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
    return id.IsString() && std::regex_match(id.GetString(), kGuid);
  }

  void check_dispatch_context(const Value& dc) {
    if (!dc.IsObject()) return fail("$.dc", "not an object");
    const Value* m = find(dc, "m");
    if (m == nullptr || !m->IsInt() || m->GetInt() < 0 || m->GetInt() > 7) {
      fail("$.dc.m", "not a DispatchModes integer");
    }
    const Value* s = find(dc, "s");
    if (s == nullptr || !s->IsInt() || s->GetInt() < 0 || s->GetInt() > 2) {
      fail("$.dc.s", "not a MessageSource integer");
    }
    const Value* d = find(dc, "d");
    if (d == nullptr || !d->IsBool()) fail("$.dc.d", "not a bool");
  }

  void check_payload_keys(const Value& payload, const std::set<std::string>& expected) {
    std::set<std::string> seen;
    for (auto it = payload.MemberBegin(); it != payload.MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      if (!expected.contains(key)) fail("$.p." + key, "not a property of the C# type");
      seen.insert(key);
    }
    for (const std::string& key : expected) {
      if (!seen.contains(key)) fail("$.p." + key, "missing");
    }
  }

  void check_hop(const Value& hop, const std::string& path) {
    if (!hop.IsObject()) return fail(path, "not an object");
    static const std::set<std::string> kKnown = {"ty", "ca", "co", "ct", "si", "ts", "to",
                                                 "st", "pi", "sn", "es", "sc", "md", "tr",
                                                 "cm", "cf", "cl", "du", "tp"};
    for (auto it = hop.MemberBegin(); it != hop.MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      if (!kKnown.contains(key)) fail(path + "." + key, "not a key .NET writes");
    }
    if (const Value* ty = find(hop, "ty");
        ty != nullptr && !(ty->IsInt() && ty->GetInt() >= 0 && ty->GetInt() <= 1)) {
      fail(path + ".ty", "not a HopType integer");
    }
    for (const char* key : {"ca", "co"}) {
      if (const Value* id = find(hop, key); id != nullptr && !id->IsNull()) {
        check_v7(*id, path + "." + key);
      }
    }
    for (const char* key : {"ct", "to", "st", "es", "tp", "cm", "cf"}) {
      if (const Value* text = find(hop, key); text != nullptr && !text->IsString()) {
        fail(path + "." + key, "not a string");
      }
    }
    check_service_instance(find(hop, "si"), path + ".si");
    if (const Value* ts = find(hop, "ts")) {
      static const std::regex kTimestamp(
          R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2}))");
      if (!ts->IsString() || !std::regex_match(ts->GetString(), kTimestamp)) {
        fail(path + ".ts", "not an ISO-8601 timestamp with an offset");
      }
    }
    if (const Value* du = find(hop, "du")) {
      static const std::regex kTimeSpan(R"(-?(\d+\.)?\d{2}:\d{2}:\d{2}(\.\d{1,7})?)");
      if (!du->IsString() || !std::regex_match(du->GetString(), kTimeSpan)) {
        fail(path + ".du", "not a TimeSpan");
      }
    }
    if (const Value* sc = find(hop, "sc"); sc != nullptr && !sc->IsNull()) {
      check_scope(*sc, path + ".sc");
    }
    if (const Value* md = find(hop, "md"); md != nullptr && !md->IsNull() && !md->IsObject()) {
      fail(path + ".md", "not an object");
    }
    for (const char* key : {"pi", "cl"}) {
      if (const Value* number = find(hop, key); number != nullptr && !number->IsInt()) {
        fail(path + "." + key, "not an int");
      }
    }
  }

  // Required, with all four fields: .NET throws without any of them.
  void check_service_instance(const Value* si, const std::string& path) {
    if (si == nullptr || !si->IsObject()) return fail(path, "missing (required)");
    for (const char* key : {"sn", "hn"}) {
      const Value* text = find(*si, key);
      if (text == nullptr || !text->IsString()) fail(path + "." + key, "not a string");
    }
    const Value* ii = find(*si, "ii");
    static const std::regex kGuid(
        R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
    if (ii == nullptr || !ii->IsString() || !std::regex_match(ii->GetString(), kGuid)) {
      fail(path + ".ii", "not a GUID");
    }
    const Value* pi = find(*si, "pi");
    if (pi == nullptr || !pi->IsInt()) fail(path + ".pi", "not an Int32");
  }

  // A ScopeDelta: {"v":{<ScopeProp>: …}, "c":{<ScopeProp>: …}}.
  void check_scope(const Value& sc, const std::string& path) {
    if (!sc.IsObject()) return fail(path, "not a ScopeDelta object");
    static const std::set<std::string> kProps = {"Sc", "Ro", "Pe", "Pr", "Cl", "Ac", "Ef", "Ty"};
    for (auto it = sc.MemberBegin(); it != sc.MemberEnd(); ++it) {
      const std::string key(it->name.GetString(), it->name.GetStringLength());
      if (key != "v" && key != "c") {
        fail(path + "." + key, "not a ScopeDelta key (v, c)");
        continue;
      }
      if (it->value.IsNull()) continue;
      if (!it->value.IsObject()) {
        fail(path + "." + key, "not an object");
        continue;
      }
      for (auto prop = it->value.MemberBegin(); prop != it->value.MemberEnd(); ++prop) {
        const std::string name(prop->name.GetString(), prop->name.GetStringLength());
        if (!kProps.contains(name)) fail(path + "." + key + "." + name, "not a ScopeProp");
      }
    }
    if (const Value* values = find(sc, "v"); values != nullptr && values->IsObject()) {
      if (const Value* scope = find(*values, "Sc"); scope != nullptr && !scope->IsNull()) {
        if (!scope->IsObject()) return fail(path + ".v.Sc", "not a PerspectiveScope object");
        for (const char* key : {"t", "u", "c", "o"}) {
          if (const Value* text = find(*scope, key); text != nullptr && !text->IsString()) {
            fail(path + ".v.Sc." + key, "not a string");
          }
        }
      }
    }
  }

  // Lowercase 8-4-4-4-12 with version 7 and the RFC variant: .NET's MessageId.From throws else.
  void check_v7(const Value& id, const std::string& path) {
    static const std::regex kV7(
        R"([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})");
    if (!id.IsString() || !std::regex_match(id.GetString(), kV7)) fail(path, "not a UUIDv7");
  }

  static const Value* find(const Value& object, const char* key) {
    auto it = object.FindMember(key);
    return it == object.MemberEnd() ? nullptr : &it->value;
  }

  void fail(const std::string& path, const std::string& problem) {
    problems_.push_back(path + ": " + problem);
  }

  std::vector<std::string> problems_;
};

}  // namespace whizbang::test

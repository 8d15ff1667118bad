// whizbang id: mint, derive and inspect message ids.
#include <ctime>
#include <memory>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.hpp"
#include "cli/json_output.hpp"
#include "whizbang/ids/derived_identity.hpp"

namespace whizbang::cli {
namespace {

// The values each `id` subcommand's options are parsed into.
struct NewOptions {
  std::int64_t count = 1;
  bool json = false;
};

struct DeriveOptions {
  std::string source;
  std::string service;
  std::string handler;
  std::string type;
  std::int64_t ordinal = 0;
  bool json = false;
};

struct CompositeChildOptions {
  std::string composite;
  std::string type;
  std::int64_t ordinal = 0;
  bool json = false;
};

struct KeyedOptions {
  std::string service;
  std::string type;
  std::string key;
  bool json = false;
};

struct IdInspectOptions {
  std::string id;
  bool json = false;
};

std::string iso8601_millis(std::int64_t unix_millis) {
  const std::time_t seconds = static_cast<std::time_t>(unix_millis / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                         utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                         static_cast<int>(unix_millis % 1000));
}

void print_id(const Io& io, const MessageId& id, bool json) {
  if (json) {
    CompactJsonOutput out;
    out.writer().StartObject();
    out.key("id");
    out.string(id.to_string());
    out.writer().EndObject();
    io.out << out.str();
  } else {
    io.out << id.to_string() << "\n";
  }
}

int id_new(const NewOptions& options, const Io& io) {
  const std::int64_t count = options.count;
  if (!options.json) {
    for (std::int64_t i = 0; i < count; ++i) io.out << MessageId::mint().to_string() << "\n";
    return kExitOk;
  }
  CompactJsonOutput out;
  out.writer().StartObject();
  out.key("ids");
  out.writer().StartArray();
  for (std::int64_t i = 0; i < count; ++i) out.string(MessageId::mint().to_string());
  out.writer().EndArray();
  out.writer().EndObject();
  io.out << out.str();
  return kExitOk;
}

absl::StatusOr<Uuid> parse_source(const std::string& text, const std::string& flag) {
  absl::StatusOr<Uuid> id = Uuid::parse(text);
  if (!id.ok())
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", id.status().message()));
  return id;
}

int id_derive(const DeriveOptions& options, const Io& io) {
  const absl::StatusOr<Uuid> source = parse_source(options.source, "source");
  if (!source.ok()) return usage_error(io, source.status());
  const absl::StatusOr<MessageId> id = EmissionIdentity::derive(
      *source, options.service, options.handler, options.type, options.ordinal);
  if (!id.ok()) return usage_error(io, id.status());
  print_id(io, *id, options.json);
  return kExitOk;
}

int id_composite_child(const CompositeChildOptions& options, const Io& io) {
  const absl::StatusOr<Uuid> composite = parse_source(options.composite, "composite");
  if (!composite.ok()) return usage_error(io, composite.status());
  const absl::StatusOr<MessageId> id =
      CompositeChildIdentity::derive(*composite, options.ordinal, options.type);
  if (!id.ok()) return usage_error(io, id.status());
  print_id(io, *id, options.json);
  return kExitOk;
}

int id_keyed(const KeyedOptions& options, const Io& io) {
  print_id(io, DispatchKeyIdentity::derive(options.service, options.type, options.key),
           options.json);
  return kExitOk;
}

int id_inspect(const IdInspectOptions& options, const Io& io) {
  const absl::StatusOr<Uuid> id = Uuid::parse(options.id);
  if (!id.ok()) return usage_error(io, id.status());
  const auto& b = id->bytes();
  const bool v7 = is_v7(*id);
  const MessageId as_message = MessageId::from_trusted(*id);
  const std::uint32_t ordinal_field = (static_cast<std::uint32_t>(b[10]) << 4) | (b[11] >> 4);
  const std::string variant =
      id->variant_bits() == 0b10 ? "rfc9562" : absl::StrCat("other(", id->variant_bits(), ")");
  if (options.json) {
    CompactJsonOutput out;
    auto& w = out.writer();
    w.StartObject();
    out.key("id");
    out.string(id->to_string());
    out.key("version");
    w.Int(id->version());
    out.key("variant");
    out.string(variant);
    out.key("is_v7");
    w.Bool(v7);
    if (v7) {
      out.key("unix_ms");
      w.Int64(as_message.unix_millis());
      out.key("timestamp");
      out.string(iso8601_millis(as_message.unix_millis()));
      out.key("counter");
      w.Uint(as_message.counter());
      out.key("ordinal_field");
      w.Uint(ordinal_field);
    }
    w.EndObject();
    io.out << out.str();
    return kExitOk;
  }
  io.out << "id:            " << id->to_string() << "\n"
         << "version:       " << id->version() << "\n"
         << "variant:       " << variant << "\n";
  if (!v7) {
    io.out << "not a version 7 id: no timestamp or counter to read\n";
    return kExitOk;
  }
  io.out << "timestamp:     " << iso8601_millis(as_message.unix_millis()) << " ("
         << as_message.unix_millis() << " ms)\n"
         << "counter:       " << as_message.counter() << "\n"
         << "ordinal field: " << ordinal_field
         << (ordinal_field == kMaxOrdinalField ? " (saturated: ordinal >= 4095)" : "")
         << "  (meaningful for derived ids; random bits in a minted id)\n";
  return kExitOk;
}

}  // namespace

void add_id_commands(CommandTree& tree) {
  CLI::App* id = tree.add_group(tree.root(), "id", "mint, derive and inspect message ids");
  id->footer("Ids are printed alone on stdout (or as one line of JSON with --json).");
  constexpr const char* kJson = "print one line of JSON";

  auto fresh = std::make_shared<NewOptions>();
  CLI::App* mint = tree.add_command(*id, "new", "mint N fresh time-ordered ids",
                                    [fresh](const Io& io) { return id_new(*fresh, io); });
  mint->add_option("--count", fresh->count, "how many ids (default 1)")
      ->type_name("N")
      ->check(whole_number(1));
  mint->add_flag("--json", fresh->json, kJson);

  auto derive = std::make_shared<DeriveOptions>();
  CLI::App* derive_command =
      tree.add_command(*id, "derive", "the id a cascaded emission derives",
                       [derive](const Io& io) { return id_derive(*derive, io); });
  derive_command->add_option("--source", derive->source, "the id of the message being handled")
      ->type_name("ID")
      ->required();
  derive_command->add_option("--service", derive->service, "the emitting service")
      ->type_name("S")
      ->required();
  derive_command->add_option("--handler", derive->handler, "the emitting handler (default none)")
      ->type_name("H");
  derive_command->add_option("--type", derive->type, "the emitted message type")
      ->type_name("T")
      ->required();
  derive_command->add_option("--ordinal", derive->ordinal, "the emission's place in the handling")
      ->type_name("N")
      ->required()
      ->check(whole_number(0));
  derive_command->add_flag("--json", derive->json, kJson);

  auto child = std::make_shared<CompositeChildOptions>();
  CLI::App* child_command =
      tree.add_command(*id, "composite-child", "the id of a composite's child",
                       [child](const Io& io) { return id_composite_child(*child, io); });
  child_command->add_option("--composite", child->composite, "the composite's id")
      ->type_name("ID")
      ->required();
  child_command->add_option("--type", child->type, "the child's message type")
      ->type_name("T")
      ->required();
  child_command->add_option("--ordinal", child->ordinal, "the child's place in the composite")
      ->type_name("N")
      ->required()
      ->check(whole_number(0));
  child_command->add_flag("--json", child->json, kJson);

  auto keyed = std::make_shared<KeyedOptions>();
  CLI::App* keyed_command =
      tree.add_command(*id, "keyed", "the id of a send or publish made with an idempotency key",
                       [keyed](const Io& io) { return id_keyed(*keyed, io); });
  keyed_command->add_option("--service", keyed->service, "the sending service")
      ->type_name("S")
      ->required();
  keyed_command->add_option("--type", keyed->type, "the message type (its wire name)")
      ->type_name("T")
      ->required();
  keyed_command->add_option("--key", keyed->key, "the idempotency key")->type_name("K")->required();
  keyed_command->add_flag("--json", keyed->json, kJson);

  auto inspect = std::make_shared<IdInspectOptions>();
  CLI::App* inspect_command =
      tree.add_command(*id, "inspect", "version, variant, timestamp, counter, ordinal field",
                       [inspect](const Io& io) { return id_inspect(*inspect, io); });
  inspect_command->add_option("ID", inspect->id, "the id to read")->type_name("")->required();
  inspect_command->add_flag("--json", inspect->json, kJson);
}

}  // namespace whizbang::cli

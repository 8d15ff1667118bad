// whizbang id: mint, derive and inspect message ids.
#include <ctime>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.hpp"
#include "cli/json_output.hpp"
#include "whizbang/ids/derived_identity.hpp"

namespace whizbang::cli {
namespace {

constexpr std::string_view kIdHelp =
    R"(usage: whizbang id <command> [options]

commands:
  new [--count N] [--json]                     mint N fresh time-ordered ids (default 1)
  derive --source ID --service S [--handler H] --type T --ordinal N [--json]
                                               the id a cascaded emission derives
  composite-child --composite ID --type T --ordinal N [--json]
                                               the id of a composite's child
  inspect ID [--json]                          version, variant, timestamp, counter, ordinal field

Ids are printed alone on stdout (or as JSON with --json). Bad input exits 2.
)";

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

int id_new(const Args& args, const Io& io) {
  std::int64_t count = 1;
  if (args.has("count")) {
    auto parsed = args.required_int("count", 1);
    if (!parsed.ok()) return usage_error(io, parsed.status());
    count = *parsed;
  }
  if (!args.has("json")) {
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

absl::StatusOr<Uuid> parse_source(const Args& args, const std::string& flag) {
  absl::StatusOr<std::string> text = args.required(flag);
  if (!text.ok()) return text.status();
  absl::StatusOr<Uuid> id = Uuid::parse(*text);
  if (!id.ok())
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", id.status().message()));
  return id;
}

int id_derive(const Args& args, const Io& io) {
  const absl::StatusOr<Uuid> source = parse_source(args, "source");
  if (!source.ok()) return usage_error(io, source.status());
  const absl::StatusOr<std::string> service = args.required("service");
  if (!service.ok()) return usage_error(io, service.status());
  const absl::StatusOr<std::string> type = args.required("type");
  if (!type.ok()) return usage_error(io, type.status());
  const absl::StatusOr<std::int64_t> ordinal = args.required_int("ordinal", 0);
  if (!ordinal.ok()) return usage_error(io, ordinal.status());
  const std::string handler = args.value("handler").value_or("");
  const absl::StatusOr<MessageId> id =
      EmissionIdentity::derive(*source, *service, handler, *type, *ordinal);
  if (!id.ok()) return usage_error(io, id.status());
  print_id(io, *id, args.has("json"));
  return kExitOk;
}

int id_composite_child(const Args& args, const Io& io) {
  const absl::StatusOr<Uuid> composite = parse_source(args, "composite");
  if (!composite.ok()) return usage_error(io, composite.status());
  const absl::StatusOr<std::string> type = args.required("type");
  if (!type.ok()) return usage_error(io, type.status());
  const absl::StatusOr<std::int64_t> ordinal = args.required_int("ordinal", 0);
  if (!ordinal.ok()) return usage_error(io, ordinal.status());
  const absl::StatusOr<MessageId> id = CompositeChildIdentity::derive(*composite, *ordinal, *type);
  if (!id.ok()) return usage_error(io, id.status());
  print_id(io, *id, args.has("json"));
  return kExitOk;
}

int id_inspect(const Args& args, const Io& io) {
  if (args.positional().size() != 1) return usage_error(io, "id inspect takes exactly one id");
  const absl::StatusOr<Uuid> id = Uuid::parse(args.positional()[0]);
  if (!id.ok()) return usage_error(io, id.status());
  const auto& b = id->bytes();
  const bool v7 = is_v7(*id);
  const MessageId as_message = MessageId::from_trusted(*id);
  const std::uint32_t ordinal_field = (static_cast<std::uint32_t>(b[10]) << 4) | (b[11] >> 4);
  const std::string variant =
      id->variant_bits() == 0b10 ? "rfc9562" : absl::StrCat("other(", id->variant_bits(), ")");
  if (args.has("json")) {
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

int run_id_command(const std::vector<std::string>& argv, const Io& io) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    io.out << kIdHelp;
    return argv.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = argv[0];
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  const absl::StatusOr<Args> args =
      Args::parse(rest, {"count", "source", "service", "handler", "type", "ordinal", "composite"},
                  {"json", "help"});
  if (!args.ok())
    return usage_error(io, absl::StrCat("id ", command, ": ", args.status().message()));
  if (args->has("help")) {
    io.out << kIdHelp;
    return kExitOk;
  }
  if (command == "new") return id_new(*args, io);
  if (command == "derive") return id_derive(*args, io);
  if (command == "composite-child") return id_composite_child(*args, io);
  if (command == "inspect") return id_inspect(*args, io);
  return usage_error(io,
                     absl::StrCat("unknown id command '", command, "' (try: whizbang id --help)"));
}

}  // namespace whizbang::cli

#include "trace_tree.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/format.h"

namespace whizbang {
namespace {

std::string duration_text(const SpanData& span) {
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(span.end - span.start).count();
  if (nanos >= 1'000'000) return fmt::format("{:.1f} ms", static_cast<double>(nanos) / 1e6);
  return fmt::format("{:.0f} us", static_cast<double>(nanos) / 1e3);
}

std::string attribute_text(const SpanAttributeValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

void print(std::string& out, const std::vector<const ReceivedSpan*>& spans,
           const std::multimap<std::string, std::size_t>& children, std::size_t index, int depth,
           std::set<std::size_t>& printed) {
  if (!printed.insert(index).second) return;  // a cycle in what a sender claimed
  const ReceivedSpan& received = *spans[index];
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
  out.append(fmt::format("[{}] {}  {}", received.service.empty() ? "?" : received.service,
                         received.span.name, duration_text(received.span)));
  for (const SpanAttribute& attribute : received.span.attributes) {
    if (attribute.key == kDecisionAttribute) {
      out.append("  decision=").append(attribute_text(attribute.value));
    }
  }
  if (received.span.status == SpanStatusCode::Error) {
    out.append("  ERROR ").append(received.span.status_message);
  }
  out.push_back('\n');
  const auto [first, last] = children.equal_range(received.span.context.span_id.hex());
  std::vector<std::size_t> ordered;
  for (auto it = first; it != last; ++it) ordered.push_back(it->second);
  std::sort(ordered.begin(), ordered.end(), [&](std::size_t a, std::size_t b) {
    return spans[a]->span.start < spans[b]->span.start;
  });
  for (std::size_t child : ordered) print(out, spans, children, child, depth + 1, printed);
}

}  // namespace

std::string format_trace_tree(std::span<const ReceivedSpan> trace) {
  if (trace.empty()) return "no spans\n";
  std::vector<const ReceivedSpan*> spans;
  for (const ReceivedSpan& span : trace) spans.push_back(&span);
  std::sort(spans.begin(), spans.end(),
            [](const auto* a, const auto* b) { return a->span.start < b->span.start; });
  std::set<std::string> ids;
  std::vector<std::string> services;
  for (const ReceivedSpan* span : spans) {
    ids.insert(span->span.context.span_id.hex());
    if (std::find(services.begin(), services.end(), span->service) == services.end()) {
      services.push_back(span->service);
    }
  }
  std::multimap<std::string, std::size_t> children;  // parent span id -> index
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& parent = spans[i]->span.parent_span_id;
    if (parent && ids.contains(parent->hex())) {
      children.emplace(parent->hex(), i);
    } else {
      roots.push_back(i);
    }
  }
  std::string out = fmt::format("trace {}: {} spans, {} services ({})\n",
                                spans.front()->span.context.trace_id.hex(), spans.size(),
                                services.size(), fmt::join(services, ", "));
  std::set<std::size_t> printed;
  for (std::size_t root : roots) print(out, spans, children, root, 0, printed);
  return out;
}

std::optional<TraceId> busiest_trace(std::span<const ReceivedSpan> spans) {
  struct Tally {
    std::set<std::string> services;
    std::size_t spans = 0;
    std::chrono::system_clock::time_point first = std::chrono::system_clock::time_point::max();
  };
  std::map<std::string, std::pair<TraceId, Tally>> traces;
  for (const ReceivedSpan& span : spans) {
    auto& [id, tally] = traces[span.span.context.trace_id.hex()];
    id = span.span.context.trace_id;
    tally.services.insert(span.service);
    ++tally.spans;
    tally.first = std::min(tally.first, span.span.start);
  }
  const std::pair<TraceId, Tally>* best = nullptr;
  for (const auto& [hex, entry] : traces) {
    if (best == nullptr) {
      best = &entry;
      continue;
    }
    const Tally& a = entry.second;
    const Tally& b = best->second;
    if (std::tuple(a.services.size(), a.spans, b.first) >
        std::tuple(b.services.size(), b.spans, a.first)) {
      best = &entry;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->first;
}

}  // namespace whizbang

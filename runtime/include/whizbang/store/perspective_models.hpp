// PerspectiveModels<Model>: reading a perspective's models, typed — one stream's model, or every
// model a page at a time (docs/guide/07-perspectives.md, "Querying models").
//
//   whizbang::PerspectiveModels<shop::OrderSummary> orders(store, "shop::OrderSummaryPerspective");
//   absl::StatusOr<std::optional<shop::OrderSummary>> one = orders.find(order_stream);
//   whizbang::ModelPageRequest request{.limit = 50};
//   do {
//     auto page = orders.list(request);
//     if (!page.ok()) return page.status();
//     for (const auto& stored : page->models) show(stored.stream_id, stored.model);
//     request.after = page->next_after;
//   } while (request.after);
//
// The perspective's name is its qualified class name (PerspectiveInfo::name). Model is the
// perspective's model type; the translation unit must see its generated codec (include the
// generated whizbang_messages.hpp). Pages are keyed by stream id: a page costs the same however
// far into the models it starts, and models saved meanwhile never shift a later page.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/message/json_codec.hpp"
#include "whizbang/store/perspective_store.hpp"

namespace whizbang {

template <class Model>
struct StoredModel {
  Uuid stream_id;
  Model model;
  // The last event applied to it, and when it was saved.
  MessageId last_event_id;
  TimePoint updated_at{};
};

struct ModelPageRequest {
  // Start after this stream (the previous page's next_after); from the first when nullopt.
  std::optional<Uuid> after;
  // 1 to kMaxModelPage.
  std::size_t limit = 100;
};

inline constexpr std::size_t kMaxModelPage = 10'000;

template <class Model>
struct ModelPage {
  std::vector<StoredModel<Model>> models;
  // Pass as ModelPageRequest::after for the next page; nullopt when this page was the last.
  std::optional<Uuid> next_after;
};

template <class Model>
class PerspectiveModels {
 public:
  PerspectiveModels(PerspectiveStore& store, std::string perspective)
      : store_(store), perspective_(std::move(perspective)) {}

  // The model of `stream_id`; nullopt when no event was applied to it yet.
  absl::StatusOr<std::optional<Model>> find(const Uuid& stream_id) const {
    absl::StatusOr<std::optional<PerspectiveModelRow>> row =
        store_.load_perspective_model(perspective_, stream_id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) return std::optional<Model>();
    absl::StatusOr<Model> model = decode((*row)->model_json, stream_id);
    if (!model.ok()) return model.status();
    return std::optional<Model>(*std::move(model));
  }

  absl::StatusOr<ModelPage<Model>> list(const ModelPageRequest& request = {}) const {
    if (request.limit == 0 || request.limit > kMaxModelPage) {
      return absl::InvalidArgumentError("PerspectiveModels::list: limit must be 1 to " +
                                        std::to_string(kMaxModelPage) + ", not " +
                                        std::to_string(request.limit));
    }
    // One row more than asked tells whether another page follows.
    absl::StatusOr<std::vector<PerspectiveModelEntry>> rows =
        store_.list_perspective_models(perspective_, request.after, request.limit + 1);
    if (!rows.ok()) return rows.status();
    ModelPage<Model> page;
    const bool more = rows->size() > request.limit;
    if (more) rows->pop_back();
    page.models.reserve(rows->size());
    for (PerspectiveModelEntry& entry : *rows) {
      absl::StatusOr<Model> model = decode(entry.row.model_json, entry.stream_id);
      if (!model.ok()) return model.status();
      page.models.push_back(StoredModel<Model>{entry.stream_id, *std::move(model),
                                               entry.row.last_event_id, entry.row.updated_at});
    }
    if (more) page.next_after = page.models.back().stream_id;
    return page;
  }

  const std::string& perspective() const { return perspective_; }

 private:
  // A stored model that no longer decodes (a corrupted row, a model type changed without a
  // rebuild) is an error naming the perspective and stream, never a default model.
  absl::StatusOr<Model> decode(std::string_view json, const Uuid& stream_id) const {
    Model model{};
    if (absl::Status status = internal::value_from_json<Model>(json, &model); !status.ok()) {
      std::string message = "perspective ";
      message.append(perspective_)
          .append(", stream ")
          .append(stream_id.to_string())
          .append(": stored model does not decode: ")
          .append(internal::std_view(status.message()));
      return absl::DataLossError(message);
    }
    return model;
  }

  PerspectiveStore& store_;
  std::string perspective_;
};

}  // namespace whizbang

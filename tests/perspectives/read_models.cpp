#include "read_models.hpp"

#include <algorithm>
#include <thread>

namespace persp {

int Journal::count(const std::string& entry) const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(std::count(entries_.begin(), entries_.end(), entry));
}

int Journal::index_of(const std::string& entry) const {
  std::lock_guard lock(mutex_);
  auto it = std::find(entries_.begin(), entries_.end(), entry);
  return it == entries_.end() ? -1 : static_cast<int>(it - entries_.begin());
}

SummaryPerspective::SummaryPerspective(Journal& journal, const Behaviour& behaviour)
    : journal_(journal), behaviour_(behaviour) {}

void SummaryPerspective::apply(OrderSummary& model, const OrderCreated& event) {
  journal_.add("apply-start:Summary");
  if (behaviour_.summary_delay.count() > 0) std::this_thread::sleep_for(behaviour_.summary_delay);
  model.order_id = event.order_id;
  model.items += event.items;
  model.total.cents += 100 * event.items;
  ++model.applied;
  journal_.add("apply:Summary");
}

void SummaryPerspective::apply(OrderSummary& model, const OrderShipped& event) {
  model.order_id = event.order_id;
  model.shipped = true;
  ++model.applied;
  journal_.add("apply:Summary");
}

CountPerspective::CountPerspective(Journal& journal, const Behaviour& behaviour)
    : journal_(journal), behaviour_(behaviour) {}

absl::Status CountPerspective::apply(OrderCount& model, const OrderCreated& event) {
  if (behaviour_.fail_count) {
    journal_.add("apply-failed:Count");
    return absl::UnavailableError("count store down");
  }
  ++model.created;
  model.ids.push_back(event.order_id);
  journal_.add("apply:Count");
  return absl::OkStatus();
}

#define PERSP_HANDLE(Name, Message, Stage) \
  void Name::handle(const Message&) { journal_.add(Stage); }
PERSP_HANDLE(PrePerspectiveDetachedReceptor, OrderCreated, "PrePerspectiveDetached")
PERSP_HANDLE(PrePerspectiveInlineReceptor, OrderCreated, "PrePerspectiveInline")
PERSP_HANDLE(PostPerspectiveDetachedReceptor, OrderCreated, "PostPerspectiveDetached")
PERSP_HANDLE(PostPerspectiveInlineReceptor, OrderCreated, "PostPerspectiveInline")
PERSP_HANDLE(PostAllPerspectivesDetachedReceptor, OrderCreated, "PostAllPerspectivesDetached")
PERSP_HANDLE(PostAllPerspectivesInlineReceptor, OrderCreated, "PostAllPerspectivesInline")
PERSP_HANDLE(PostLifecycleDetachedReceptor, OrderCreated, "PostLifecycleDetached")
PERSP_HANDLE(PostLifecycleInlineReceptor, OrderCreated, "PostLifecycleInline")
PERSP_HANDLE(NoteAllPerspectivesReceptor, NoteAdded, "Note:PostAllPerspectivesInline")
PERSP_HANDLE(NoteLifecycleReceptor, NoteAdded, "Note:PostLifecycleInline")
#undef PERSP_HANDLE

void ReplayAwareReceptor::handle(const OrderCreated&) { journal_.add("ReplayAware"); }

}  // namespace persp

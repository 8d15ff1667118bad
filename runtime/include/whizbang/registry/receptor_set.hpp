// ReceptorSet: the constructed receptor (or perspective) instances of one registry.
// Part of the registry contract (whizbang/registry/registry.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace whizbang {

// ReceptorSet: one constructed instance per receptor of a registry, indexed like
// Registry::receptors(). Built at start-up by Registry::create_receptors. The same class holds
// the perspectives built by Registry::create_perspectives (indexed like perspectives()).
class ReceptorSet {
 public:
  ReceptorSet() = default;
  explicit ReceptorSet(std::vector<std::shared_ptr<void>> instances)
      : instances_(std::move(instances)) {}
  void* get(std::uint32_t index) const {
    return index < instances_.size() ? instances_[index].get() : nullptr;
  }
  std::size_t size() const { return instances_.size(); }

 private:
  std::vector<std::shared_ptr<void>> instances_;
};

}  // namespace whizbang

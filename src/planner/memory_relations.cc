#include "planner/memory_relations.h"

#include <atomic>
#include <map>
#include <mutex>

namespace silt::planner {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::weak_ptr<const MemoryRelation>, std::less<>> relations;
  uint64_t next = 0;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used until process exit
  return *registry;
}

}  // namespace

std::string RegisterMemoryRelation(const std::shared_ptr<const MemoryRelation>& relation) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  // Forget the relations whose owners released them.
  for (auto it = r.relations.begin(); it != r.relations.end();) {
    it = it->second.expired() ? r.relations.erase(it) : std::next(it);
  }
  std::string token = "m" + std::to_string(++r.next);
  r.relations[token] = relation;
  return token;
}

std::shared_ptr<const MemoryRelation> FindMemoryRelation(std::string_view token) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.relations.find(token);
  return it == r.relations.end() ? nullptr : it->second.lock();
}

}  // namespace silt::planner

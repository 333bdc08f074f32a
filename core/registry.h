#pragma once
/// \file registry.h
/// Registry<I>: where a *name in a file* selects code (STYLE.md P1). Built-ins are added
/// explicitly by `register_builtin_<kind>(Registry&)`; there is no static self-registration.

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::core {

template <typename Interface>
class Registry {
 public:
  /// Adds `entry` under `name`. Throws std::logic_error on a duplicate name (a programming error).
  void add(const std::string& name, std::unique_ptr<Interface> entry) {
    if (!entries_.emplace(name, std::move(entry)).second) {
      throw std::logic_error("duplicate registry entry '" + name + "'");
    }
  }
  /// The entry registered as `name`, or nullptr.
  const Interface* find(const std::string& name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second.get();
  }
  /// Registered names, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) {
      out.push_back(name);
    }
    return out;
  }

 private:
  std::map<std::string, std::unique_ptr<Interface>> entries_;
};

}  // namespace gpuplan::core

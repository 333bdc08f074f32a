#include "config/applied_overrides.h"

namespace gpuplan::config {
namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) {
      return parts;
    }
    start = dot + 1;
  }
}

/// Removes every pair of `key` from `map`: yaml-cpp's non-const lookups leave undefined
/// pairs behind, and a pair inserted after one of them would be hidden by it.
void remove_all(YAML::Node& map, const std::string& key) {
  while (map.remove(key)) {
  }
}

}  // namespace

void AppliedOverrides::replace(YAML::Node map, const std::string& key, const YAML::Node* value) {
  Change change{map, key, std::nullopt, std::nullopt};
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      change.old_key.emplace(it->first);
      change.old_value.emplace(it->second);
      break;
    }
  }
  remove_all(map, key);
  if (value != nullptr) {
    map.force_insert(key, *value);
  }
  changes_.push_back(std::move(change));
}

AppliedOverrides::AppliedOverrides(YAML::Node tree, const std::vector<const Override*>& overrides,
                                   ErrorSink& sink) {
  const auto present = [](const YAML::Node& map, const std::string& key) {
    const YAML::Node value = map[key];  // const lookup: inserts nothing
    return value.IsDefined() && !value.IsNull();
  };
  for (const Override* o : overrides) {
    const std::vector<std::string> parts = split_path(o->path);
    YAML::Node node = tree;  // a second handle on the same node (operator= would overwrite it)
    bool reachable = true;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      const YAML::Node& view = node;
      if (!present(view, parts[i])) {
        if (o->removes()) {
          reachable = false;  // nothing to remove
          break;
        }
        const YAML::Node created(YAML::NodeType::Map);
        replace(node, parts[i], &created);
      }
      const YAML::Node child = view[parts[i]];
      if (!child.IsMap()) {
        std::string parent;
        for (std::size_t j = 0; j <= i; ++j) {
          parent += (j == 0 ? "" : ".") + parts[j];
        }
        sink.add("cannot set " + o->path + ": " + parent + " is " + describe_node(child) + ", not a mapping",
                 o->key_mark, o->source_path, "; override " + parent + " with a whole mapping instead");
        reachable = false;
        break;
      }
      node.reset(child);
    }
    if (!reachable) {
      continue;
    }
    replace(node, parts.back(), o->removes() ? nullptr : &o->value);
  }
}

AppliedOverrides::~AppliedOverrides() {
  for (auto it = changes_.rbegin(); it != changes_.rend(); ++it) {
    // Also where the override removed the key: a non-const lookup of it while the variant
    // was validated left an undefined pair behind, which would hide the restored one (a
    // removal in one strategy then leaked into every strategy after it).
    remove_all(it->map, it->key);
    if (it->old_key) {
      it->map.force_insert(*it->old_key, *it->old_value);
    }
  }
}

}  // namespace gpuplan::config

#pragma once
/// \file reused_storage.h
/// Moving a vector's heap storage between an object and a per-thread spare, so that the
/// next object of the kind on that thread starts with the capacity the last one grew
/// (ActivityGraph, models' StepMeasurement): no reallocation or fresh pages per simulation.
/// Only capacity travels, never elements.

#include <utility>
#include <vector>

namespace gpuplan::sim {

/// `v` takes `from`'s storage, empty; `from` is left empty. Throws nothing.
template <typename T>
void take_storage(std::vector<T>& v, std::vector<T>& from) {
  v = std::move(from);
  v.clear();
  from = std::vector<T>();
}

/// `to` takes `from`'s storage, emptied, when it is the larger; otherwise both stay as they
/// are. Throws nothing.
template <typename T>
void keep_storage(std::vector<T>& from, std::vector<T>& to) {
  if (from.capacity() > to.capacity()) {
    from.clear();
    to = std::move(from);
  }
}

}  // namespace gpuplan::sim

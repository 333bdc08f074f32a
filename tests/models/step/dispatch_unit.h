#pragma once
/// \file dispatch_unit.h
/// Test helper for hand-made step plans: one dispatch unit.

#include <string>

#include "models/step/step_plan.h"

namespace gpuplan::models::testing {

/// A unit called `label` costing `dispatch_s` of host time and `gpu_s` of GPU time, producing
/// `grad_bytes` of parameter gradients (backward units of DDP plans).
inline DispatchUnit unit(const std::string& label, double dispatch_s, double gpu_s, double grad_bytes = 0.0) {
  DispatchUnit u;
  u.label = label;
  u.dispatch_s = dispatch_s;
  u.gpu_s = gpu_s;
  u.grad_bytes = grad_bytes;
  return u;
}

}  // namespace gpuplan::models::testing

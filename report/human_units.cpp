#include "report/human_units.h"

#include <fmt/format.h>

#include <cmath>

#include "core/units.h"

namespace gpuplan::report {
namespace {
std::string with_thousands(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::abs(value), decimals);
  const auto dot = digits.find('.');
  std::string integer = digits.substr(0, dot);
  const std::string rest = dot == std::string::npos ? "" : digits.substr(dot);
  std::string out;
  for (std::size_t i = 0; i < integer.size(); ++i) {
    if (i > 0 && (integer.size() - i) % 3 == 0) out += ',';
    out += integer[i];
  }
  return (value < 0 ? "-" : "") + out + rest;
}
}  // namespace

std::string human_duration(double s) {
  if (s < 1.0) return fmt::format("{:.1f} ms", core::to_milliseconds(s));
  if (s < core::minutes(2)) return fmt::format("{:.2f} s", s);
  if (s < core::hours(2)) return fmt::format("{:.1f} min", s / core::minutes(1));
  if (s < core::days(2)) return fmt::format("{:.2f} h", core::to_hours(s));
  return fmt::format("{:.2f} d", core::to_days(s));
}

std::string human_bytes(double bytes) { return with_thousands(core::to_gigabytes(bytes), 1) + " GB"; }

std::string human_gibibytes(double bytes) {
  const double gib = core::to_gibibytes(bytes);
  return with_thousands(gib, std::abs(gib - std::round(gib)) < 0.05 ? 0 : 1) + " GiB";
}

std::string human_usd(double usd) {
  // A tiny job's cost would round to "$0.00", which reads as free: say it is under a cent.
  if (usd > 0.0 && usd < 0.005) return "< $0.01";
  return "$" + with_thousands(usd, usd < 100 ? 2 : 0);
}

std::string human_percent(double fraction) { return fmt::format("{:.0f} %", fraction * 100.0); }

std::string human_rate(double per_s) { return with_thousands(per_s, per_s < 100 ? 1 : 0); }

std::string human_energy(double joules) {
  const double kwh = core::to_kwh(joules);
  // A short run's energy would round to "0.0 kWh": below 0.1 kWh it prints in Wh.
  if (kwh < 0.1) {
    const double wh = kwh * 1000.0;
    if (joules > 0.0 && wh < 1.0) return "< 1 Wh";
    return fmt::format("{:.0f} Wh", wh);
  }
  return with_thousands(kwh, kwh < 100 ? 1 : 0) + " kWh";
}

}  // namespace gpuplan::report

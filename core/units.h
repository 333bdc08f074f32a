#pragma once
/// \file units.h
/// SI helpers. Inside gpuplan every quantity is in SI base units (s, B, FLOP, FLOP/s, B/s,
/// J, W, USD, USD/s) and names carry the unit suffix (STYLE.md U1). The scale factors
/// live here and in unit_parse.cpp only (STYLE.md U2). Decimal and binary prefixes are
/// separate functions, never a flag. Header-light: no <iostream>, no yaml-cpp (L4).

namespace gpuplan::core {

// Decimal prefixes (SI brochure, 9th ed., table 7).
inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kPeta = 1e15;
inline constexpr double kExa = 1e18;
// Binary prefixes (IEC 80000-13).
inline constexpr double kKibi = 1024.0;
inline constexpr double kMebi = 1024.0 * 1024.0;
inline constexpr double kGibi = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kTebi = 1024.0 * 1024.0 * 1024.0 * 1024.0;

inline constexpr double kSecondsPerMinute = 60.0;
inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;
/// Julian year (365.25 d), the IAU convention; used for amortization periods.
inline constexpr double kSecondsPerYear = 365.25 * 86400.0;
inline constexpr double kJoulesPerKwh = 3.6e6;
inline constexpr double kBitsPerByte = 8.0;

// Sizes in bytes.
constexpr double kilobytes(double v) { return v * kKilo; }
constexpr double megabytes(double v) { return v * kMega; }
constexpr double gigabytes(double v) { return v * kGiga; }
constexpr double kibibytes(double v) { return v * kKibi; }
constexpr double mebibytes(double v) { return v * kMebi; }
constexpr double gibibytes(double v) { return v * kGibi; }

// Durations in seconds.
constexpr double nanoseconds(double v) { return v * 1e-9; }
constexpr double microseconds(double v) { return v * 1e-6; }
constexpr double milliseconds(double v) { return v * 1e-3; }
constexpr double minutes(double v) { return v * kSecondsPerMinute; }
constexpr double hours(double v) { return v * kSecondsPerHour; }
constexpr double days(double v) { return v * kSecondsPerDay; }

// Rates.
constexpr double gigabytes_per_s(double v) { return v * kGiga; }
constexpr double gigabits_per_s(double v) { return v * kGiga / kBitsPerByte; }
constexpr double teraflop_per_s(double v) { return v * kTera; }
constexpr double usd_per_hour(double v) { return v / kSecondsPerHour; }
constexpr double usd_per_kwh(double v) { return v / kJoulesPerKwh; }
constexpr double per_hour(double v) { return v / kSecondsPerHour; }

// Conversions to human units, used only by report/ and cli/ (STYLE.md U6).
constexpr double to_gigabytes(double bytes) { return bytes / kGiga; }
constexpr double to_gibibytes(double bytes) { return bytes / kGibi; }
constexpr double to_megabytes(double bytes) { return bytes / kMega; }
constexpr double to_gigabytes_per_s(double bytes_per_s) { return bytes_per_s / kGiga; }
constexpr double to_teraflop_per_s(double flop_per_s) { return flop_per_s / kTera; }
constexpr double to_milliseconds(double s) { return s * 1e3; }
constexpr double to_hours(double s) { return s / kSecondsPerHour; }
constexpr double to_days(double s) { return s / kSecondsPerDay; }
constexpr double to_kwh(double j) { return j / kJoulesPerKwh; }
constexpr double to_usd_per_hour(double usd_per_s) { return usd_per_s * kSecondsPerHour; }

}  // namespace gpuplan::core

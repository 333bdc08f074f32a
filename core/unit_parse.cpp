#include "core/unit_parse.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/units.h"

namespace gpuplan::core {
namespace {

struct UnitFactor {
  std::string_view symbol;
  double factor;  // multiply the number by this to get SI base units
};

// Scale factors from SI brochure 9th ed. (decimal) and IEC 80000-13 (binary).
constexpr std::array kSizeUnits = {
    UnitFactor{"B", 1.0},       UnitFactor{"kB", kKilo},  UnitFactor{"MB", kMega},
    UnitFactor{"GB", kGiga},    UnitFactor{"TB", kTera},  UnitFactor{"PB", kPeta},
    UnitFactor{"KiB", kKibi},   UnitFactor{"MiB", kMebi}, UnitFactor{"GiB", kGibi},
    UnitFactor{"TiB", kTebi},   UnitFactor{"PiB", kTebi * kKibi},
};
constexpr std::array kBitUnits = {
    UnitFactor{"bit", 1.0 / kBitsPerByte},         UnitFactor{"kbit", kKilo / kBitsPerByte},
    UnitFactor{"Mbit", kMega / kBitsPerByte},      UnitFactor{"Gbit", kGiga / kBitsPerByte},
    UnitFactor{"Tbit", kTera / kBitsPerByte},
};
constexpr std::array kTimeUnits = {
    UnitFactor{"ns", 1e-9},
    UnitFactor{"us", 1e-6},
    UnitFactor{"\xC2\xB5s", 1e-6},  // µs
    UnitFactor{"ms", 1e-3},
    UnitFactor{"s", 1.0},
    UnitFactor{"sec", 1.0},
    UnitFactor{"min", kSecondsPerMinute},
    UnitFactor{"h", kSecondsPerHour},
    UnitFactor{"hour", kSecondsPerHour},
    UnitFactor{"hours", kSecondsPerHour},
    UnitFactor{"d", kSecondsPerDay},
    UnitFactor{"day", kSecondsPerDay},
    UnitFactor{"days", kSecondsPerDay},
    UnitFactor{"week", 7 * kSecondsPerDay},
    UnitFactor{"weeks", 7 * kSecondsPerDay},
    UnitFactor{"year", kSecondsPerYear},
    UnitFactor{"years", kSecondsPerYear},
};
constexpr std::array kFlopUnits = {
    UnitFactor{"FLOP", 1.0},   UnitFactor{"kFLOP", kKilo}, UnitFactor{"MFLOP", kMega},
    UnitFactor{"GFLOP", kGiga}, UnitFactor{"TFLOP", kTera}, UnitFactor{"PFLOP", kPeta},
    UnitFactor{"EFLOP", kExa},
};
constexpr std::array kFrequencyUnits = {
    UnitFactor{"Hz", 1.0}, UnitFactor{"kHz", kKilo}, UnitFactor{"MHz", kMega}, UnitFactor{"GHz", kGiga},
};
constexpr std::array kPowerUnits = {
    UnitFactor{"W", 1.0}, UnitFactor{"kW", kKilo}, UnitFactor{"MW", kMega},
};
constexpr std::array kEnergyUnits = {
    UnitFactor{"J", 1.0},
    UnitFactor{"kJ", kKilo},
    UnitFactor{"MJ", kMega},
    UnitFactor{"Wh", kSecondsPerHour},
    UnitFactor{"kWh", kJoulesPerKwh},
    UnitFactor{"MWh", kJoulesPerKwh * kKilo},
};
constexpr std::array kCountUnits = {
    UnitFactor{"samples", 1.0}, UnitFactor{"images", 1.0},    UnitFactor{"img", 1.0},
    UnitFactor{"sequences", 1.0}, UnitFactor{"seqs", 1.0},    UnitFactor{"sentences", 1.0},
    UnitFactor{"tokens", 1.0},
};

template <std::size_t N>
std::optional<double> lookup(const std::array<UnitFactor, N>& table, std::string_view symbol) {
  for (const auto& u : table) {
    if (u.symbol == symbol) {
      return u.factor;
    }
  }
  return std::nullopt;
}

std::optional<double> scaled(std::optional<double> factor, double number) {
  if (!factor) return std::nullopt;
  return *factor * number;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits "GB/s" into {"GB", "s"}; no slash gives {unit, ""} and has_slash = false.
struct Ratio {
  std::string_view numerator;
  std::string_view denominator;
  bool has_slash = false;
};
Ratio split_ratio(std::string_view unit) {
  const auto slash = unit.find('/');
  if (slash == std::string_view::npos) {
    return {trim(unit), {}, false};
  }
  return {trim(unit.substr(0, slash)), trim(unit.substr(slash + 1)), true};
}

// The parsed pieces of a quantity string.
struct Pieces {
  double number = 0.0;
  std::string_view unit;  // after the number, trimmed
  bool money = false;     // "$..." or "... USD"
};

// Interprets `pieces` as `dimension`; nullopt when the unit does not belong to it.
std::optional<double> interpret(const Pieces& p, Dimension dimension) {
  const Ratio r = split_ratio(p.unit);
  switch (dimension) {
    case Dimension::kUsd:
      if (p.money && p.unit.empty()) return p.number;
      return std::nullopt;
    case Dimension::kUsdPerSecond:
      if (p.money && r.has_slash && r.numerator.empty()) {
        if (auto t = lookup(kTimeUnits, r.denominator)) return p.number / *t;
      }
      return std::nullopt;
    case Dimension::kUsdPerJoule:
      if (p.money && r.has_slash && r.numerator.empty()) {
        if (auto e = lookup(kEnergyUnits, r.denominator)) return p.number / *e;
      }
      return std::nullopt;
    default:
      break;
  }
  if (p.money) {
    return std::nullopt;
  }
  switch (dimension) {
    case Dimension::kBytes:
      if (!r.has_slash) return scaled(lookup(kSizeUnits, r.numerator), p.number);
      return std::nullopt;
    case Dimension::kSeconds:
      if (!r.has_slash) return scaled(lookup(kTimeUnits, r.numerator), p.number);
      return std::nullopt;
    case Dimension::kFlop:
      if (!r.has_slash) return scaled(lookup(kFlopUnits, r.numerator), p.number);
      return std::nullopt;
    case Dimension::kWatts:
      if (!r.has_slash) return scaled(lookup(kPowerUnits, r.numerator), p.number);
      return std::nullopt;
    case Dimension::kJoules:
      if (!r.has_slash) return scaled(lookup(kEnergyUnits, r.numerator), p.number);
      return std::nullopt;
    case Dimension::kHertz:
      if (!r.has_slash) return scaled(lookup(kFrequencyUnits, r.numerator), p.number);
      return std::nullopt;
    default:
      break;
  }
  if (!r.has_slash) {
    return std::nullopt;
  }
  const auto per = lookup(kTimeUnits, r.denominator);
  if (!per) {
    return std::nullopt;
  }
  std::optional<double> top;
  switch (dimension) {
    case Dimension::kBytesPerSecond:
      top = lookup(kSizeUnits, r.numerator);
      if (!top) top = lookup(kBitUnits, r.numerator);
      break;
    case Dimension::kFlopPerSecond:
      top = lookup(kFlopUnits, r.numerator);
      break;
    case Dimension::kPerSecond:
      if (r.numerator.empty()) top = 1.0;
      break;
    case Dimension::kSamplesPerSecond:
      top = lookup(kCountUnits, r.numerator);
      break;
    default:
      break;
  }
  if (!top) {
    return std::nullopt;
  }
  return p.number * *top / *per;
}

constexpr std::array kAllDimensions = {
    Dimension::kBytes,        Dimension::kSeconds,      Dimension::kBytesPerSecond,
    Dimension::kFlop,         Dimension::kFlopPerSecond, Dimension::kUsd,
    Dimension::kUsdPerSecond, Dimension::kUsdPerJoule,  Dimension::kPerSecond,
    Dimension::kWatts,        Dimension::kJoules,       Dimension::kSamplesPerSecond,
    Dimension::kHertz,
};

// Hints for units people often write but which are ambiguous or refused (STYLE.md U5).
std::optional<std::string> known_mistake(std::string_view unit) {
  const Ratio r = split_ratio(unit);
  const std::string_view top = r.numerator;
  if (top == "Kb" || top == "Mb" || top == "Gb" || top == "Tb" || top == "b") {
    return "'" + std::string(top) + "' is ambiguous between bits and bytes; write '" +
           std::string(top.substr(0, top.size() - 1)) + "bit' for bits or '" +
           std::string(top.substr(0, top.size() - 1)) + "B' for bytes";
  }
  if (top == "KB") {
    return "'KB' is ambiguous; write 'kB' (1000 B) or 'KiB' (1024 B)";
  }
  if (top == "Gbps" || top == "Mbps" || top == "Gbit/sec") {
    return "write bit rates as 'Gbit/s' or 'Mbit/s'";
  }
  if (top.ends_with("FLOPS") || top.ends_with("flops") || top.ends_with("FLOPs")) {
    return "'" + std::string(top) + "' is ambiguous between a count and a rate; write '" +
           std::string(top.substr(0, top.size() - 1)) + "/s' for a rate";
  }
  return std::nullopt;
}

/// Spellings of duration units that the parser does not take, and the unit each means:
/// "10 minutes" and Go's "10m" are "10 min". Compared in lower case; `m` is read as minutes,
/// as Go's time.ParseDuration and the GNU tools read it (never months in a duration).
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kTimeUnitSpellings = {{
    {"m", "min"},
    {"mins", "min"},
    {"minute", "min"},
    {"minutes", "min"},
    {"secs", "s"},
    {"second", "s"},
    {"seconds", "s"},
    {"hr", "h"},
    {"hrs", "h"},
    {"msec", "ms"},
    {"usec", "us"},
}};

/// The duration units the parser takes, from kTimeUnits, as a list for messages:
/// "ns, us, µs, ms, s, sec, min, h, hour, hours, d, day, days, week, weeks, year or years".
std::string time_unit_list() {
  std::string out;
  for (std::size_t i = 0; i < kTimeUnits.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == kTimeUnits.size() ? " or " : ", ") + std::string(kTimeUnits[i].symbol);
  }
  return out;
}

/// The unit symbols of a dimension written without a slash, for "did you mean" on case
/// (empty for the rates, which take a slash).
std::vector<std::string_view> plain_symbols(Dimension dimension) {
  std::vector<std::string_view> out;
  const auto add = [&out](const auto& table) {
    for (const UnitFactor& u : table) out.push_back(u.symbol);
  };
  switch (dimension) {
    case Dimension::kBytes: add(kSizeUnits); break;
    case Dimension::kSeconds: add(kTimeUnits); break;
    case Dimension::kFlop: add(kFlopUnits); break;
    case Dimension::kWatts: add(kPowerUnits); break;
    case Dimension::kJoules: add(kEnergyUnits); break;
    case Dimension::kHertz: add(kFrequencyUnits); break;
    default: break;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// The fix for an unknown unit that is nearly a unit of `dimension`, or nullopt:
/// a size written with a bare prefix ("64G": "64 GiB" or "64 GB", which differ by 7 %), a
/// duration unit spelt another way ("10 minutes", "10m": "10 min"; kTimeUnitSpellings), or
/// a unit in the wrong case ("64 gib": "64 GiB"). `number` is the number as written.
std::optional<std::string> near_unit_fix(std::string_view number, std::string_view unit, Dimension dimension) {
  const std::string n(number);
  if (dimension == Dimension::kBytes) {
    struct Prefix {
      std::string_view written;
      std::string_view binary;
      std::string_view decimal;
      std::string_view powers;
    };
    constexpr std::array kPrefixes = {
        Prefix{"k", "KiB", "kB", "2^10 B or 10^3 B"},  Prefix{"K", "KiB", "kB", "2^10 B or 10^3 B"},
        Prefix{"M", "MiB", "MB", "2^20 B or 10^6 B"},  Prefix{"G", "GiB", "GB", "2^30 B or 10^9 B"},
        Prefix{"T", "TiB", "TB", "2^40 B or 10^12 B"}, Prefix{"P", "PiB", "PB", "2^50 B or 10^15 B"},
        Prefix{"Ki", "KiB", "", "2^10 B"},             Prefix{"Mi", "MiB", "", "2^20 B"},
        Prefix{"Gi", "GiB", "", "2^30 B"},             Prefix{"Ti", "TiB", "", "2^40 B"},
    };
    for (const Prefix& prefix : kPrefixes) {
      if (lower(unit) != lower(prefix.written) || (unit.size() == 2 && unit != prefix.written)) continue;
      std::string fix = "write \"" + n + " " + std::string(prefix.binary) + "\"";
      if (!prefix.decimal.empty()) fix += " or \"" + n + " " + std::string(prefix.decimal) + "\"";
      return fix + " (" + std::string(prefix.powers) + ")";
    }
  }
  if (dimension == Dimension::kSeconds) {
    for (const auto& [written, meant] : kTimeUnitSpellings) {
      if (lower(unit) == written) return "write \"" + n + " " + std::string(meant) + "\"";
    }
  }
  std::vector<std::string> same_letters;
  for (std::string_view symbol : plain_symbols(dimension)) {
    if (lower(symbol) == lower(unit)) same_letters.push_back("\"" + n + " " + std::string(symbol) + "\"");
  }
  if (same_letters.empty()) return std::nullopt;
  std::string fix = "write " + same_letters.front();
  for (std::size_t i = 1; i < same_letters.size(); ++i) fix += " or " + same_letters[i];
  return fix + " (units are case-sensitive)";
}

/// "a size", "an energy price": the article the name takes (all names start with their
/// sound's letter: a vowel letter is a vowel sound).
std::string with_article(std::string_view name) {
  const bool vowel = !name.empty() && std::string_view("aeiouAEIOU").find(name.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(name);
}

/// Values of `dimension` written with `number`, for a bare number: a duration as seconds or
/// minutes (a bare one is most often either), any other dimension as its example's units
/// ("\"64 KiB\"" for 64 written as a size).
std::string with_number(std::string_view number, Dimension dimension, std::string_view example) {
  const std::string n(number);
  if (dimension == Dimension::kSeconds) {
    return "\"" + n + " s\" or \"" + n + " min\" (a duration takes " + time_unit_list() + ")";
  }
  // The example's quoted values, each with its number replaced ("$3.06/h" -> "$10/h").
  std::string out;
  bool in_quotes = false;
  for (std::size_t i = 0; i < example.size(); ++i) {
    out += example[i];
    if (example[i] != '"') continue;
    in_quotes = !in_quotes;
    if (!in_quotes) continue;
    if (i + 1 < example.size() && example[i + 1] == '$') out += example[++i];
    out += n;
    while (i + 1 < example.size() &&
           (std::isdigit(static_cast<unsigned char>(example[i + 1])) != 0 || example[i + 1] == '.')) {
      ++i;
    }
  }
  return out;
}

}  // namespace

DimensionInfo describe(Dimension dimension) {
  switch (dimension) {
    case Dimension::kBytes: return {"size", "\"110 KiB\""};
    case Dimension::kSeconds: return {"duration", "\"4 ms\""};
    case Dimension::kBytesPerSecond: return {"bandwidth", "\"2.5 GB/s\" or \"100 Gbit/s\""};
    case Dimension::kFlop: return {"FLOP count", "\"2.4 PFLOP\""};
    case Dimension::kFlopPerSecond: return {"FLOP rate", "\"312 TFLOP/s\""};
    case Dimension::kUsd: return {"price", "\"$1500\""};
    case Dimension::kUsdPerSecond: return {"price per time", "\"$3.06/h\""};
    case Dimension::kUsdPerJoule: return {"energy price", "\"$0.15/kWh\""};
    case Dimension::kPerSecond: return {"event rate", "\"0.05 /h\""};
    case Dimension::kWatts: return {"power", "\"700 W\""};
    case Dimension::kJoules: return {"energy", "\"3 kWh\""};
    case Dimension::kSamplesPerSecond: return {"throughput", "\"2650 samples/s\""};
    case Dimension::kHertz: return {"clock frequency", "\"1695 MHz\""};
  }
  return {"quantity", "\"1 s\""};
}

double parse_quantity(std::string_view text, Dimension dimension) {
  const DimensionInfo want = describe(dimension);
  const std::string quoted = "'" + std::string(text) + "'";
  std::string_view s = trim(text);
  Pieces p;
  if (s.starts_with("-$")) {
    // "-$3500": a negative amount, written with its sign before the dollar.
    throw UnitError("expected " + with_article(want.name) + " such as " + std::string(want.example) + ", found " +
                    quoted + " (a negative amount)");
  }
  if (!s.empty() && s.front() == '$') {
    p.money = true;
    s.remove_prefix(1);
    s = trim(s);
  }
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') {
    ++begin;
  }
  const auto [ptr, ec] = std::from_chars(begin, end, p.number);
  if (ec == std::errc::result_out_of_range) {
    throw UnitError("out-of-range " + std::string(want.name) + " " + quoted +
                    ": its magnitude exceeds 1e30 in SI base units; check the exponent");
  }
  if (ec != std::errc{} || ptr == begin) {
    throw UnitError("expected " + with_article(want.name) + " such as " + std::string(want.example) +
                    ", found " + quoted + " (no number)");
  }
  if (!std::isfinite(p.number)) {
    throw UnitError("expected a finite " + std::string(want.name) + ", found " + quoted);
  }
  p.unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  if (!p.money && p.unit.starts_with("USD")) {
    p.money = true;
    p.unit = trim(p.unit.substr(3));
  }
  if (p.unit.empty() && !p.money) {
    const std::string_view number(s.data(), static_cast<std::size_t>(ptr - s.data()));
    throw UnitError("a bare number is not " + with_article(want.name) + ": found " + quoted +
                    "; write it with a unit, e.g. " + with_number(number, dimension, want.example));
  }
  if (auto value = interpret(p, dimension)) {
    if (!(std::abs(*value) <= kMaxQuantityMagnitude)) {
      throw UnitError("out-of-range " + std::string(want.name) + " " + quoted +
                      ": its magnitude exceeds 1e30 in SI base units; check the exponent");
    }
    return *value;
  }
  if (auto hint = known_mistake(p.unit)) {
    throw UnitError("bad unit in " + quoted + ": " + *hint);
  }
  for (Dimension other : kAllDimensions) {
    if (other != dimension && interpret(p, other)) {
      throw UnitError(quoted + " is " + with_article(describe(other).name) + ", expected " +
                      with_article(want.name) + " such as " + std::string(want.example));
    }
  }
  const std::string_view number = trim(std::string_view(s.data(), static_cast<std::size_t>(ptr - s.data())));
  if (auto fix = near_unit_fix(number, p.unit, dimension); fix && !p.money) {
    throw UnitError("unknown unit '" + std::string(p.unit) + "' in " + quoted + "; " + *fix);
  }
  throw UnitError("unknown unit '" + std::string(p.unit) + "' in " + quoted + "; expected " +
                  with_article(want.name) + " such as " + std::string(want.example));
}

namespace {
/// A count as written with a magnitude suffix: plain decimal digits (a decimal point allowed,
/// no sign or exponent), their value, and the suffix after them ("1.5 k": "1.5", 1.5, "k").
struct SuffixedCount {
  std::string digits;
  double number = 0.0;
  std::string_view suffix;
};

/// `text` split as a SuffixedCount; nullopt without digits, without a suffix, or with a sign
/// or an exponent of its own (no plain rewrite then).
std::optional<SuffixedCount> split_suffixed_count(std::string_view text) {
  const std::string_view s = trim(text);
  SuffixedCount out;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(begin, end, out.number);
  if (ec != std::errc{} || ptr == begin || ptr == end || !std::isfinite(out.number)) {
    return std::nullopt;
  }
  out.digits.assign(begin, ptr);
  if (out.digits.find_first_not_of("0123456789.") != std::string::npos || out.digits.front() == '.') {
    return std::nullopt;
  }
  out.suffix = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return out;
}
}  // namespace

std::optional<std::string> plain_count(std::string_view text, bool whole) {
  const std::optional<SuffixedCount> count = split_suffixed_count(text);
  if (!count) return std::nullopt;
  const std::string& digits = count->digits;
  const std::string_view suffix = count->suffix;
  // Thousand, million, billion (G, and B as in "8B parameters"), trillion: powers of ten.
  int exponent = 0;
  if (suffix == "k" || suffix == "K") {
    exponent = 3;
  } else if (suffix == "M") {
    exponent = 6;
  } else if (suffix == "G" || suffix == "B") {
    exponent = 9;
  } else if (suffix == "T") {
    exponent = 12;
  } else {
    return std::nullopt;
  }
  if (!whole) {
    return digits + "e" + std::to_string(exponent);
  }
  // Shift the decimal point by `exponent` places.
  const std::size_t point = digits.find('.');
  std::string integer = point == std::string::npos ? digits : digits.substr(0, point);
  std::string fraction = point == std::string::npos ? std::string() : digits.substr(point + 1);
  if (fraction.size() > static_cast<std::size_t>(exponent)) {
    return std::nullopt;  // not a whole number
  }
  integer += fraction + std::string(static_cast<std::size_t>(exponent) - fraction.size(), '0');
  const std::size_t first = integer.find_first_not_of('0');
  return first == std::string::npos ? std::string("0") : integer.substr(first);
}

std::optional<std::string> binary_count(std::string_view text) {
  const std::optional<SuffixedCount> count = split_suffixed_count(text);
  if (!count) return std::nullopt;
  double factor = 0.0;
  if (count->suffix == "k" || count->suffix == "K") {
    factor = kKibi;
  } else if (count->suffix == "M") {
    factor = kMebi;
  } else {
    return std::nullopt;
  }
  const double value = count->number * factor;
  if (value != std::floor(value) || value > 9.0e15) {
    return std::nullopt;
  }
  return std::to_string(static_cast<std::int64_t>(value));
}

std::optional<std::string> decimal_digits(std::string_view text) {
  std::string_view s = trim(text);
  const bool negative = !s.empty() && s.front() == '-';
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'b')) {
    base = s[1] == 'o' ? 8 : s[1] == 'b' ? 2 : 16;
    s.remove_prefix(2);
  } else if (s.find('_') == std::string_view::npos) {
    return std::nullopt;  // plain decimal digits, or no number: nothing to rewrite
  }
  // Underscores only between digits (YAML 1.1 also allows them after the prefix).
  if (s.empty() || s.back() == '_' || (base == 10 && s.front() == '_')) return std::nullopt;
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t value = 0;
  bool previous_underscore = false;
  for (const char c : s) {
    if (c == '_') {
      if (previous_underscore) return std::nullopt;
      previous_underscore = true;
      continue;
    }
    previous_underscore = false;
    const char lower_c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    unsigned digit = 0;
    if (lower_c >= '0' && lower_c <= '9') {
      digit = static_cast<unsigned>(lower_c - '0');
    } else if (lower_c >= 'a' && lower_c <= 'f') {
      digit = static_cast<unsigned>(lower_c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    if (digit >= base || value > (kMax - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return (negative && value != 0 ? "-" : "") + std::to_string(value);
}

}  // namespace gpuplan::core

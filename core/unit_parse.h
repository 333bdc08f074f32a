#pragma once
/// \file unit_parse.h
/// The one parser for every dimensional value in scenarios and catalogs (STYLE.md U5):
/// a number followed by a unit, as a string ("110 KiB", "2.5 GB/s", "4 ms", "312 TFLOP/s",
/// "$1500", "$0.15/kWh", "0.05 /h", "100 Gbit/s", "700 W"). Returns SI base units.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuplan::core {

/// What a quantity measures; selects the accepted units and the SI unit returned.
enum class Dimension {
  kBytes,            ///< B, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB -> B
  kSeconds,          ///< ns, us, ms, s, min, h, d, week(s), year(s) -> s
  kBytesPerSecond,   ///< any size per s, or bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s -> B/s
  kFlop,             ///< FLOP, kFLOP ... EFLOP -> FLOP
  kFlopPerSecond,    ///< FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s -> FLOP/s
  kUsd,              ///< "$1500" or "1500 USD" -> USD
  kUsdPerSecond,     ///< "$3.06/h", "$0.001/s" -> USD/s
  kUsdPerJoule,      ///< "$0.15/kWh" -> USD/J
  kPerSecond,        ///< event rate: "0.05 /h", "1 /day" -> 1/s
  kWatts,            ///< W, kW -> W
  kJoules,           ///< J, kJ, MJ, Wh, kWh -> J
  kSamplesPerSecond, ///< samples/s, images/s, img/s, sequences/s, tokens/s -> 1/s
  kHertz,            ///< clock frequency: Hz, kHz, MHz, GHz -> Hz
};

/// The name of a dimension and an example value, for error messages:
/// e.g. {"size", "\"110 KiB\""}.
struct DimensionInfo {
  std::string_view name;
  std::string_view example;
};
DimensionInfo describe(Dimension dimension);

/// A malformed quantity. The message says what was found and what is expected, without a
/// location; config/ adds file:line:column and the key path.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Largest magnitude of a quantity, in SI base units. No input of a training job comes
/// near it (the largest, a dataset's bytes, stays below 1e18 B; peak rates below 1e17
/// FLOP/s), and sums and products of a few such values stay far inside the range of a
/// double (1.8e308), so a finite-but-absurd value such as "1e308 KiB" is an input error
/// here rather than an infinity inside the engine (issue 15).
inline constexpr double kMaxQuantityMagnitude = 1e30;

/// Parses `text` as a quantity of `dimension` and returns it in SI base units.
/// Throws UnitError for a bare number (with the fix "write it with a unit, e.g. ..."),
/// an unknown or ambiguous unit ("Gb/s", "KB"), a unit of another dimension, a missing
/// number, or a non-finite value or one whose magnitude exceeds kMaxQuantityMagnitude
/// ("out-of-range size '1e308 KiB': its magnitude exceeds 1e30 in SI base units; check
/// the exponent"). Sign is not checked here: range checks belong to the
/// caller, which knows the key.
/// An unknown unit that is nearly one of `dimension` gets its fix instead of the example: a
/// size with a bare prefix ("64G": write "64 GiB" or "64 GB" (2^30 B or 10^9 B)), a duration
/// unit spelt another way ("10 minutes" or "10m": write "10 min"), or a unit in the wrong case
/// ("64 gib": write "64 GiB" (units are case-sensitive)). A bare duration's fix lists every
/// duration unit the parser takes, weeks and years included.
double parse_quantity(std::string_view text, Dimension dimension);

/// A count written with a magnitude suffix, as token and sample counts often are ("10M",
/// "1.5B", "100k", "2 T": thousand, million, G or B for billion, trillion), rewritten as the
/// plain number that a count key reads: "10e6" ("1.5e9"), or when `whole` the digits
/// ("10000000"). nullopt when `text` is not a plain decimal number followed by one of those
/// suffixes, or (`whole`) is not a whole number.
std::optional<std::string> plain_count(std::string_view text, bool whole);

/// A token length written with a binary magnitude suffix, as context lengths are ("4k" and
/// "4K": 4 x 1024 = "4096"; "1M": "1048576"), as its plain digits. nullopt when `text` is not
/// plain decimal digits (a decimal point allowed) followed by k, K or M, or is not a whole
/// number of tokens then.
std::optional<std::string> binary_count(std::string_view text);

/// A whole number in a notation that other YAML readers take (YAML 1.1's digits grouped by
/// underscores, "524_288_000"; hexadecimal, octal or binary digits after 0x, 0o or 0b,
/// "0x1F400000") but gpuplan's number keys do not, with an optional sign; rewritten as its
/// decimal digits ("524288000"). nullopt for anything else, or a magnitude above 2^63 - 1.
std::optional<std::string> decimal_digits(std::string_view text);

}  // namespace gpuplan::core

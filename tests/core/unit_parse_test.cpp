#include "core/unit_parse.h"

#include <doctest/doctest.h>

#include <string>

#include "core/units.h"

using gpuplan::core::Dimension;
using gpuplan::core::parse_quantity;
using gpuplan::core::UnitError;

TEST_SUITE("core.unit_parse") {
  TEST_CASE("sizes: decimal and binary prefixes mean what they say") {
    CHECK(parse_quantity("110 KiB", Dimension::kBytes) == doctest::Approx(110.0 * 1024));
    CHECK(parse_quantity("110 kB", Dimension::kBytes) == doctest::Approx(110e3));
    CHECK(parse_quantity("64 GiB", Dimension::kBytes) == doctest::Approx(64.0 * 1024 * 1024 * 1024));
    CHECK(parse_quantity("80 GB", Dimension::kBytes) == doctest::Approx(80e9));
    CHECK(parse_quantity("25MiB", Dimension::kBytes) == doctest::Approx(25.0 * 1024 * 1024));
    CHECK(parse_quantity("1.5e3 B", Dimension::kBytes) == doctest::Approx(1500));
  }

  TEST_CASE("durations, rates, FLOP, money, power, energy, throughput") {
    CHECK(parse_quantity("4 ms", Dimension::kSeconds) == doctest::Approx(0.004));
    CHECK(parse_quantity("30 min", Dimension::kSeconds) == doctest::Approx(1800));
    CHECK(parse_quantity("3 years", Dimension::kSeconds) == doctest::Approx(3 * 365.25 * 86400));
    CHECK(parse_quantity("2.5 GB/s", Dimension::kBytesPerSecond) == doctest::Approx(2.5e9));
    // 100 Gbit/s = 100e9 / 8 B/s
    CHECK(parse_quantity("100 Gbit/s", Dimension::kBytesPerSecond) == doctest::Approx(12.5e9));
    CHECK(parse_quantity("312 TFLOP/s", Dimension::kFlopPerSecond) == doctest::Approx(312e12));
    CHECK(parse_quantity("2.4 EFLOP", Dimension::kFlop) == doctest::Approx(2.4e18));
    CHECK(parse_quantity("$1500", Dimension::kUsd) == doctest::Approx(1500));
    CHECK(parse_quantity("1500 USD", Dimension::kUsd) == doctest::Approx(1500));
    // $3.06/h = 3.06 / 3600 USD/s
    CHECK(parse_quantity("$3.06/h", Dimension::kUsdPerSecond) == doctest::Approx(3.06 / 3600));
    // $0.15/kWh = 0.15 / 3.6e6 USD/J
    CHECK(parse_quantity("$0.15/kWh", Dimension::kUsdPerJoule) == doctest::Approx(0.15 / 3.6e6));
    CHECK(parse_quantity("0.05 /h", Dimension::kPerSecond) == doctest::Approx(0.05 / 3600));
    CHECK(parse_quantity("700 W", Dimension::kWatts) == doctest::Approx(700));
    CHECK(parse_quantity("3 kWh", Dimension::kJoules) == doctest::Approx(3 * 3.6e6));
    CHECK(parse_quantity("2650 samples/s", Dimension::kSamplesPerSecond) == doctest::Approx(2650));
    CHECK(parse_quantity("317 sequences/s", Dimension::kSamplesPerSecond) == doctest::Approx(317));
    CHECK(parse_quantity("1695 MHz", Dimension::kHertz) == doctest::Approx(1.695e9));
    CHECK(parse_quantity("1.41 GHz", Dimension::kHertz) == doctest::Approx(1.41e9));
  }

  TEST_CASE("a bare number names the dimension and gives an example with a unit") {
    CHECK_THROWS_WITH_AS(parse_quantity("110", Dimension::kBytes),
                         "a bare number is not a size: found '110'; write it with a unit, e.g. \"110 KiB\"",
                         UnitError);
    // The number written, with the example's units; a duration as seconds or minutes.
    CHECK_THROWS_WITH_AS(
        parse_quantity("10", Dimension::kSeconds),
        "a bare number is not a duration: found '10'; write it with a unit, e.g. \"10 s\" or "
        "\"10 min\" (a duration takes ns, us, µs, ms, s, sec, min, h, hour, hours, d, day, days, week, "
        "weeks, year or years)",
        UnitError);
    // Each unit that list names is one the parser takes.
    for (const char* unit : {"ns", "us", "µs", "ms", "s", "sec", "min", "h", "hour", "hours", "d", "day", "days",
                             "week", "weeks", "year", "years"}) {
      CHECK(parse_quantity(std::string("10 ") + unit, Dimension::kSeconds) > 0.0);
    }
    CHECK_THROWS_WITH_AS(parse_quantity(" 25 ", Dimension::kBytesPerSecond),
                         "a bare number is not a bandwidth: found ' 25 '; write it with a unit, e.g. \"25 GB/s\" or "
                         "\"25 Gbit/s\"",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("0.2", Dimension::kPerSecond),
                         "a bare number is not an event rate: found '0.2'; write it with a unit, e.g. \"0.2 /h\"",
                         UnitError);
  }

  TEST_CASE("ambiguous units are refused with the fix") {
    CHECK_THROWS_WITH_AS(parse_quantity("2.5 Gb/s", Dimension::kBytesPerSecond),
                         "bad unit in '2.5 Gb/s': 'Gb' is ambiguous between bits and bytes; write 'Gbit' for bits or "
                         "'GB' for bytes",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("64 KB", Dimension::kBytes),
                         "bad unit in '64 KB': 'KB' is ambiguous; write 'kB' (1000 B) or 'KiB' (1024 B)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("312 TFLOPS", Dimension::kFlopPerSecond),
                         "bad unit in '312 TFLOPS': 'TFLOPS' is ambiguous between a count and a rate; write "
                         "'TFLOP/s' for a rate",
                         UnitError);
  }

  TEST_CASE("a unit of another dimension, an unknown unit, no number") {
    CHECK_THROWS_WITH_AS(parse_quantity("4 ms", Dimension::kBytes),
                         "'4 ms' is a duration, expected a size such as \"110 KiB\"", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("4 parsecs", Dimension::kSeconds),
                         "unknown unit 'parsecs' in '4 parsecs'; expected a duration such as \"4 ms\"", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("fast", Dimension::kBytesPerSecond),
                         "expected a bandwidth such as \"2.5 GB/s\" or \"100 Gbit/s\", found 'fast' (no number)",
                         UnitError);
    // A sign before the dollar is a negative amount, not a missing number (a trial's "-$3500").
    CHECK_THROWS_AS(parse_quantity("-$3500", Dimension::kUsd), UnitError);
    try {
      parse_quantity("-$3500", Dimension::kUsd);
    } catch (const UnitError& e) {
      CHECK(std::string(e.what()).ends_with("found '-$3500' (a negative amount)"));
    }
  }

  TEST_CASE("a size with a bare prefix or a unit in the wrong case gets the units it may mean") {
    CHECK_THROWS_WITH_AS(parse_quantity("64G", Dimension::kBytes),
                         "unknown unit 'G' in '64G'; write \"64 GiB\" or \"64 GB\" (2^30 B or 10^9 B)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("1.5 T", Dimension::kBytes),
                         "unknown unit 'T' in '1.5 T'; write \"1.5 TiB\" or \"1.5 TB\" (2^40 B or 10^12 B)",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("64Gi", Dimension::kBytes),
                         "unknown unit 'Gi' in '64Gi'; write \"64 GiB\" (2^30 B)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("64 gib", Dimension::kBytes),
                         "unknown unit 'gib' in '64 gib'; write \"64 GiB\" (units are case-sensitive)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("64 gb", Dimension::kBytes),
                         "unknown unit 'gb' in '64 gb'; write \"64 GB\" (units are case-sensitive)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("4 MS", Dimension::kSeconds),
                         "unknown unit 'MS' in '4 MS'; write \"4 ms\" (units are case-sensitive)", UnitError);
    // Durations spelt as people and Go write them: the unit the parser takes.
    CHECK_THROWS_WITH_AS(parse_quantity("10 minutes", Dimension::kSeconds),
                         "unknown unit 'minutes' in '10 minutes'; write \"10 min\"", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("10m", Dimension::kSeconds), "unknown unit 'm' in '10m'; write \"10 min\"",
                         UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("30 Seconds", Dimension::kSeconds),
                         "unknown unit 'Seconds' in '30 Seconds'; write \"30 s\"", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("2 hrs", Dimension::kSeconds), "unknown unit 'hrs' in '2 hrs'; write \"2 h\"",
                         UnitError);
    CHECK(parse_quantity("10 min", Dimension::kSeconds) == doctest::Approx(600.0));
    // Only for a duration: "10m" is no power.
    CHECK_THROWS_WITH_AS(parse_quantity("10m", Dimension::kWatts),
                         "unknown unit 'm' in '10m'; expected a power such as \"700 W\"", UnitError);
    // What each suggestion says is accepted.
    CHECK(parse_quantity("64 GiB", Dimension::kBytes) == doctest::Approx(64.0 * 1024 * 1024 * 1024));
    CHECK(parse_quantity("64 GB", Dimension::kBytes) == doctest::Approx(64e9));
    // Still ambiguous, or nothing near: the earlier messages.
    CHECK_THROWS_WITH_AS(parse_quantity("64 KB", Dimension::kBytes),
                         "bad unit in '64 KB': 'KB' is ambiguous; write 'kB' (1000 B) or 'KiB' (1024 B)", UnitError);
    CHECK_THROWS_WITH_AS(parse_quantity("64 Q", Dimension::kBytes),
                         "unknown unit 'Q' in '64 Q'; expected a size such as \"110 KiB\"", UnitError);
  }

  TEST_CASE("a count with a magnitude suffix, rewritten as the plain number a count key reads") {
    using gpuplan::core::plain_count;
    CHECK(plain_count("10M", false) == "10e6");
    CHECK(plain_count("1.5B", false) == "1.5e9");
    CHECK(plain_count("100 k", false) == "100e3");
    CHECK(plain_count("2T", false) == "2e12");
    CHECK(plain_count("10M", true) == "10000000");
    CHECK(plain_count("1.5k", true) == "1500");
    CHECK(plain_count("0.25M", true) == "250000");
    CHECK_FALSE(plain_count("1.2345k", true));  // not whole
    CHECK_FALSE(plain_count("10", false));
    CHECK_FALSE(plain_count("10 MB", false));
    CHECK_FALSE(plain_count("-10M", false));
    CHECK_FALSE(plain_count("1e3k", false));
    CHECK_FALSE(plain_count("M", false));
  }

  TEST_CASE("a token length with k or M, rewritten with binary prefixes: a 4k context is 4096 tokens") {
    using gpuplan::core::binary_count;
    CHECK(binary_count("4k") == "4096");
    CHECK(binary_count("8K") == "8192");
    CHECK(binary_count("128k") == "131072");
    CHECK(binary_count("1M") == "1048576");
    CHECK(binary_count("0.5k") == "512");
    CHECK_FALSE(binary_count("1.1k"));  // 1126.4 tokens: not whole
    CHECK_FALSE(binary_count("4G"));    // no token length is written so
    CHECK_FALSE(binary_count("-4k"));
    CHECK_FALSE(binary_count("4096"));
    CHECK_FALSE(binary_count("k"));
  }

  TEST_CASE("a whole number in YAML 1.1 notations, rewritten in decimal digits") {
    using gpuplan::core::decimal_digits;
    CHECK(decimal_digits("524_288_000") == "524288000");
    CHECK(decimal_digits("0x1F400000") == "524288000");  // 0x1F4 = 500, x 2^20
    CHECK(decimal_digits("0X_ff") == "255");
    CHECK(decimal_digits("0o17") == "15");
    CHECK(decimal_digits("0b1010") == "10");
    CHECK(decimal_digits("-1_000") == "-1000");
    CHECK(decimal_digits("0x7fffffffffffffff") == "9223372036854775807");
    CHECK_FALSE(decimal_digits("0x8000000000000000"));  // above 2^63 - 1
    CHECK_FALSE(decimal_digits("524288000"));  // already decimal digits
    CHECK_FALSE(decimal_digits("1__0"));
    CHECK_FALSE(decimal_digits("_10"));
    CHECK_FALSE(decimal_digits("10_"));
    CHECK_FALSE(decimal_digits("0x"));
    CHECK_FALSE(decimal_digits("0b12"));
    CHECK_FALSE(decimal_digits("1_0.5"));
  }

  TEST_CASE("signs are left to the caller, which knows the key's range") {
    CHECK(parse_quantity("-4 ms", Dimension::kSeconds) == doctest::Approx(-0.004));
  }
}

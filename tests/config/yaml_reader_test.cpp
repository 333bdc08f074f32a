// Tests of the strict YAML reader (config/yaml_reader.h). Error texts are asserted whole,
// with file:line:column, because they are the user experience (STYLE.md T4).

#include "config/yaml_reader.h"
#include "config_fixture.h"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/units.h"

namespace gpuplan::config {
namespace {

using namespace testing;

/// Parses `text` as "s.yaml", runs `read` on the root mapping and returns every message.
std::vector<std::string> messages_of(const std::string& text, const std::function<void(MapReader&)>& read) {
  try {
    const YAML::Node root = parse_yaml(text, "s.yaml");
    ErrorSink sink("s.yaml");
    MapReader reader(root, "", sink);
    read(reader);
    return sink.messages();
  } catch (const ConfigError& e) {
    return e.messages();
  }
}


}  // namespace

TEST_SUITE("config.yaml_reader") {
  TEST_CASE("a YAML syntax error names the position and how to look for the cause") {
    CHECK(messages_of("a: [1, 2\nb: 3\n", [](MapReader&) {}) ==
          Messages{"YAML syntax error: end of sequence flow not found at s.yaml:2:2; the '[' at s.yaml:1:4 is not "
                   "closed: add its ']'"});
  }

  TEST_CASE("duplicate keys are errors at the second one, naming the first one's line") {
    CHECK(messages_of("a:\n  b: 1\n  b: 2\n", [](MapReader&) {}) ==
          Messages{"duplicate key 'b' at s.yaml:3:3 (a.b); the first one is on line 2, remove one of them"});
  }

  TEST_CASE("unknown keys suggest the closest known key") {
    CHECK(messages_of("batch_size: 1\nbatch_sise: 2\n",
                      [](MapReader& r) {
                        r.integer("batch_size", 1, 10);
                        r.finish();
                      }) ==
          Messages{"unknown key 'batch_sise' at s.yaml:2:1 (batch_sise); did you mean batch_size?"});
    // Nothing close: no suggestion.
    CHECK(messages_of("batch_size: 1\ncolour: red\n",
                      [](MapReader& r) {
                        r.integer("batch_size", 1, 10);
                        r.finish();
                      }) == Messages{"unknown key 'colour' at s.yaml:2:1 (colour); remove it, or use a key of the file: batch_size"});
  }

  TEST_CASE("quantities: SI values, and the errors of missing, bad and out-of-range units") {
    const std::string text =
        "x:\n"
        "  ok: \"110 KiB\"\n"
        "  bare: \"110\"\n"
        "  rate: \"2.5 Gb/s\"\n"
        "  t: \"-4 ms\"\n"
        "  other: \"4 ms\"\n";
    double ok = 0.0;
    const Messages got = messages_of(text, [&](MapReader& r) {
      auto x = r.map("x");
      REQUIRE(x);
      ok = x->quantity("ok", core::Dimension::kBytes).value_or(-1.0);
      CHECK_FALSE(x->quantity("bare", core::Dimension::kBytes));
      CHECK_FALSE(x->quantity("rate", core::Dimension::kBytesPerSecond));
      CHECK_FALSE(x->quantity("t", core::Dimension::kSeconds, Range::kNonNegative));
      CHECK_FALSE(x->quantity("other", core::Dimension::kBytes));
      x->finish();
    });
    CHECK(ok == 112640.0);  // 110 × 1024 B
    CHECK(got == Messages{
                     "a bare number is not a size: found '110' at s.yaml:3:9 (x.bare); write it with a unit, "
                     "e.g. \"110 KiB\"",
                     "bad unit in '2.5 Gb/s': 'Gb' is ambiguous between bits and bytes at s.yaml:4:9 (x.rate); "
                     "write 'Gbit' for bits or 'GB' for bytes",
                     "out-of-range duration '-4 ms' at s.yaml:5:6 (x.t); expected zero or more",
                     "'4 ms' is a duration, expected a size such as \"110 KiB\" at s.yaml:6:10 (x.other)",
                 });
  }

  TEST_CASE("a sequence or mapping where one value belongs: the error says what to write") {
    // From a helper's trial: "expected true or false, found a sequence" came without a fix.
    const Messages got = messages_of("flag: [true]\nname: {a: b}\n", [](MapReader& r) {
      CHECK_FALSE(r.boolean("flag"));
      CHECK_FALSE(r.string("name"));
      r.finish();
    });
    CHECK(got == Messages{
                     "expected true or false, found a sequence at s.yaml:1:7 (flag); write flag: true or false (one "
                     "value, not a sequence)",
                     "expected a text value, found a mapping at s.yaml:2:7 (name); write name: a text value (one "
                     "value, not a mapping)",
                 });
  }

  TEST_CASE("numbers: wrong type, out of range, missing value, missing key") {
    const Messages got = messages_of("n: 0\nm: {a: 1}\nb: 1\ne:\nt: true\nu: True\nv: FALSE\n", [](MapReader& r) {
      CHECK_FALSE(r.integer("n", 1, 10));
      CHECK_FALSE(r.integer("m", 1, 10));
      CHECK_FALSE(r.boolean("b"));
      CHECK_FALSE(r.number("e", 0, 1));
      CHECK(r.boolean("t") == true);
      CHECK(r.boolean("u") == true);    // YAML 1.2's core schema: True and TRUE too
      CHECK(r.boolean("v") == false);
      CHECK_FALSE(r.string("name", Requirement::kRequired));
      r.finish();
    });
    CHECK(got == Messages{
                     "out-of-range value 0 at s.yaml:1:4 (n); expected a whole number from 1 to 10",
                     "expected a whole number from 1 to 10, found a mapping at s.yaml:2:4 (m); write m: a whole number from 1 to 10 "
                     "(one value, not a mapping)",
                     "expected true or false, found '1' at s.yaml:3:4 (b); write true or false",
                     "missing value for 'e' at s.yaml:4:1 (e); write e: a number from 0 to 1 or remove the key",
                     "missing key 'name' at s.yaml:1:1 (name); add name: a text value",
                 });
  }

  TEST_CASE("a number written in quotes is text: refused, with the fix") {
    // Double and single quotes; a plain 4 and quoted text that is no number keep their own paths.
    const Messages got = messages_of("p: \"4\"\nq: '0.5'\nr: 4\ns: \"four\"\nt: \"1e6\"\n", [](MapReader& r) {
      CHECK_FALSE(r.integer("p", 1, 64));
      CHECK_FALSE(r.number("q", 0, 1));
      CHECK(r.integer("r", 1, 64) == 4);
      CHECK_FALSE(r.integer("s", 1, 64));
      CHECK_FALSE(r.number("t", 1, 1e9));
      r.finish();
    });
    CHECK(got == Messages{
                     "expected a whole number from 1 to 64, found the quoted text \"4\" at s.yaml:1:4 (p); "
                     "write 4 without quotes (quotes make it text in YAML)",
                     "expected a number from 0 to 1, found the quoted text \"0.5\" at s.yaml:2:4 (q); "
                     "write 0.5 without quotes (quotes make it text in YAML)",
                     "expected a whole number from 1 to 64, found 'four' at s.yaml:4:4 (s)",
                     "expected a number from 1 to 1e+09, found the quoted text \"1e6\" at s.yaml:5:4 (t); "
                     "write 1e6 without quotes (quotes make it text in YAML)",
                 });
    // The number to write is the one the key then reads, or the range: "write 1e9 without quotes"
    // for a whole number from 1 to 100000 would be refused twice more.
    CHECK(messages_of("nodes: \"1e9\"\nlayers: \"1e3\"\ntokens: '0100'\nshare: \"1.5\"\nbatch: \"2.5\"\n",
                      [](MapReader& r) {
                        CHECK_FALSE(r.integer("nodes", 1, 100000));
                        CHECK_FALSE(r.integer("layers", 1, 100000));
                        CHECK_FALSE(r.number("tokens", 1, 1e18));
                        CHECK_FALSE(r.number("share", 0, 1));
                        CHECK_FALSE(r.integer("batch", 1, 64));
                      }) ==
          Messages{
              "expected a whole number from 1 to 100000, found the quoted text \"1e9\" at s.yaml:1:8 (nodes); 1e9 "
              "is out of range: write a whole number from 1 to 100000 without quotes (quotes make it text in YAML)",
              "expected a whole number from 1 to 100000, found the quoted text \"1e3\" at s.yaml:2:9 (layers); "
              "write 1000 without quotes (quotes make it text in YAML)",
              "expected a number from 1 to 1e+18, found the quoted text \"0100\" at s.yaml:3:9 (tokens); write 100 "
              "without quotes (quotes make it text in YAML)",
              "expected a number from 0 to 1, found the quoted text \"1.5\" at s.yaml:4:8 (share); 1.5 is out of "
              "range: write a number from 0 to 1 without quotes (quotes make it text in YAML)",
              "expected a whole number from 1 to 64, found the quoted text \"2.5\" at s.yaml:5:8 (batch); 2.5 is not "
              "a whole number: write a whole number from 1 to 64 without quotes (quotes make it text in YAML)",
          });
    // A flag in quotes is text too, refused the same way; plain true and false stay flags.
    CHECK(messages_of("f: \"true\"\ng: 'false'\nh: true\n", [](MapReader& r) {
            CHECK_FALSE(r.boolean("f"));
            CHECK_FALSE(r.boolean("g"));
            CHECK(r.boolean("h") == true);
            r.finish();
          }) == Messages{
                    "expected true or false, found the quoted text \"true\" at s.yaml:1:4 (f); write true without "
                    "quotes (quotes make it text in YAML)",
                    "expected true or false, found the quoted text \"false\" at s.yaml:2:4 (g); write false without "
                    "quotes (quotes make it text in YAML)",
                });
    // A quoted text key stays text: compute_capability: "8.0" is read as a string.
    CHECK(messages_of("cc: \"8.0\"\n", [](MapReader& r) {
            CHECK(r.string("cc") == "8.0");
            r.finish();
          }).empty());
  }

  TEST_CASE("a count written with a suffix (10M), underscores (524_288_000) or hex gets the plain number to write") {
    const Messages got = messages_of(
        "tokens: 10M\nsamples: 1.5k\nsteps: 1.2345k\nbudget: 524_288_000\nbytes: 0x1F400000\nflags: 0b1010\n"
        "epochs: 1__0\n",
        [](MapReader& r) {
          CHECK_FALSE(r.number("tokens", 1, 1e18));
          CHECK_FALSE(r.integer("samples", 1, 1000000));
          CHECK_FALSE(r.integer("steps", 1, 1000000));
          CHECK_FALSE(r.number("budget", 1, 1e18));
          CHECK_FALSE(r.integer("bytes", 1, 1000000000));
          CHECK_FALSE(r.integer("flags", 1, 1000000));
          CHECK_FALSE(r.integer("epochs", 1, 1000000));
          r.finish();
        });
    // YAML 1.1's digit groups and 0x, 0o, 0b digits (other YAML readers' numbers): the value.
    const std::string decimal = " (numbers are written in decimal digits, without _ or a 0x, 0o or 0b prefix)";
    CHECK(got == Messages{
                     "expected a number from 1 to 1e+18, found '10M' at s.yaml:1:9 (tokens); write 10e6 (numbers "
                     "take no k, M, G, B or T suffix)",
                     "expected a whole number from 1 to 1000000, found '1.5k' at s.yaml:2:10 (samples); write 1500 "
                     "(numbers take no k, M, G, B or T suffix)",
                     "expected a whole number from 1 to 1000000, found '1.2345k' at s.yaml:3:8 (steps)",
                     "expected a number from 1 to 1e+18, found '524_288_000' at s.yaml:4:9 (budget); write "
                     "524288000" + decimal,
                     "expected a whole number from 1 to 1000000000, found '0x1F400000' at s.yaml:5:8 (bytes); write "
                     "524288000" + decimal,
                     "expected a whole number from 1 to 1000000, found '0b1010' at s.yaml:6:8 (flags); write 10" +
                         decimal,
                     "expected a whole number from 1 to 1000000, found '1__0' at s.yaml:7:9 (epochs)",
                 });
  }

  TEST_CASE("a refused number whose digits are out of range gets the range to write, not the digits") {
    // "write -16" or "write 1000000000" would be refused in turn: the fix names the range.
    const Messages got = messages_of("tokens: -0x10\nnodes: 1e9\ncount: 2M\n", [](MapReader& r) {
      CHECK_FALSE(r.number("tokens", 1, 1e18));
      CHECK_FALSE(r.integer("nodes", 1, 100000));
      CHECK_FALSE(r.integer("count", 1, 1000));
      r.finish();
    });
    CHECK(got == Messages{
                     "expected a number from 1 to 1e+18, found '-0x10' at s.yaml:1:9 (tokens); -0x10 is -16, out of "
                     "range: write a number from 1 to 1e+18 (numbers are written in decimal digits, without _ or a "
                     "0x, 0o or 0b prefix)",
                     "expected a whole number from 1 to 100000, found '1e9' at s.yaml:2:8 (nodes); 1e9 is "
                     "1000000000, out of range: write a whole number from 1 to 100000 (a whole number is written in "
                     "digits, without an exponent or a decimal point)",
                     "expected a whole number from 1 to 1000, found '2M' at s.yaml:3:8 (count); 2M is 2000000, out "
                     "of range: write a whole number from 1 to 1000 (numbers take no k, M, G, B or T suffix)",
                 });
    // In range, the digits themselves, as before.
    CHECK(messages_of("nodes: 1e3\n", [](MapReader& r) { CHECK_FALSE(r.integer("nodes", 1, 100000)); }) ==
          Messages{"expected a whole number from 1 to 100000, found '1e3' at s.yaml:1:8 (nodes); write 1000 (a whole "
                   "number is written in digits, without an exponent or a decimal point)"});
    // The range's ends are accepted as the fix writes them.
    CHECK(messages_of("tokens: 1e+18\nnodes: 100000\n", [](MapReader& r) {
            CHECK(r.number("tokens", 1, 1e18) == 1e18);
            CHECK(r.integer("nodes", 1, 100000) == 100000);
          }).empty());
  }

  TEST_CASE("digits with a leading zero are refused as ambiguous: octal in YAML 1.1, decimal in YAML 1.2") {
    const Messages got = messages_of("tokens: 0100\nnodes: 09\nlayers: -010\n", [](MapReader& r) {
      CHECK_FALSE(r.number("tokens", 1, 1e18));
      CHECK_FALSE(r.integer("nodes", 1, 100000));
      CHECK_FALSE(r.integer("layers", 1, 100));
      r.finish();
    });
    CHECK(got == Messages{
                     "expected a number from 1 to 1e+18, found '0100' at s.yaml:1:9 (tokens); write 100 (a leading "
                     "zero is ambiguous: YAML 1.1 reads 0100 as octal 64, YAML 1.2 as 100; write numbers without "
                     "leading zeros)",
                     "expected a whole number from 1 to 100000, found '09' at s.yaml:2:8 (nodes); write 9 (a leading "
                     "zero is ambiguous: YAML 1.1 reads 09 as text, YAML 1.2 as 9; write numbers without leading "
                     "zeros)",
                     "expected a whole number from 1 to 100, found '-010' at s.yaml:3:9 (layers); -010 is -10, out of "
                     "range: write a whole number from 1 to 100 (a leading zero is ambiguous: YAML 1.1 reads -010 as "
                     "octal -8, YAML 1.2 as -10; write numbers without leading zeros)",
                 });
    // A zero before a decimal point, and zero itself, are no leading zeros.
    CHECK(messages_of("share: 0.5\nwait: 0\n", [](MapReader& r) {
            CHECK(r.number("share", 0, 1) == 0.5);
            CHECK(r.integer("wait", 0, 10) == 0);
          }).empty());
  }

  TEST_CASE("a token length written with k gets 4096 for 4k, and the decimal reading after it") {
    const Messages got = messages_of("sequence_length: 4k\ncontext: 128K\nsamples: 4k\n", [](MapReader& r) {
      CHECK_FALSE(r.integer("sequence_length", 1, 100000000, Requirement::kOptional, CountSuffix::kBinary));
      CHECK_FALSE(r.integer("context", 1, 100000000, Requirement::kOptional, CountSuffix::kBinary));
      CHECK_FALSE(r.integer("samples", 1, 100000000));
      r.finish();
    });
    CHECK(got == Messages{
                     "expected a whole number from 1 to 100000000, found '4k' at s.yaml:1:18 (sequence_length); "
                     "write 4096 (in a token length k is 1024, as a 4k context is 4096 tokens; write 4000 if that "
                     "was meant; numbers take no k or M suffix)",
                     "expected a whole number from 1 to 100000000, found '128K' at s.yaml:2:10 (context); write "
                     "131072 (in a token length k is 1024, as a 4k context is 4096 tokens; write 128000 if that was "
                     "meant; numbers take no k or M suffix)",
                     "expected a whole number from 1 to 100000000, found '4k' at s.yaml:3:10 (samples); write 4000 "
                     "(numbers take no k, M, G, B or T suffix)",
                 });
  }

  TEST_CASE("a bare number out of a quantity's range is told the range and a valid example, not its own unit") {
    // "write it with a unit, e.g. \"0 s\"" would be refused in turn.
    const Messages got = messages_of("interval: 0\nwait: -1\nlatency: 2\n", [](MapReader& r) {
      CHECK_FALSE(r.quantity("interval", core::Dimension::kSeconds, Range::kPositive, Requirement::kOptional,
                             "\"30 min\", or auto"));
      CHECK_FALSE(r.quantity("wait", core::Dimension::kSeconds, Range::kNonNegative));
      CHECK_FALSE(r.quantity("latency", core::Dimension::kSeconds, Range::kNonNegative));
      r.finish();
    });
    CHECK(got == Messages{
                     "a bare number is not a duration: found '0' at s.yaml:1:11 (interval); write a duration more "
                     "than zero, with its unit, e.g. \"30 min\", or auto",
                     "a bare number is not a duration: found '-1' at s.yaml:2:7 (wait); write a duration of zero or "
                     "more, with its unit, e.g. \"4 ms\"",
                     // In range: the number with a unit, as before.
                     "a bare number is not a duration: found '2' at s.yaml:3:10 (latency); write it with a unit, e.g. "
                     "\"2 s\" or \"2 min\" (a duration takes ns, us, µs, ms, s, sec, min, h, hour, hours, d, day, "
                     "days, week, weeks, year or years)",
                 });
  }

  TEST_CASE("enumerations list the accepted values and suggest the closest") {
    CHECK(messages_of("precision: fp17\n",
                      [](MapReader& r) { r.choice("precision", {"fp32", "fp16_amp", "bf16_amp"}); }) ==
          Messages{"unknown value 'fp17', expected one of fp32, fp16_amp or bf16_amp at s.yaml:1:12 "
                   "(precision); did you mean fp32?"});
  }

  TEST_CASE("a document that is not a mapping") {
    CHECK(messages_of("", [](MapReader&) {}) ==
          Messages{"expected a mapping, found nothing at s.yaml:1:1; write the keys of the file indented below it"});
    CHECK(messages_of("- 1\n", [](MapReader&) {}) ==
          Messages{"expected a mapping, found a sequence at s.yaml:1:1; write the keys of the file indented "
                   "below it"});
  }

  TEST_CASE("an unreadable file names the file and the reason") {
    try {
      load_yaml_file("/nonexistent/x.yaml");
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()) == "cannot read file '/nonexistent/x.yaml': No such file or directory");
    }
  }
}

}  // namespace gpuplan::config

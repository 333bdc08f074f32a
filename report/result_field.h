#pragma once
/// \file result_field.h
/// One output field of a kind of result row (STYLE.md S4): its machine name (the CSV column
/// and the JSON key, with the SI unit in the name, STYLE.md U6), its SI unit, when it
/// applies, how its value is read from the row, and, when it is also a column of the
/// terminal and Markdown tables, its heading and human text. A list of these is the one
/// table that every writer of that row kind reads (report/field_grid.h): adding a column
/// is adding one entry.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpuplan::report {

/// Texts by key, sorted by key (a suggestion's overrides: scenario path -> value text).
using TextMap = std::map<std::string, std::string>;
/// Numbers by key, sorted by key (the critical path: resource -> share of the step).
using NumberMap = std::map<std::string, double>;

/// A machine value: a flag, a count, an SI quantity, a text, a list of texts, or a map (a
/// JSON object; one CSV cell `key=value;key=value`).
using FieldValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>, TextMap, NumberMap>;

/// When a field has a value at all.
enum class Applies {
  kAlways,  ///< every row (its getter may still return nothing, e.g. no instance, no dollars)
  kFits,    ///< only rows that fit in GPU memory: an OOM row has no throughput, no time, no dollars
};

/// One field of rows of type `Row`.
template <typename Row>
struct ResultField {
  std::string name;  ///< CSV column and JSON key, snake_case with the SI suffix (`step_time_s`)
  std::string unit;  ///< SI unit of the value: s, B, B/s, USD, J, samples/s, tokens/s; "1" for a
                     ///< fraction in [0, 1]; "" for a count, a flag or a text
  Applies applies = Applies::kAlways;
  std::string doc;  ///< what it is and how it is computed (docs and tests read it)
  /// The machine value; nullopt when this row has none (an empty CSV cell, a JSON null).
  std::function<std::optional<FieldValue>(const Row&)> value;
  /// Heading in the terminal and Markdown tables; empty: machine formats only.
  std::string heading = {};
  /// Human text of the cell; empty: human_value(unit, value) (report/human_units.h).
  std::function<std::string(const Row&)> human = nullptr;
  /// The table shows the column when at least one row satisfies this; empty: always.
  std::function<bool(const Row&)> shown_for = nullptr;
  /// The human cell of a row without a value.
  std::string absent_text = "-";
  /// The metric name an `expected:` block of a validation case measures this field by
  /// (scenario-format.md); empty: not validated.
  std::string measured_as = {};
  /// The human cell of a row that fits but has no value, when it says why (a spot run that
  /// does not finish); empty: absent_text.
  std::function<std::string(const Row&)> absent = nullptr;
};

}  // namespace gpuplan::report

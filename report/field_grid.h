#pragma once
/// \file field_grid.h
/// Rows evaluated against a table of ResultFields (report/result_field.h), and the writers
/// that every output uses: CSV, JSON, terminal and Markdown tables. The grid holds plain
/// values, so the writers are the same for every row kind (variants, plan points,
/// validation rows) and know nothing of where the rows came from.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/result_field.h"

namespace gpuplan::report {

/// A column of the grid: its field's name, unit and heading, and whether the human tables
/// show it.
struct GridColumn {
  std::string name;
  std::string unit;
  std::string heading;  ///< empty: machine formats only
  bool shown = false;   ///< has a heading and (shown_for) some row asks for it
};

/// One cell: the machine value (nullopt: does not apply) and the human text.
struct GridCell {
  std::optional<FieldValue> value;
  std::string human;
};

/// Rows x fields, evaluated once.
struct FieldGrid {
  std::vector<GridColumn> columns;
  std::vector<std::vector<GridCell>> rows;
};

/// The human text of `value` in `unit`: s as "312 ms"/"4.2 h", B as "14.9 GB", USD as
/// "$1,234", J as "16.8 kWh", "1" as "41 %", rates with thousands separators, counts and
/// texts as they are, flags as "yes"/"no", lists joined with "; ".
std::string human_value(const std::string& unit, const FieldValue& value);

/// `value` as one CSV cell (doubles as the shortest text that reads back as the same double,
/// so CSV keeps what JSON keeps; flags true/false, lists joined
/// with "; "), quoted when it holds a comma, a quote or a newline; nullopt: empty.
std::string csv_value(const std::optional<FieldValue>& value);

/// Evaluates `fields` on `rows`, in the order of both. `fits(row)` says whether a row fits
/// in GPU memory (fields that apply only then get no value on the others).
template <typename Row>
FieldGrid make_grid(const std::vector<ResultField<Row>>& fields, const std::vector<Row>& rows,
                    const std::function<bool(const Row&)>& fits = {}) {
  FieldGrid grid;
  for (const ResultField<Row>& f : fields) {
    bool shown = !f.heading.empty() && (!f.shown_for || rows.empty());
    if (!f.heading.empty() && f.shown_for) {
      for (const Row& r : rows) shown = shown || f.shown_for(r);
    }
    grid.columns.push_back({f.name, f.unit, f.heading, shown});
  }
  for (const Row& r : rows) {
    std::vector<GridCell> cells;
    const bool row_fits = !fits || fits(r);
    for (const ResultField<Row>& f : fields) {
      GridCell c;
      if (row_fits || f.applies == Applies::kAlways) c.value = f.value(r);
      if (!f.heading.empty()) {
        c.human = c.value    ? (f.human ? f.human(r) : human_value(f.unit, *c.value))
                  : row_fits && f.absent ? f.absent(r)
                                         : f.absent_text;
      }
      cells.push_back(std::move(c));
    }
    grid.rows.push_back(std::move(cells));
  }
  return grid;
}

/// CSV: a header of the column names, then one line per row.
std::string grid_csv(const FieldGrid& grid);

/// The shown columns as an aligned terminal table (markdown = false) or a Markdown table.
std::string grid_table(const FieldGrid& grid, bool markdown);

/// Keys written before the rows of a JSON document (in order).
using JsonHead = std::vector<std::pair<std::string, std::optional<FieldValue>>>;

/// A JSON document (2-space indent, newline at the end): the `head` keys (null where absent), then `rows_key`
/// holding one object per row with every column's name as key (null where the field does
/// not apply), so a JSON row has exactly the keys of the CSV header.
std::string grid_json(const JsonHead& head, const std::string& rows_key, const FieldGrid& grid);

}  // namespace gpuplan::report

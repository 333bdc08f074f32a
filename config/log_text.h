#pragma once
/// \file log_text.h
/// What every monitoring-log reader shares (config/*_log.cpp): the lines of a log with their
/// numbers, cells with their columns, "not available" cells, numbers with an optional unit,
/// clock and calendar times, and the error layout `<problem> at <file>:<line>:<column>
/// (<column name>)[; <fix>]` (STYLE.md C2).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::config {

/// One line of a log, without its line ending (LF, CRLF or CR), numbered from 1.
struct LogLine {
  int number = 0;
  std::string text;
};

/// A whole log in memory.
struct LogText {
  std::string path;
  std::vector<LogLine> lines;
};

/// One cell of a line: its text (trimmed) and its 1-based column in the line.
struct LogCell {
  std::string text;
  int column = 1;
};

/// Reads `path` whole (read_text_file: a regular file of at most 64 MiB). Throws ConfigError
/// "cannot read file '<path>': <reason>" when it cannot, and as log_text_of.
LogText read_log_text(const std::string& path);
/// A LogText from in-memory `content` (tests), named `path` in messages. Throws ConfigError
/// at the first byte that is not plain UTF-8 text (check_input_text: a byte-order mark of
/// UTF-16/32, a NUL byte, a CR-only line ending).
LogText log_text_of(const std::string& content, const std::string& path);

/// The position in `log.lines` of its last line that is not blank (0 for an empty log): the
/// one line a reader may find cut short (the logger was stopped mid-write).
std::size_t last_nonblank_line(const LogText& log);
/// Whether line `i` (a position in `log.lines`) that failed to read is one the logger was
/// stopped in the middle of: the last non-blank line (`last`) with fewer cells than its
/// header's `columns`. Any other bad line, the last included (a complete row with an
/// impossible reading, a row wider than its header), is an error.
bool cut_short(std::size_t i, std::size_t last, std::size_t cells, std::size_t columns);
/// Records in `notes` that `line` of `log`, its last, was cut short and skipped.
void note_cut_short(const LogText& log, const LogLine& line, std::vector<std::string>& notes);

/// The fix of an empty log: what to record (the nvidia_smi_query format, nvidia_smi_query_log.h).
inline constexpr const char* kEmptyLogFix =
    "; record the running job, e.g. nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,"
    "memory.total,power.draw,power.limit --format=csv -l 1 > gpu.csv";

/// The ConfigError for `problem` at `line`:`column` of `log`, `what` naming the column or
/// field, `fix` starting with "; " (or empty).
[[noreturn]] void throw_log_error(const LogText& log, int line, int column, const std::string& what,
                                  const std::string& problem, const std::string& fix = "");

std::string_view trim_view(std::string_view s);
/// Cells separated by runs of blanks (spaces, tabs).
std::vector<LogCell> split_blanks(const std::string& line);
/// Cells separated by `separator` (CSV), each trimmed.
std::vector<LogCell> split_on(const std::string& line, char separator);

/// True for the cells monitoring tools print for a value they do not have: "[N/A]", "N/A",
/// "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]", "-", "".
bool not_available(std::string_view cell);

/// The number at the start of `cell` and the unit text after it (trimmed); nullopt when the
/// cell does not start with a finite number.
struct NumberWithUnit {
  double value = 0.0;
  std::string unit;
};
std::optional<NumberWithUnit> split_number(std::string_view cell);

/// Largest reading cell_number accepts: 10^15. No monitoring tool prints one that large in
/// its units (W, %, MiB, MHz, MB/s; dcgmi's bytes/s peak near 10^12), so 2^63 or 1e30 is a
/// corrupt log.
inline constexpr double kMaxLogReading = 1e15;

/// `cell` as a number whose unit, when the cell carries one, must be `unit` ("%", "MiB",
/// "W", "MHz"; "" for none). NaN for a not_available cell. Throws the log error otherwise,
/// for a negative value (every monitored quantity is at least 0) and for one above
/// kMaxLogReading.
double cell_number(const LogText& log, int line, const LogCell& cell, const std::string& what,
                   const std::string& unit);

/// cell_number as a share in [0, 1]: the value over `full` (100 for "%", 1 for DCGM's ratios).
/// NaN for a not_available cell. Throws the log error for a value outside [0, full].
double cell_share(const LogText& log, int line, const LogCell& cell, const std::string& what, const std::string& unit,
                  double full);

/// "HH:MM:SS" or "HH:MM:SS.fff" as seconds since midnight; nullopt when it is not one.
std::optional<double> clock_seconds(std::string_view text);
/// Days from 1970-01-01 to the civil date (proleptic Gregorian); nullopt when the date is not
/// valid. (H. Hinnant's days_from_civil, via std::chrono::year_month_day.)
std::optional<double> days_since_epoch(int year, unsigned month, unsigned day);
/// "YYYY/MM/DD HH:MM:SS[.fff]" (nvidia-smi --query-gpu timestamp) or "YYYYMMDD HH:MM:SS"
/// (nvidia-smi dmon -o DT) as seconds since 1970-01-01; nullopt when it is neither.
std::optional<double> timestamp_seconds(std::string_view text);
/// The median of the positive steps between successive `times_s` (NaN entries skipped);
/// NaN when there are fewer than two times.
double median_interval_s(const std::vector<double>& times_s);

}  // namespace gpuplan::config

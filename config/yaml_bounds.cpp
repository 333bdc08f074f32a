#include "config/yaml_bounds.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "config/config_error.h"

namespace gpuplan::config {
namespace {

/// Thrown by the handler to stop the parser at the first bound crossed.
struct BoundCrossed {
  std::string problem;
  YAML::Mark mark;
  std::string fix;
};

/// Counts values and depth with aliases expanded, without building a tree.
class BoundsHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw BoundCrossed{"a second YAML document", mark,
                         "; gpuplan reads one document per file: remove the '---' line and what follows, "
                         "or move it to a file of its own"};
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_control_characters(value, mark);
    // yaml-cpp reads a merge key as a plain key named "<<" (tag "?"; a quoted "<<" has tag "!").
    if (value == "<<" && tag == "?" && in_mapping_key()) {
      throw BoundCrossed{"a YAML merge key '<<'", mark,
                         "; merge keys are not supported: write the keys of the anchored mapping out here"};
    }
    leaf(mark, anchor);
  }
  void OnAnchor(const YAML::Mark& /*mark*/, const std::string& name) override { names_.push_back(name); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const std::string alias = "alias '*" + name_of(anchor) + "'";
    for (const Frame& frame : open_) {
      if (frame.anchor == anchor) {
        throw BoundCrossed{alias + " refers to the anchor '&" + name_of(anchor) + "' that contains it", mark,
                           "; an anchor cannot contain itself: write the value out instead"};
      }
    }
    const Shape shape = anchor < shapes_.size() ? shapes_[anchor] : Shape{1, 0};
    check_depth(static_cast<int>(open_.size()) + shape.height, mark, " (" + alias + " expanded)");
    add(shape.values, mark, " (" + alias + " expanded)");
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, shape.height + 1);
      ++open_.back().items;
    }
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  /// Expanded size of an anchored value: its values and its height (0 for a scalar).
  struct Shape {
    std::size_t values = 1;
    int height = 0;
  };
  struct Frame {
    YAML::anchor_t anchor;
    std::size_t values_before;  ///< total_ when the collection opened
    int height = 0;             ///< of the collection's contents, in levels
    bool mapping = false;       ///< a mapping (its items alternate key, value)
    std::size_t items = 0;      ///< values directly in it so far
  };

  std::string name_of(YAML::anchor_t anchor) const {
    return anchor >= 1 && anchor <= names_.size() ? names_[anchor - 1] : std::to_string(anchor);
  }
  void check_depth(int depth, const YAML::Mark& mark, const std::string& what) const {
    if (depth > kMaxYamlDepth) {
      throw BoundCrossed{"nesting deeper than " + std::to_string(kMaxYamlDepth) + " levels" + what, mark,
                         "; gpuplan's files nest a few levels: check for unclosed brackets or "
                         "aliases of aliases"};
    }
  }
  void add(std::size_t values, const YAML::Mark& mark, const std::string& what) {
    total_ += values;
    if (values > kMaxYamlValues || total_ > kMaxYamlValues) {
      throw BoundCrossed{"more than " + grouped_thousands(kMaxYamlValues) + " values in one file" + what, mark,
                         "; split the file, or write fewer strategies, sweep values or aliases"};
    }
  }
  void record(YAML::anchor_t anchor, Shape shape) {
    if (anchor == YAML::NullAnchor) {
      return;
    }
    if (shapes_.size() <= anchor) {
      shapes_.resize(anchor + 1);
    }
    shapes_[anchor] = shape;
  }
  /// A control character (C0 but tab, line feed and carriage return; DEL; C1) in a value,
  /// written as a YAML escape such as "\u0000": it would reach tables and CSV files raw.
  static void check_control_characters(const std::string& value, const YAML::Mark& mark) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      const auto c = static_cast<unsigned char>(value[i]);
      unsigned code = c;
      if (c == 0xC2 && i + 1 < value.size()) code = static_cast<unsigned char>(value[i + 1]);  // U+0080..U+00BF
      const bool c0 = c < 0x20 && c != '\t' && c != '\n' && c != '\r';
      const bool c1 = c == 0xC2 && code >= 0x80 && code <= 0x9F;
      if (c0 || c == 0x7F || c1) {
        throw BoundCrossed{fmt::format("a control character (U+{:04X}) in a value", code), mark,
                           "; names and values reach tables and CSV files: remove it (a YAML escape such as "
                           "\"\\u0000\" writes one)"};
      }
    }
  }
  /// Whether the next scalar is a key of the innermost open mapping.
  bool in_mapping_key() const { return !open_.empty() && open_.back().mapping && open_.back().items % 2 == 0; }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(1, mark, "");
    record(anchor, Shape{1, 0});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, 1);
      ++open_.back().items;
    }
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool mapping) {
    check_depth(static_cast<int>(open_.size()) + 1, mark, "");
    add(1, mark, "");
    open_.push_back(Frame{anchor, total_ - 1, 0, mapping, 0});
  }
  void close() {
    const Frame frame = open_.back();
    open_.pop_back();
    record(frame.anchor, Shape{total_ - frame.values_before, frame.height});
    if (!open_.empty()) {
      open_.back().height = std::max(open_.back().height, frame.height + 1);
      ++open_.back().items;
    }
  }

  int documents_ = 0;
  std::size_t total_ = 0;
  std::vector<Frame> open_;
  std::vector<Shape> shapes_;  ///< by anchor id (yaml-cpp numbers anchors from 1)
  std::vector<std::string> names_;
};

SourceMark source_mark(const YAML::Mark& mark, const std::string& file) {
  return mark.line < 0 ? SourceMark{file, 0, 0} : SourceMark{file, mark.line + 1, mark.column + 1};
}

/// The fix of a YAML syntax error at `mark`: a tab in the indentation of a line up to the
/// error's (YAML indents with spaces only, YAML 1.2 section 6.1; yaml-cpp reports only what it
/// could not read after it), else a '{' or '[' still open at the error (yaml-cpp reports an
/// unclosed flow collection where it gives up, lines later), else the general advice.
std::string syntax_fix(const std::string& text, const YAML::Mark& mark, const std::string& file) {
  struct Open {
    char bracket;
    int line;
    int column;
  };
  std::vector<Open> open;
  int line = 0;
  int column = 0;
  bool indentation = true;  // still in the line's leading whitespace
  char previous = '\n';     // the line's last character other than a space
  char quote = 0;
  int quote_line = 0;
  int quote_column = 0;
  std::optional<Open> unclosed_quote;  // the last quote still open at its line's end
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line > mark.line || (line == mark.line && column >= mark.column)) break;
    if (c == '\n') {
      if (quote != 0) unclosed_quote = Open{quote, quote_line, quote_column};
      ++line;
      column = 0;
      indentation = true;
      previous = '\n';
      quote = 0;  // a quoted scalar across lines is rare in a scenario; restart cleanly
      continue;
    }
    if (indentation && c == '\t') {
      return fmt::format("; line {} is indented with a tab: YAML indents with spaces only, replace the tab with spaces",
                         line + 1);
    }
    if (c != ' ' && c != '\t') indentation = false;
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '#' && (previous == '\n' || (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')))) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment: skip to the line's end
    } else if ((c == '"' || c == '\'') && std::string_view(":,-[{\n").find(previous) != std::string_view::npos) {
      quote = c;
      quote_line = line;
      quote_column = column;
    } else if ((c == '{' || c == '[') && std::string_view(":,-[{\n").find(previous) != std::string_view::npos) {
      open.push_back({c, line, column});
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
    }
    if (c != ' ' && c != '\t') previous = c;
    ++column;
  }
  if (quote != 0) unclosed_quote = Open{quote, quote_line, quote_column};  // open where the error is
  // A quote left open inside the innermost open bracket swallowed its closing bracket.
  if (unclosed_quote && (open.empty() || std::make_pair(unclosed_quote->line, unclosed_quote->column) >
                                              std::make_pair(open.back().line, open.back().column))) {
    return fmt::format("; the {} at {}:{}:{} is not closed on its line: close it there",
                       unclosed_quote->bracket == '"' ? "double quote" : "single quote", file, unclosed_quote->line + 1,
                       unclosed_quote->column + 1);
  }
  if (!open.empty()) {
    const Open& unclosed = open.back();
    return fmt::format("; the '{}' at {}:{}:{} is not closed: add its '{}'", unclosed.bracket, file, unclosed.line + 1,
                       unclosed.column + 1, unclosed.bracket == '{' ? '}' : ']');
  }
  return "; check the indentation and quoting there";
}

/// A quote that opens a scalar (after ':', ',', '-', '[', '{' or a line's start) and is still
/// open where a later line starts with a top-level key (`workload:` at column 0): YAML reads
/// a quoted scalar on across lines, so a missing closing quote swallows the keys after it
/// and the file parses, with those sections missing. The quote's 0-based line and column,
/// and the swallowed key's line; nullopt where no quote runs away so.
struct RunawayQuote {
  char quote;
  int line;
  int column;
  int key_line;
  std::string key;
};
std::optional<RunawayQuote> runaway_quote(const std::string& text) {
  int line = 0;
  int column = 0;
  char previous = '\n';  // the line's last character other than a space
  char quote = 0;
  int quote_line = 0;
  int quote_column = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      column = 0;
      previous = '\n';
      if (quote != 0) {
        // A top-level key at the next line's start: identifier characters, then ':' and a
        // space or the line's end.
        std::size_t j = i + 1;
        while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
        if (j > i + 1 && j < text.size() && text[j] == ':' &&
            (j + 1 == text.size() || text[j + 1] == ' ' || text[j + 1] == '\n' || text[j + 1] == '\r')) {
          return RunawayQuote{quote, quote_line, quote_column, line, text.substr(i + 1, j - i - 1)};
        }
      }
      continue;
    }
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;  // an escape: the next character is not the closing quote
        ++column;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' is a quote inside a single-quoted scalar
          ++column;
        } else {
          quote = 0;
        }
      }
    } else if (c == '#' && (previous == '\n' || (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')))) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment: skip to the line's end
    } else if ((c == '"' || c == '\'') && std::string_view(":,-[{\n").find(previous) != std::string_view::npos) {
      quote = c;
      quote_line = line;
      quote_column = column;
    }
    if (c != ' ' && c != '\t') previous = c;
    ++column;
  }
  return std::nullopt;
}

}  // namespace

void check_yaml_bounds(const std::string& text, const std::string& file) {
  if (const std::optional<RunawayQuote> q = runaway_quote(text)) {
    throw ConfigError(format_diagnostic(
        fmt::format("unclosed {} (YAML reads the value on across lines, taking in the '{}:' of line {})",
                    q->quote == '"' ? "double quote" : "single quote", q->key, q->key_line + 1),
        SourceMark{file, q->line + 1, q->column + 1}, "",
        fmt::format("; close it on line {} (a {} inside the value is written {})", q->line + 1,
                    q->quote == '"' ? "double quote" : "single quote", q->quote == '"' ? "\\\"" : "''")));
  }
  std::istringstream in(text);
  BoundsHandler handler;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const BoundCrossed& crossed) {
    throw ConfigError(format_diagnostic(crossed.problem, source_mark(crossed.mark, file), "", crossed.fix));
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        format_diagnostic("YAML syntax error: " + e.msg, source_mark(e.mark, file), "", syntax_fix(text, e.mark, file)));
  }
}

}  // namespace gpuplan::config

#pragma once
/// \file html_page.h
/// One self-contained HTML page of charts (Chart.js embedded, nothing fetched: it opens
/// offline). After drawing, the page sets `data-charts-drawn` and `data-charts-failed` on
/// <body> and appends " [charts drawn]" (or " [charts failed]") to the title, so that a
/// headless browser can check that every chart drew (tests/cli/html_report_test.cpp).

#include <string>
#include <vector>

namespace gpuplan::report {

/// One chart: a title and a Chart.js configuration object as JSON ({type, data, options}).
struct HtmlChart {
  std::string title;
  std::string config_json;
};

/// `text` with &, <, >, " escaped.
std::string html_escape(const std::string& text);

/// A <table> of `header` and `rows` (cells escaped).
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// The page: `title` as heading, `summary` (plain text, one paragraph per line), the charts
/// in order, then `body_html` (already HTML). Deterministic.
std::string html_page(const std::string& title, const std::string& summary, const std::vector<HtmlChart>& charts,
                      const std::string& body_html);

}  // namespace gpuplan::report

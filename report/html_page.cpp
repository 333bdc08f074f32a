#include "report/html_page.h"

#include "report/chart_js_library.h"

namespace gpuplan::report {

namespace {

/// JSON inside <script>: "</" would end the script element early.
std::string script_safe(const std::string& json) {
  std::string out;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += json[i];
    }
  }
  return out;
}

const char* kStyle =
    "body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px;color:#222}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}p.summary{font-size:15px;margin:4px 0}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "td:first-child,th:first-child{text-align:left}.err{color:#b00}";

/// Draws every chart with animation off, then records how many drew.
const char* kDrawScript =
    "(function(){var drawn=0,failed=0;"
    "gpuplanCharts.forEach(function(cfg,i){try{cfg.options=cfg.options||{};cfg.options.animation=false;"
    "cfg.options.responsive=false;var c=new Chart(document.getElementById('chart'+i),cfg);"
    "if(c.chartArea&&c.chartArea.width>0&&c.chartArea.height>0){drawn++;}else{failed++;}}"
    "catch(e){failed++;document.getElementById('err'+i).textContent=String(e);}});"
    "document.body.setAttribute('data-charts-drawn',String(drawn));"
    "document.body.setAttribute('data-charts-failed',String(failed));"
    "document.title+=failed===0?' [charts drawn]':' [charts failed]';})();";

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><tr>";
  for (const auto& h : header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + html_escape(c) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string html_page(const std::string& title, const std::string& summary, const std::vector<HtmlChart>& charts,
                      const std::string& body_html) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
                    "</title>\n<style>" + kStyle + "</style>\n<script>" + std::string(chart_js_library()) +
                    "</script>\n</head><body>\n<h1>" + html_escape(title) + "</h1>\n";
  std::size_t start = 0;
  while (start < summary.size()) {
    const std::size_t end = summary.find('\n', start);
    const std::string line = summary.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) out += "<p class=\"summary\">" + html_escape(line) + "</p>\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  for (std::size_t i = 0; i < charts.size(); ++i) {
    out += "<h2>" + html_escape(charts[i].title) + "</h2>\n<canvas id=\"chart" + std::to_string(i) +
           "\" width=\"1000\" height=\"340\"></canvas><div class=\"err\" id=\"err" + std::to_string(i) + "\"></div>\n";
  }
  out += body_html;
  out += "<script>var gpuplanCharts=[";
  for (std::size_t i = 0; i < charts.size(); ++i) out += (i == 0 ? "" : ",\n") + script_safe(charts[i].config_json);
  out += "];\n" + std::string(kDrawScript) + "</script>\n</body></html>\n";
  return out;
}

}  // namespace gpuplan::report

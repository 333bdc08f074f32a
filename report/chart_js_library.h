#pragma once
/// \file chart_js_library.h
/// Chart.js (https://www.chartjs.org, MIT licence), the Debian package libjs-chart.js's
/// chart.min.js, embedded at build time (report/CMakeLists.txt) so that HTML reports open
/// offline.

#include <string_view>

namespace gpuplan::report {

/// The whole minified library.
std::string_view chart_js_library();

}  // namespace gpuplan::report

#pragma once
/// \file human_units.h
/// Human formatting at the edge (STYLE.md U6): durations as "312 ms", "4.2 h", "3.1 d";
/// sizes as "14.9 GB" (GB = 10^9 B); dollars as "$1,234"; shares as "41 %".

#include <string>

namespace gpuplan::report {

std::string human_duration(double seconds);
/// GB (10^9 B) with one decimal and thousands separators, whatever the size, so that a
/// column compares at a glance: "14.9 GB", "354,973.2 GB".
std::string human_bytes(double bytes);
/// GiB (2^30 B), as GPU memory is marketed and as nvidia-smi and PyTorch count it: whole
/// numbers without a decimal ("80 GiB", "141 GiB"), others with one ("22.4 GiB").
std::string human_gibibytes(double bytes);
/// US dollars: "$12.35" below $100, "$1,234" above, "< $0.01" for a positive amount that
/// would round to zero.
std::string human_usd(double usd);
std::string human_percent(double fraction);
std::string human_rate(double per_s);  ///< "2,650"-style with thousands separators
/// Energy in kWh (the billing unit, glossary "J, W, kWh") as the other human numbers print:
/// thousands separators, one decimal below 100 kWh ("12.3 kWh", "1,234 kWh"); below 0.1 kWh
/// in whole Wh ("42 Wh"), and "< 1 Wh" for a positive amount that would round to zero.
std::string human_energy(double joules);

}  // namespace gpuplan::report

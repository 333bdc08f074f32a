#pragma once
/// \file torch_profiler_log.h
/// Reader of a PyTorch profiler `prof.key_averages().table(...)` print (torch.autograd.
/// profiler_util `_build_table`): a dashed rule whose runs of '-' give the columns, a header
/// ("Name  Self CPU %  Self CPU  CPU total %  CPU total  CPU time avg  Self CUDA ..."), a
/// rule, one row per operator, a rule, then "Self CPU time total: 88.715s" (and CUDA).
/// Times carry their unit (s, ms, us, ns), shares a '%'. Columns read: Name, Self CPU %, Self
/// CPU, CPU total %, CPU total, Self CUDA, Self CUDA %, # of Calls; others are not used.
/// Cells are split at runs of two or more blanks (the rule's spans where that does not give
/// one cell per column). Lines before the first rule (a pasted comment) are skipped.

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// True when `log` holds a profiler table header.
bool looks_like_torch_profiler(const LogText& log);

/// Reads the table; a row cut short at the end of the file is skipped with a note. Throws
/// ConfigError at file:line:column for a header without a Name column or a cell that is not
/// a time, share or count.
models::ProfilerTable read_torch_profiler(const LogText& log, std::vector<std::string>& notes);

}  // namespace gpuplan::config

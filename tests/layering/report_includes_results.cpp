// MUST compile: report/ reads the plain results of models/ (the control of the layering
// test: the forbidden includes fail for the layering, not for a broken set-up).
#include "models/results.h"
#include "models/trace_span.h"
#include "report/report_format.h"

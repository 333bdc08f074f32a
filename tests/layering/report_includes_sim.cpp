// Must NOT compile: report/ may not include the engine (STYLE.md L1). Built only by the
// layering test (tests/layering/check_layering.cmake), with gpuplan_report's include roots.
#include "sim/engine.h"

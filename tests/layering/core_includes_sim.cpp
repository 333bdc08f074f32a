// Must NOT compile: core/ depends on nothing (STYLE.md L1).
#include "sim/engine.h"

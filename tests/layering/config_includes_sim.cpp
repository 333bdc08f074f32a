// Must NOT compile: config/ knows nothing of the engine (docs/architecture.md).
#include "sim/engine.h"

// Must NOT compile: the engine knows nothing of GPUs or models (STYLE.md E1).
#include "models/results.h"

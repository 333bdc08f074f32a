// Must NOT compile: models/ knows nothing of YAML or its loaders (STYLE.md L1).
#include "config/scenario.h"

// Must NOT compile: report/ and config/ are siblings; neither includes the other (STYLE.md L1).
#include "config/scenario.h"

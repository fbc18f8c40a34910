// Lab 12 (given code, not a TODO): who owns which block of A, B and C when a
// product is spread over P processes, and the panels SUMMA walks through.
// The code is cpu/process_grid.h (read it there): it sits below models/,
// since the alpha-beta-gamma model predicts with the same layout, and models/
// may not include labs/.
#pragma once

#include "cpu/process_grid.h"

#include "solutions/lab5/packing.h"

#include <algorithm>

namespace reference::lab5 {

void pack_a(const float* A, std::int64_t lda, std::int64_t mc, std::int64_t kc, int MR, float* out) {
    for (std::int64_t i0 = 0; i0 < mc; i0 += MR) {
        const std::int64_t rows = std::min<std::int64_t>(MR, mc - i0);
        for (std::int64_t p = 0; p < kc; ++p) {
            for (std::int64_t r = 0; r < rows; ++r) out[r] = A[(i0 + r) * lda + p];
            for (std::int64_t r = rows; r < MR; ++r) out[r] = 0.0f;
            out += MR;
        }
    }
}

void pack_b_panels(const float* B, std::int64_t ldb, std::int64_t kc, std::int64_t nc, int NR,
                   std::int64_t first_panel, std::int64_t end_panel, float* out) {
    out += first_panel * NR * kc;
    for (std::int64_t jp = first_panel; jp < end_panel; ++jp) {
        const std::int64_t j0 = jp * NR, cols = std::min<std::int64_t>(NR, nc - j0);
        for (std::int64_t p = 0; p < kc; ++p) {
            const float* row = B + p * ldb + j0;
            std::copy(row, row + cols, out);
            std::fill(out + cols, out + NR, 0.0f);
            out += NR;
        }
    }
}

}  // namespace reference::lab5

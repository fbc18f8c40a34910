// Given code (labs 3 and 4): the quadrants of one Strassen level as views,
// and the sums and differences of two views (strassen_views.h).
#include "labs/common/strassen_views.h"

namespace common::lab3 {

Quadrants split(ConstView A, ConstView B, mml::Shape h) {
    Quadrants q;
    q.A11 = {A.p, A.ld};
    q.A12 = {A.p + h.K, A.ld};
    q.A21 = {A.p + h.M * A.ld, A.ld};
    q.A22 = {A.p + h.M * A.ld + h.K, A.ld};
    q.B11 = {B.p, B.ld};
    q.B12 = {B.p + h.N, B.ld};
    q.B21 = {B.p + h.K * B.ld, B.ld};
    q.B22 = {B.p + h.K * B.ld + h.N, B.ld};
    q.half = h;
    return q;
}

CQuadrants split(View C, mml::Shape h) {
    return {{C.p, C.ld}, {C.p + h.N, C.ld}, {C.p + h.M * C.ld, C.ld}, {C.p + h.M * C.ld + h.N, C.ld}};
}

void add_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) out[i * cols + j] = P.p[i * P.ld + j] + Q.p[i * Q.ld + j];
}

void subtract_views(ConstView P, ConstView Q, float* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) out[i * cols + j] = P.p[i * P.ld + j] - Q.p[i * Q.ld + j];
}

}  // namespace common::lab3

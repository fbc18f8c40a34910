// Lab 12's GPU copy transport, the part that needs no GPU: where each rank
// starts walking K (first_fetch_step, labs/common/lab12_grid.h) - the fewest
// elements to fetch, then owners not shared - on 2 x 2, 1 x 2, 4 x 1 and one
// GPU. Suite lab12-given (given code, never graded).
#include <doctest/doctest.h>

#include <vector>

#include "labs/common/lab12_grid.h"

using mml::Shape;
namespace l12 = mml::lab12;

TEST_SUITE("lab12-given") {
    TEST_CASE("the copy transport's first step: fewest elements fetched, then owners not shared") {
        const Shape sq{8192, 8192, 8192};
        const l12::Grid g22{2, 2};
        const std::vector<l12::Panel> two = l12::summa_panels(sq, g22, 4096), four = l12::summa_panels(sq, g22, 2048);
        // 2 x 2: the diagonal ranks start on their own block (nothing to fetch); ranks 1 and 2 fetch one
        // panel each, rank 1 from rank 0 and rank 2 from rank 3 - never both from one owner.
        for (const auto& panels : {two, four}) {
            const std::size_t f0 = l12::first_fetch_step(sq, g22, panels, 0, false);
            const std::size_t f1 = l12::first_fetch_step(sq, g22, panels, 1, false);
            const std::size_t f2 = l12::first_fetch_step(sq, g22, panels, 2, false);
            const std::size_t f3 = l12::first_fetch_step(sq, g22, panels, 3, false);
            CHECK((panels[f0].a_owner == 0 && panels[f0].b_owner == 0));
            CHECK((panels[f3].a_owner == 1 && panels[f3].b_owner == 1));
            CHECK((panels[f1].a_owner == 0 && panels[f1].b_owner == 0));  // rank 1 (row 0, col 1): A from rank 0
            CHECK((panels[f2].a_owner == 1 && panels[f2].b_owner == 1));  // rank 2 (row 1, col 0): A from rank 3
            CHECK(l12::receives_a(g22, panels[f1], 1, false));
            CHECK_FALSE(l12::receives_b(g22, panels[f1], 0, false));
        }
        // 1 x 2 and 4 x 1: every rank starts on its own block; 1 x 1 with every panel moved: the first step.
        const std::vector<l12::Panel> row2 = l12::summa_panels(sq, {1, 2}, 2048), col4 = l12::summa_panels(sq, {4, 1}, 1024);
        for (int r = 0; r < 2; ++r) CHECK(row2[l12::first_fetch_step(sq, {1, 2}, row2, r, false)].a_owner == r);
        for (int r = 0; r < 4; ++r) CHECK(col4[l12::first_fetch_step(sq, {4, 1}, col4, r, false)].b_owner == r);
        CHECK(l12::first_fetch_step(sq, {1, 1}, two, 0, true) == 0);
    }
}

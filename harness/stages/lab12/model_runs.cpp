// mmlab abg-model's table of every measured SUMMA run beside the model's
// prediction from the inputs its own launch measured (model_inputs.h: the
// fields model_* of mmlab-nccl's RESULT lines). Checked and timing-only
// (--no-check) runs alike, marked; a run whose check failed is listed as such.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/report.h"
#include "harness/stages/lab12/model_report.h"
#include "harness/targets.h"

namespace mml::lab12 {

int print_run_models(const std::vector<Fields>& measured) {
    std::printf("\nEvery SUMMA run measured, beside the model from the inputs measured in its own launch\n"
                "(alpha, beta: the run's transport moving a step's A panel, and its B panel, alone, timed on a\n"
                "1-wide and the widest panel; gamma: the tile product timed on the panel shapes run, alone and\n"
                "beside a step's transfers; never SUMMA's times; each the slowest rank's):\n");
    std::printf("%-5s %-4s %-6s %-3s %-5s %2s %-5s %-18s %5s %6s | %10s %10s %7s | %8s %6s %6s | %8s %9s | %s\n", "algo",
                "prec", "tile", "ovl", "moves", "P", "grid", "shape", "steps", "panel", "measured", "model", "error",
                "alpha", "A GB/s", "B GB/s", "TF alone", "TF beside", "check");
    int shown = 0, outside = 0;
    double worst = 0;
    for (const Fields& f : measured) {
        const std::string algo = field(f, "algo");
        if ((algo != "summa" && algo != "rows") || field(f, "engine") != "nccl") continue;
        const double t = number(f, "seconds", -1), model = number(f, "model_seconds", -1);
        const std::string check = field(f, "check");
        std::string mark = check == "ok" ? "checked" : check == "skipped" ? "timing only" : check;
        const double ba = number(f, "model_beta_a", 0), bb = number(f, "model_beta_b", 0), gs = number(f, "model_gamma_step", 0),
                     gb = number(f, "model_gamma_beside", 0);
        const bool has_model = model > 0 && t > 0 && check != "WRONG";
        const double err = has_model ? (model - t) / t : 0;
        if (has_model) {
            ++shown;
            worst = std::max(worst, std::fabs(err));
            if (std::fabs(err) > 0.10) ++outside;
        }
        const double alpha = std::max(number(f, "model_alpha_a", 0), number(f, "model_alpha_b", 0));
        std::printf("%-5s %-4s %-6s %-3s %-5s %2.0f %-5s %-18s %5.0f %6.0f | %10s %10s %7s | %8s %6s %6s | %8s %9s | %s\n",
                    algo.c_str(), field(f, "precision").c_str(), field(f, "tile").c_str(), field(f, "overlap").c_str(),
                    field(f, "transport").empty() ? "nccl" : field(f, "transport").c_str(), number(f, "P"),
                    field(f, "grid").c_str(), row_shape(f).c_str(), number(f, "steps", 1), number(f, "panel", 0),
                    t > 0 ? format_seconds(t).c_str() : "-", has_model ? format_seconds(model).c_str() : "-",
                    has_model ? (fixed(100 * err, 1) + "%").c_str() : "-",
                    has_model ? format_seconds(alpha).c_str() : "-", has_model && ba > 0 ? fixed(1e-9 / ba, 0).c_str() : "-",
                    has_model && bb > 0 ? fixed(1e-9 / bb, 0).c_str() : "-",
                    has_model && gs > 0 ? fixed(1e-12 / gs, 1).c_str() : "-",
                    has_model && gb > 0 ? fixed(1e-12 / gb, 1).c_str() : "-", mark.c_str());
    }
    if (shown == 0) {
        std::printf("(none with the model's inputs: runs of mmlab-nccl from before they were measured)\n");
        return 0;
    }
    std::printf("%d run(s) with the model's inputs; worst error %.1f %%; %d outside +-10 %%.\n", shown, 100 * worst,
                outside);
    return outside == 0 ? 0 : 1;
}

}  // namespace mml::lab12

// A measurement of the machine (its FMA peak, its read bandwidth) that is
// taken once per thread count and then remembered for the rest of the run:
// measuring takes a tenth of a second or more, the answer does not change,
// and the % of peak of every row of a table needs it.
#pragma once

#include <functional>
#include <map>
#include <mutex>

namespace mml {

class MeasuredOnce {
public:
    explicit MeasuredOnce(std::function<double(int threads)> measure) : measure_(std::move(measure)) {}

    // The measurement at `threads`: taken now the first time it is asked for.
    // The lock is held while measuring, so that two threads asking at once
    // do not measure at the same time (each would slow the other down).
    double operator()(int threads) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = cache_.find(threads);
        if (it != cache_.end()) return it->second;
        const double value = measure_(threads);
        cache_[threads] = value;
        return value;
    }

    // Measures again and keeps the higher of the two: for when a result
    // shows that the first measurement was taken while other programs
    // held the cores (a stage running "above the peak").
    double remeasure(int threads) {
        std::lock_guard<std::mutex> lock(mu_);
        const double value = measure_(threads);
        auto it = cache_.find(threads);
        if (it == cache_.end() || it->second < value) cache_[threads] = value;
        return cache_[threads];
    }

private:
    std::function<double(int)> measure_;
    std::mutex mu_;
    std::map<int, double> cache_;
};

}  // namespace mml

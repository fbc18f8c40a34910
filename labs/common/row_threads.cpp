#include "solutions/lab5/row_threads.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace reference::lab5 {

void for_row_blocks(std::int64_t rows, int threads,
                    const std::function<void(std::int64_t, std::int64_t)>& body) {
    const std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, rows));
    if (t == 1) {
        body(0, rows);
        return;
    }
    std::vector<std::thread> pool;
    for (std::int64_t i = 1; i < t; ++i)
        pool.emplace_back(body, rows * i / t, rows * (i + 1) / t);
    body(0, rows / t);  // the calling thread takes the first block
    for (auto& th : pool) th.join();
}

}  // namespace reference::lab5

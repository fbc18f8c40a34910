// What a GPU test says when the GPU has no room for its matrices: whose
// fault it is. A shape too big for the GPU is the caller's to change; a GPU
// whose memory other programs hold (another process, another student's test
// on a shared GPU) is not, and the message must not send a student looking
// for a bug in their shape. Host code only (used by the CUDA back ends,
// tested without a GPU in tests/test_cli.cpp).
#pragma once

#include <cstdio>
#include <string>

namespace mml::gpu {

// Bytes in the unit a person reads at a glance: "12.0 MiB", "79.1 GiB".
inline std::string bytes_text(double bytes) {
    char buf[32];
    if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / 1024.0);
    return buf;
}

// The message when `need` bytes (A, B and C) do not fit in the `free` bytes
// of a GPU of `total` bytes. Where the matrices would fit in the GPU's
// memory as a whole but other programs hold it, that is said, not "choose a
// smaller shape".
inline std::string no_room_text(double need, double free, double total) {
    const std::string head = "this test needs " + bytes_text(need) + " of GPU memory for A, B and C, and the GPU has " +
                             bytes_text(free) + " free of its " + bytes_text(total);
    if (need <= 0.5 * total)
        return head + ": other programs hold the rest (it is not your shape; run again when the GPU is free - "
                      "nvidia-smi lists them)";
    return head + ": choose a smaller shape";
}

}  // namespace mml::gpu

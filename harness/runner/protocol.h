// The channel between the grader's two programs (the instructors' handouts/grading.md,
// "How the verdict is made"):
//
//   the CHECKER (trusted; harness/runner/checker.cpp): the test program or mmlab
//     built WITHOUT the student's code. It makes the inputs, computes the float64
//     reference, decides pass or fail and writes the report.
//   the RUNNER (untrusted; harness/runner/runner_main.cpp): the student's code,
//     the stage registrations and a small loop that serves the checker's requests.
//     It runs in the grader's sandbox. What it prints (stdout, stderr: a pipe
//     the checker reads, never the channel) decides nothing: the checker keeps
//     the start of it for the student's feedback.
//
// The checker starts the runner with one end of an AF_UNIX SOCK_SEQPACKET
// socket pair as the runner's file descriptor 3. Each packet is one message:
// a line of ASCII words (no newline), at most kMaxMessage bytes, optionally
// carrying one file descriptor (SCM_RIGHTS).
//
//   runner -> checker   "ready mmlab-runner 1"          once, first (kHello)
//   checker -> runner   "prepare M N K" + a memfd       the shared memory of one shape (layout_of)
//                       "load"                          A and B there are new: a GPU runner uploads them
//                       "run STAGE VERSION INPUTS threads=T [name=value...]"
//                                                       VERSION: student | reference
//                                                       INPUTS:  new    (A and B in the memory are new)
//                                                                scaled=SEED (compute A * diag(d) * B: see below)
//                       "call NAME WORD..."             a call of harness/student_side.h, run in the
//                                                       runner (lab 12: mpirun of the student's program)
//                       "fetch I"                       piece I of the last call's answer into C
//                       "quit"
//   runner -> checker   "done"                          after load, run or fetch: C is in the shared memory
//                       "done STATUS N SIZE1..SIZEN"    after call: its status and the sizes in bytes of
//                                                       its N pieces (its text, then its blobs)
//                       "error KIND text"               KIND: usage | invalid | runtime
//
// The shared memory is a memfd the checker creates, fills and seals against
// shrinking and growing (so the runner cannot make the checker's own mapping
// fault); the runner maps A and B read-only, C writable. The checker never
// reads A or B back from it: it verifies against its own private copies.
//
// "scaled=SEED" is for timing: d is K factors made from SEED (a decimal
// 64-bit number; scale_factors.h), which the checker draws fresh and sends
// only after its clock has started, so the product A*diag(d)*B cannot be
// computed, or looked up from an earlier run, before the clock starts. The
// runner forms B' = diag(d)*B in float32 (b'_kj = fl(d_k * b_kj), the same
// rounding as the checker's) and runs the stage on A and B'.
//
// Every descriptor the runner is given is close-on-exec in it: a program it
// starts (lab 12's mpirun) inherits neither the channel nor the memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cpu/matrix.h"

namespace mml::runner {

// The runner's end of the socket pair.
constexpr int kChannelFd = 3;
constexpr const char* kHello = "ready mmlab-runner 1";
constexpr std::size_t kMaxMessage = 4096;

// Byte offsets of A (M x K), B (K x N) and C (M x N) in the shared memory,
// each region starting on a 64 KiB boundary (a multiple of every page size,
// so that each can be mapped with its own protection).
struct Layout {
    std::size_t a = 0, b = 0, c = 0, total = 0;
};
// Throws std::length_error when the shape does not fit in memory at all.
Layout layout_of(Shape s);

// Sends one message, with `fd` attached when fd >= 0. Throws std::system_error.
void send_message(int sock, const std::string& text, int fd = -1);

// Receives one message. Returns false at the end of the stream (the peer is
// gone). A received descriptor goes to *fd (-1 when there is none; when fd is
// null, any descriptor received is closed and the message refused).
// Throws std::runtime_error for a message longer than kMaxMessage, with more
// than one descriptor, or holding a byte outside printable ASCII; and
// std::system_error when the socket fails.
bool receive_message(int sock, std::string& text, int* fd);

// The words of a message (split at single spaces; empty words refused by the callers).
std::vector<std::string> split_words(const std::string& text);

// A message as the other side may quote it in an error: printable, at most `limit` bytes.
std::string printable(const std::string& text, std::size_t limit = 200);

}  // namespace mml::runner

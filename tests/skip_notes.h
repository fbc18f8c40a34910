// Why some tests are skipped (no GPU, no MPI program in this build...): a note
// that tests/main.cpp prints first, only where the run selects a suite it is
// about - `make lab4` runs lab 4's suite, and a line about the GPU labs or lab
// 12's MPI there would read as advice for lab 4.
#pragma once

#include <string>

namespace mml::testing {

// suites: a doctest wildcard ("gpu-*", "lab12*") naming the suites the note is about.
void skip_note(const std::string& suites, const std::string& text);

}  // namespace mml::testing

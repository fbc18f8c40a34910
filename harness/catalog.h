// The lab catalog (labs/catalog.txt), compiled into the harness: which labs
// exist, each one's kind (CPU or GPU), test suites, demo stages and title.
// The Makefile, the grader and the student release read the same file, so a
// lab's number and kind are written down once. The text is embedded at build
// time (the Makefile turns it into build/gen/catalog.inc), so mmlab needs no
// file at run time.
#pragma once

#include <string>
#include <vector>

#include "harness/stage.h"

namespace mml {

struct CatalogEntry {
    int number = 0;
    Device kind = Device::Cpu;          // gpu: needs the CUDA toolkit to build and a GPU to run
    std::vector<std::string> suites;    // doctest suites of make labN
    std::vector<std::string> demo;      // stages `make demo` shows
    std::string title;
};

// Every lab, by number. Parsed once; a malformed catalog stops the program
// with the line that is wrong (a build-time mistake, not a user's).
const std::vector<CatalogEntry>& catalog();
// nullptr when there is no such lab.
const CatalogEntry* catalog_entry(int number);
// The highest lab number (for the range of --lab).
int last_lab_number();
// "6, 7, 8, 9": the numbers of the labs of one kind.
std::string lab_numbers(Device kind);
// True when `stage` is one of the demo stages of its lab.
bool in_demo(const Stage& stage);

}  // namespace mml

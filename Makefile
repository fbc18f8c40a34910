# matmul-lab. Every target (`make help` prints this list):
#   make / make all        build build/bin/mmlab (the harness) and build/bin/mmlab-tests (the tests), on every core
#   make labN              your lab N (labs/catalog.txt lists them): its tests on your code, then the timing table and target
#   make labN SOLUTION=1   the same with the reference in your place
#   make test              the tests of the labs, the harness and the tools every user runs (reference
#                          code; GPU tests where a GPU is), ends with "N passed, N failed, N skipped"
#   make test-all          make test plus the instructors' tooling: grading end to end, the hostile set,
#                          Slurm, Gradescope, Classroom, the release, the golden outputs, set-up
#                          simulations (what CI runs)
#   make demo [PLOT=dir]   the whole progression (reference solutions); PLOT=dir also writes its JSON and charts;
#                          it fits 100 columns (a slide) unless the terminal is wider; WIDE=1: every column
#   make demo LAB=N        one lab's demo: every stage of lab N (reference) beside the baseline, same knobs and slide
#   make plots [PLOT=dir]  the demo at three sizes and lab 10's roofline as SVG charts (default dir: plots)
#   make list              every stage and lab, one line each (mmlab list)
#   make peak              measure this CPU's FMA peak (mmlab peak)
#   make grade SUBMISSIONS=dir LAB=N [OUT=dir] [SLURM=1] [GRADE_FLAGS="-j 2 ..."]   grade a folder of submissions
#                          (handouts/grading.md; python3 tools/grade.py --help lists the flags)
#   make student-release OUT=dir [LAB=N]   a tree to publish to students: no solutions/ source (the
#                          references prebuilt), no grader; LAB=N adds lab N's autograding workflow (GitHub Actions)
#   make checker runner LAB=N   the grader's programs of lab N (handouts/grading.md, "How the verdict is made")
#   make gradescope LAB=N [OUT=dir]   autograder_labN.zip for Gradescope (PERF=1: also the speed target)
#   make check LAB=N [TEST=name]   lab N's tests only: one line per test case, exit 0 when all pass (the autograding workflow)
#   make objects           compile every source file, link nothing (tools/check-package-versions.sh)
#   make compare BEFORE=a.json AFTER=b.json [PLOT=dir]   before/after of two --json runs, with significance
#   make sanitize          every CPU test suite under AddressSanitizer+UBSan, lab4/lab5 under ThreadSanitizer (no GPU)
#   make sanitize LAB=N    the same for lab N's tests on YOUR code, building only what they need (SOLUTION=1: the reference)
#   make gpu-check         GPU machine: build, every test, GPU tests under compute-sanitizer, starters, benchmarks
#   make clean             remove build/ (every build, sanitizer builds and the configuration)
#   make help              this list
# Knobs: OPT="-O0" / ARCH="-march=native" (flags for labs/ and solutions/),
#        THREADS=2 (default: all cores), SIZE=1024 (or MxNxK list), CUDA_ARCH=86 (GPU target),
#        CUDA=0 (no GPU labs even where nvcc is; it stays so until make clean),
#        V=1 (show the full compiler commands).
# Everything is built in build/ ('make clean' removes it).

BUILD ?= build
BIN := $(BUILD)/bin
.DEFAULT_GOAL := all

# build/config.mk says where the dependencies are and whether CUDA is here.
# CUDA=0 builds without the GPU labs even where nvcc exists: given to a build
# configured with CUDA, it configures again (without; 'make clean' undoes it).
# help, clean and grade need no configuration (grade builds in folders of its own).
# A configure.sh newer than the configuration (a course's update) configures
# again as before: a build made with CUDA=0 stays so (CUDA_CHOSEN_OFF).
$(BUILD)/config.mk: tools/configure.sh
	@CUDA=$(or $(CUDA),$(if $(filter 1,$(CUDA_CHOSEN_OFF)),0)) bash tools/configure.sh $(BUILD)
ifeq ($(CUDA),0)
  ifneq ($(shell grep -s '^HAVE_CUDA := 1' $(BUILD)/config.mk),)
    $(shell rm -f $(BUILD)/config.mk)
  endif
endif
ifneq ($(filter-out help clean grade student-release gradescope compare,$(or $(MAKECMDGOALS),all)),)
  # Not configured yet: configure now, while make reads this file, so that a
  # failure stops make with one line of its own (the rule above would let make
  # go on to a confusing "No rule to make target"). configure's messages reach
  # the terminal as it runs: $(shell) captures stdout only, and they go to stderr.
  ifeq ($(wildcard $(BUILD)/config.mk),)
    CONFIGURE_STATUS := $(shell CUDA=$(CUDA) bash tools/configure.sh $(BUILD) >&2; echo $$?)
    ifneq ($(CONFIGURE_STATUS),0)
      $(error configure stopped (exit $(CONFIGURE_STATUS)): do what its message above says, then run make again)
    endif
  endif
  include $(BUILD)/config.mk
  CONFIGURED := 1
endif

CXX ?= g++
OPT ?= -O3
ARCH ?=
CUDA_ARCH ?= $(DETECTED_CUDA_ARCH)
CUDA_ARCHS ?= $(CUDA_ARCH)
# The cores this process may run on (its affinity mask), not OMP_NUM_THREADS:
# GNU nproc honours that variable, and an image's OMP_NUM_THREADS=1 would make
# every threaded stage of make labN/demo run on one thread without a word.
CORES := $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1)
THREADS ?= $(CORES)
SIZE ?=
SOLUTION ?=

# Flags for the code under study (labs/, solutions/) and for everything else.
STAGE_FLAGS := $(OPT) $(ARCH)
BASE_CXXFLAGS := -std=c++17 -Wall -Wextra -fopenmp -pthread -I. $(BLAS_CFLAGS) -MMD -MP
CXXFLAGS := -O2 $(BASE_CXXFLAGS)
LDLIBS := -lbenchmark $(BLAS_LIBS) -fopenmp -pthread -ldl

# The rest, one job a file, in this order (each reads what the ones before it
# set: the source lists, then the objects' rules, then the goals that use them):
#   make/sources.mk    what is built from what: labs, sources, references, given code, ONLY_LAB
#   make/compile.mk    the flag stamps, the compile rules, compile_commands.json's entries
#   make/programs.mk   make all's programs, the reference and given libraries, make objects
#   make/grading.mk    make grade, and the grader's programs of lab N (checker, runner ...)
#   make/publish.mk    make student-release, make gradescope, make check (Classroom)
#   make/labs.mk       make labN, demo, plots, compare, list, peak
#   make/tests.mk      make test / test-all, make sanitize, make gpu-check
include make/sources.mk make/compile.mk make/programs.mk make/grading.mk make/publish.mk make/labs.mk make/tests.mk

# make all: the programs (make/programs.mk), on every core. At the top level
# without a -j of the user's, a sub-make builds them with one job per core
# (`make demo` on a fresh clone: the first build's time in docs/setup.md); its job server lives in
# that sub-make alone, so the tests and tools that make test, labN and demo run
# afterwards see no MAKEFLAGS of ours (a make they start would warn "jobserver
# unavailable" and build on one core). With the user's -jN, or below the top
# level (make sanitize's builds, the grader's), make builds them itself.
# `harness` is the same for mmlab alone: what make demo, plots, list and peak
# run (the demo, a first run, need not wait for the test programs).
ifeq ($(MAKELEVEL),0)
all harness:
	+@$(MAKE) --no-print-directory $(if $(V),,-s) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CORES)) $(if $(filter all,$@),programs,$(BIN)/mmlab)
else
all: programs
harness: $(BIN)/mmlab
endif

.PHONY: all harness programs help clean
# The comment block at the top of this file, up to its first line that is not a comment.
# In a student release (no solutions/) the instructors' targets, whose tools it
# leaves out, are left out of the list too (an entry and its indented lines).
INSTRUCTOR_TARGETS := grade|student-release|checker|gradescope|test-all
help:
	@awk -v release=$(if $(wildcard solutions/.),0,1) '!/^#/ { exit } \
	  release && /^#   make ($(INSTRUCTOR_TARGETS))[ \t]/ { skip = 1; next } \
	  skip && /^#      / { next } { skip = 0; print } \
	  END { if (release) print "# (A student release: the instructors\047 targets - grading, publishing, make test-all - are not in it.)" }' Makefile

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

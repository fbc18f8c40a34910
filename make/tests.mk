# The test tiers (make test, make test-all), make sanitize, and make
# gpu-check (the GPU machine's script).

# The tests in two tiers, against the reference solutions (and GPU tests
# where a GPU is). make test: what every user runs - the labs, the harness,
# the tools (plots, compare). make test-all: that and the instructors' tooling,
# INSTRUCTOR_SUITES (tools/grade.py end to end with its hostile set and Slurm,
# Gradescope, Classroom, the student release, the golden outputs, set-up on
# simulated machines); their long cases run only where MML_GRADING_TESTS is set.
INSTRUCTOR_SUITES := grading,grading-units,packaging,golden,setup
.PHONY: test test-all only-lab
# ONLY_LAB=N only-lab: lab N's programs alone (ONLY_LAB: make/sources.mk; make sanitize LAB=N)
only-lab: $(BIN)/mmlab $(BIN)/mmlab-tests
test: all
	@MMLAB=$(BIN)/mmlab bash tools/run-tests.sh $(BIN)/mmlab-tests --test-suite-exclude=$(INSTRUCTOR_SUITES)
test-all: all
	@MMLAB=$(BIN)/mmlab MML_GRADING_TESTS=1 bash tools/run-tests.sh $(BIN)/mmlab-tests

# make sanitize: every CPU test suite (reference code) under AddressSanitizer +
# UndefinedBehaviorSanitizer, then the threaded labs' suites (lab4, lab5)
# under ThreadSanitizer (make sanitize LAB=N: lab N's suite alone, on the
# student's code, as make labN tests it), each built in its own folder ($(BUILD)/asan,
# $(BUILD)/tsan) for the CPU only (CUDA=0 HAVE_CUDA=0: nvcc is not involved). Any
# report fails the run. SANITIZE carries a sanitizer build's flags into the
# harness, the stages and the link (it is meant for those folders only).
# TSan builds with the OpenMP pragmas off (NO_OPENMP=1; libgomp stays linked
# for omp_* calls), so OpenMP regions run on one thread there: GCC's libgomp
# synchronises through futexes that TSan cannot see, and every parallel
# region would report races that are not there. pthread/std::thread code is
# checked in full.
SAN_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g
SAN_TSAN_FLAGS := -fsanitize=thread -O1 -g
SAN_TSAN_SUITES := lab4,lab5
SAN_COMMA := ,
ifneq ($(SANITIZE),)
  ifeq ($(NO_OPENMP),1)
    # (-Wno-unused-parameter: a `threads` read only by a num_threads clause is unused here)
    BASE_CXXFLAGS := $(filter-out -fopenmp,$(BASE_CXXFLAGS)) -Wno-unknown-pragmas -Wno-unused-parameter
    CXXFLAGS := $(filter-out -fopenmp,$(CXXFLAGS)) -Wno-unknown-pragmas -Wno-unused-parameter
    LDLIBS := $(filter-out -fopenmp,$(LDLIBS)) -lgomp
  endif
  CXXFLAGS += $(SANITIZE)
  LDLIBS += $(SANITIZE)
  $(STAGE_OBJS): CXXFLAGS := $(STAGE_FLAGS) $(BASE_CXXFLAGS) $(SANITIZE)
endif
.PHONY: sanitize
# make sanitize LAB=N: only lab N's test suite, on the student's code (the
# reference with SOLUTION=1), under ASan+UBSan and, for a threaded lab, TSan.
SAN_IMPL := $(if $(LAB),$(IMPL),reference)
SAN_WHAT := $(if $(LAB),lab $(LAB)'s tests on the $(SAN_IMPL) code,every CPU test suite on the reference code)
SAN_ASAN_SUITE := $(if $(LAB),--test-suite=$(call lab_suites,$(LAB)))
SAN_TSAN_RUN := $(if $(LAB),$(filter lab$(LAB),$(subst $(SAN_COMMA), ,$(SAN_TSAN_SUITES))),$(SAN_TSAN_SUITES))
# LAB=N: each sanitizer build makes only what lab N's tests need (ONLY_LAB: make/sources.mk).
SAN_BUILD_WHAT := $(if $(LAB),ONLY_LAB=$(LAB) only-lab,all)
SAN_BIN = $(BUILD)/$(1)/bin$(if $(LAB),/lab$(LAB))
sanitize:
	@echo "== make sanitize: AddressSanitizer + UndefinedBehaviorSanitizer, $(SAN_WHAT) =="
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan CUDA=0 HAVE_CUDA=0 SANITIZE="$(SAN_ASAN_FLAGS)" $(SAN_BUILD_WHAT)
	@MML_IMPL=$(SAN_IMPL) MMLAB=$(call SAN_BIN,asan)/mmlab ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 bash tools/run-tests.sh $(call SAN_BIN,asan)/mmlab-tests $(SAN_ASAN_SUITE)
ifneq ($(SAN_TSAN_RUN),)
	@echo "== make sanitize: ThreadSanitizer, $(if $(LAB),lab $(LAB) on the $(SAN_IMPL) code,the threaded labs ($(SAN_TSAN_SUITES))) (OpenMP regions run on one thread here) =="
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan CUDA=0 HAVE_CUDA=0 NO_OPENMP=1 SANITIZE="$(SAN_TSAN_FLAGS)" $(SAN_BUILD_WHAT)
	@MML_IMPL=$(SAN_IMPL) MMLAB=$(call SAN_BIN,tsan)/mmlab TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tools/tsan-suppressions.txt \
	  bash tools/run-tests.sh $(call SAN_BIN,tsan)/mmlab-tests --test-suite=$(SAN_TSAN_RUN)
	@$(call SAN_BIN,tsan)/mmlab-tests --list-test-suites | grep -qE '^ *($(subst $(SAN_COMMA),|,$(SAN_TSAN_RUN))) *$$' || \
	  echo "(no $(SAN_TSAN_RUN) test suite in this build yet: nothing threaded for ThreadSanitizer to check)"
endif
	@echo "make sanitize: clean ($(SAN_WHAT))"

# Build, GPU tests (also under compute-sanitizer) and GPU benchmarks in one go,
# for the GPU machine.
.PHONY: gpu-check
gpu-check:
	@bash tools/gpu-check.sh


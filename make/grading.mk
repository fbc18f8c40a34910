# The instructors' grading: make grade (tools/grade.py on a folder of
# submissions), and the grader's own programs of lab N that it builds in each
# student's tree (make checker / runner / reference-runner / student-tests).

# make grade SUBMISSIONS=dir LAB=N [OUT=dir] [SLURM=1] [GRADE_FLAGS="-j 2 --perf ..."]:
# every student's lab N (one sub-folder each) built and tested on its own,
# contained; grades.csv, results.json (Gradescope) and feedback per student.
# SLURM=1: as a Slurm job array (--slurm), restartable.
# tools/grade.py --help lists the flags; handouts/grading.md is the manual.
.PHONY: grade
grade:
	$(if $(and $(SUBMISSIONS),$(LAB)),,$(error make grade needs the submissions and the lab: make grade SUBMISSIONS=<folder, one sub-folder per student> LAB=<N> [OUT=<folder>]))
	@command -v python3 > /dev/null || { echo "make grade: python3 is needed: sudo apt-get install python3" >&2; exit 2; }
	@python3 tools/grade.py "$(SUBMISSIONS)" --lab "$(LAB)" $(if $(OUT),--out "$(OUT)") $(if $(filter 1,$(SLURM)),--slurm) $(GRADE_FLAGS)

# The grader's programs for lab N (handouts/grading.md, "How the verdict is
# made"; harness/runner/protocol.h): the verdict comes from a program that
# never holds the student's code, and no grading program holds the references.
#   make checker LAB=N    $(BIN)/labN/mmlab-checker-tests and mmlab-checker: the TRUSTED
#                         tests and harness WITHOUT the student's code (the symbols
#                         the registrations name are stubs, $(BUILD)/gen/labN/student_stubs.cpp,
#                         generated from the starter's objects; every student version
#                         runs in the runner named by MML_RUNNER)
#   make runner LAB=N     $(BIN)/labN/mmlab-runner: the UNTRUSTED student's code and the
#                         stage registrations, serving the checker; a student file that
#                         calls a reference function, or code given compiled only to a
#                         later lab (GIVEN_COMPILED: lab 3's recursion), does not link
#   make reference-runner LAB=N   $(BIN)/labN/reference/mmlab-runner: the same with the
#                         references: the grader's own, to time the reference rows under
#                         --perf in another process
#   (a lab with MPI programs of its own, lab 12: each runner gets them beside it, built
#   from the same code, for the call that starts them, harness/student_side.h)
#   make student-tests LAB=N      the tests linked with the student's code, without the
#                         references: only for test cases that call student code directly
#                         (the checker cannot run those; the grader says so)
# Only the stages of labs 1..N are linked (a lab builds on the ones before it:
# lab 1's baseline, lab 6's kernels in lab 7's target...), and of the tests
# only the files that hold lab N's suites (labs/catalog.txt), so that a later
# lab cannot stop an earlier one from being graded. Every one of them links
# the code given compiled to lab N (libmmlab-given-labN.a; none for lab 3).
# `make labN` and `make all` are untouched by any of this.
GRADING_GOALS := checker runner reference-runner student-tests
.PHONY: $(GRADING_GOALS)
ifneq ($(filter $(GRADING_GOALS),$(MAKECMDGOALS)),)
  ifeq ($(filter $(LAB),$(LAB_NUMBERS)),)
    $(error make $(filter $(GRADING_GOALS),$(MAKECMDGOALS)) needs LAB=<N>, one of $(LAB_NUMBERS) (labs/catalog.txt))
  endif
  ifeq ($(filter $(LAB),$(GPU_LAB_NUMBERS)) $(HAVE_CUDA),$(LAB) 0)
    $(error lab $(LAB) is a GPU lab and this build has no CUDA (configured with CUDA=0 or without nvcc))
  endif
  G_LABS := $(foreach n,$(LAB_NUMBERS),$(if $(shell [ $(n) -le $(LAB) ] && echo y),$(n)))
  g_of_labs = $(filter $(foreach n,$(G_LABS),$(1)$(n)/%),$(2))
  G_BIN := $(BIN)/lab$(LAB)
  # The student's code: the folders of labs 1..N under labs/. labs/common/ is
  # given code, not theirs: the checker has it too.
  G_STUDENT_SRCS := $(call g_of_labs,labs/lab,$(STAGE_SRCS) $(filter labs/%,$(CU_SRCS)))
  G_GIVEN_SRCS := $(filter-out labs/lab%,$(STAGE_SRCS) $(filter labs/%,$(CU_SRCS)))
  G_CORE_SRCS := $(CORE_SRCS) $(filter-out labs/%,$(CU_SRCS)) $(call g_of_labs,harness/stages/lab,$(REG_SRCS)) \
                 $(G_GIVEN_SRCS)
  # References: their bindings (every references*.cpp of the labs in this build) and sources.
  G_ALL_REGS := $(call lab_regs,$(CPU_LAB_NUMBERS)) \
                $(if $(filter 1,$(HAVE_CUDA)),$(call lab_regs,$(GPU_LAB_NUMBERS)) $(wildcard harness/stages/*/*_gpu.cpp))
  G_REF_BIND_SRCS := $(call g_of_labs,harness/stages/lab,$(foreach f,$(G_ALL_REGS),$(if $(findstring /references,$(f)),$(f))))
  # The given-compiled code of lab N (GIVEN_COMPILED): every program links it, as
  # the library G_GIVEN_LIB, built here from solutions/ and kept, as it is, in each
  # student's tree (tools/grading/build.py), which has no solutions/: a lab that
  # is not given a file (lab 3 its own answer) has no library, and a call into it
  # does not link.
  G_GIVEN_SRCS_N := $(call given_to,$(LAB))
  G_GIVEN_LIB := $(if $(G_GIVEN_SRCS_N),$(BUILD)/lib/libmmlab-given-lab$(LAB).a)
  G_REF_SRCS := $(filter-out $(G_GIVEN_SRCS_N),$(call g_of_labs,solutions/lab,$(filter-out $(MPI_ONLY),$(wildcard solutions/*/*.cpp) \
                $(if $(filter 1,$(HAVE_CUDA)),$(wildcard solutions/*/*.cu)))))
  # The tests: the files that hold lab N's suites (never tests/reference/, which tests the answers).
  G_SUITES := $(subst $(COMMA), ,$(call lab_suites,$(LAB)))
  G_TEST_SRCS := tests/main.cpp $(filter-out tests/main.cpp tests/reference/%,$(shell grep -lE \
                 'TEST_SUITE\("($(subst $(eval) ,|,$(G_SUITES)))"\)' $(TEST_SRCS) /dev/null))

  G_CORE_OBJS := $(call obj,$(G_CORE_SRCS))
  G_STUDENT_OBJS := $(call obj,$(G_STUDENT_SRCS))
  G_TEST_OBJS := $(call obj,$(G_TEST_SRCS))
  G_REF_OBJS := $(call obj,$(G_REF_BIND_SRCS) $(G_REF_SRCS))
  G_CHECKER_OBJS := $(call obj,harness/runner/checker.cpp harness/runner/runner_process.cpp harness/runner/connection.cpp \
                    harness/runner/timed_check.cpp harness/runner/protocol.cpp)
  G_RUNNER_OBJS := $(call obj,harness/runner/runner_main.cpp harness/runner/protocol.cpp \
                   $(if $(filter 1,$(HAVE_CUDA)),harness/runner/device_cuda.cu,harness/runner/device_none.cpp))
  G_STUBS := $(BUILD)/gen/lab$(LAB)/student_stubs.cpp
  G_STUB_OBJ := $(BUILD)/obj/gen/lab$(LAB)/student_stubs.cpp.o
  # The references' own flags, also when NO_REFERENCE=1 left them out of STAGE_OBJS.
  $(call obj,$(G_REF_SRCS)): CXXFLAGS := $(STAGE_FLAGS) $(BASE_CXXFLAGS)
  $(call obj,$(G_REF_SRCS)): $(FLAGS_STAMP)

  # The lab's MPI programs (lab 12's mmlab-mpi and mmlab-nccl, where this
  # build has them), when the lab's folder has MPI sources: the runner starts
  # them from its own folder (harness/stages/lab12/launch.cpp, program_path).
  # The student's: their code, no references (the objects of the normal
  # build's programs without references_*; of the core library only what they
  # call is linked). The reference runner's: the normal build's, references in.
  G_MPI_NAMES := $(if $(filter labs/lab$(LAB)/%,$(MPI_ALL) $(NCCL_ALL)),$(notdir $(MPI_PROGRAMS)))
  G_MPI_OBJS := $(call obj,$(filter-out %/references_mpi.cpp,$(MPI_ALL)))
  G_NCCL_OBJS := $(call obj,$(filter-out %/references_nccl.cu,$(NCCL_ALL)) $(filter labs/common/% %/program_common_mpi.cpp,$(MPI_ALL)))
  G_REF_BIN := $(G_BIN)/reference

  checker: $(G_BIN)/mmlab-checker-tests $(G_BIN)/mmlab-checker
  runner: $(G_BIN)/mmlab-runner $(addprefix $(G_BIN)/,$(G_MPI_NAMES))
  reference-runner: $(G_REF_BIN)/mmlab-runner $(addprefix $(G_REF_BIN)/,$(G_MPI_NAMES))
  student-tests: $(G_BIN)/mmlab-student-tests

  # Every object whose undefined symbols the stubs must cover.
  G_STUB_USERS := $(G_CORE_OBJS) $(G_CHECKER_OBJS) $(G_TEST_OBJS) $(call obj,harness/main.cpp)
  $(G_STUBS): harness/runner/stubs.py $(G_STUDENT_OBJS) $(G_STUB_USERS)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  STUBS $@")
	$(Q)python3 harness/runner/stubs.py --out $@ --student $(G_STUDENT_OBJS) --users $(G_STUB_USERS)
  $(G_STUB_OBJ): $(G_STUBS)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CXX   $<")
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@

  ifneq ($(and $(G_GIVEN_LIB),$(wildcard solutions/.)),)  # (a student's tree: kept, never rebuilt)
  $(G_GIVEN_LIB): $(call obj,$(G_GIVEN_SRCS_N))
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
  else ifneq ($(and $(G_GIVEN_LIB),$(wildcard $(PREBUILT)/lib/libmmlab-given.a)),)
  # No solutions/, the given code prebuilt (a Gradescope zip, make gradescope):
  # the library as it came (GIVEN_COMPILED's files up to this lab).
  $(G_GIVEN_LIB): $(PREBUILT)/lib/libmmlab-given.a
	@mkdir -p $(dir $@) && cp $< $@
  endif
  # No solutions/ (a Gradescope zip): the references come prebuilt
  # (prebuilt/lib/, make/sources.mk's REF_LIBS), linked into the reference
  # runner only; a student's tree has no prebuilt/ (tools/grading/build.py).
  G_REF_LIBS := $(if $(wildcard solutions/.),,$(REF_LIBS))

  g_link = @mkdir -p $(dir $@) && $(if $(V),:,echo "  LINK  $@") && $(CXX) $(filter %.o,$^) -o $@ $(G_GIVEN_LIB) $(LDLIBS)
  $(G_BIN)/mmlab-checker-tests: $(G_CORE_OBJS) $(G_CHECKER_OBJS) $(G_STUB_OBJ) $(G_TEST_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_BIN)/mmlab-checker: $(G_CORE_OBJS) $(G_CHECKER_OBJS) $(G_STUB_OBJ) $(call obj,harness/main.cpp) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_BIN)/mmlab-runner: $(G_CORE_OBJS) $(G_STUDENT_OBJS) $(G_RUNNER_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_REF_BIN)/mmlab-runner: $(G_CORE_OBJS) $(G_STUDENT_OBJS) $(G_RUNNER_OBJS) $(G_REF_OBJS) $(G_REF_LIBS) $(G_GIVEN_LIB)
	@mkdir -p $(dir $@) && $(if $(V),:,echo "  LINK  $@") && $(CXX) $(filter %.o,$^) -o $@ $(G_REF_LIBS) $(G_GIVEN_LIB) $(LDLIBS)
  $(G_BIN)/mmlab-mpi: $(G_MPI_OBJS) $(CORE_LIB) $(G_GIVEN_LIB)
	@mkdir -p $(dir $@) && $(if $(V),:,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ -Wl,--start-group $(CORE_LIB) $(G_GIVEN_LIB) -Wl,--end-group $(MPI_LIBS) $(LDLIBS)
  $(G_BIN)/mmlab-nccl: $(G_NCCL_OBJS) $(CORE_LIB) $(G_GIVEN_LIB)
	@mkdir -p $(dir $@) && $(if $(V),:,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ -Wl,--start-group $(CORE_LIB) $(G_GIVEN_LIB) -Wl,--end-group $(MPI_LIBS) $(NCCL_LIBS) $(LDLIBS)
  $(G_REF_BIN)/mmlab-%: $(BIN)/mmlab-%
	@mkdir -p $(dir $@) && cp $< $@
  $(G_BIN)/mmlab-student-tests: $(G_CORE_OBJS) $(G_STUDENT_OBJS) $(G_TEST_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
endif

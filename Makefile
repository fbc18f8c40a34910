# matmul-lab. Every target (`make help` prints this list):
#   make / make all        build build/bin/mmlab (the harness) and build/bin/mmlab-tests (the tests)
#   make labN              your lab N (labs/catalog.txt lists them): its tests on your code, then the timing table and target
#   make labN SOLUTION=1   the same with the reference in your place
#   make test              the tests of the labs, the harness and the tools every user runs (reference
#                          code; GPU tests where a GPU is), ends with "N passed, N failed"
#   make test-all          make test plus the instructors' tooling: grading end to end, the hostile set,
#                          Slurm, Gradescope, Classroom, the release, set-up simulations (what CI runs)
#   make demo [PLOT=dir]   the whole progression (reference solutions); PLOT=dir also writes its JSON and charts
#   make demo LAB=N        one lab's demo: every stage of lab N (reference) beside the baseline, same knobs
#   make plots [PLOT=dir]  the demo at three sizes and lab 10's roofline as SVG charts (default dir: plots)
#   make list              every stage and lab, one line each (mmlab list)
#   make peak              measure this CPU's FMA peak (mmlab peak)
#   make grade SUBMISSIONS=dir LAB=N [OUT=dir] [SLURM=1] [GRADE_FLAGS="-j 2 ..."]   grade a folder of submissions
#                          (handouts/grading.md; python3 tools/grade.py --help lists the flags)
#   make student-release OUT=dir [LAB=N]   a tree to publish to students: no solutions/ source (the
#                          references prebuilt), no grader; LAB=N adds lab N's GitHub Classroom workflow
#   make checker runner LAB=N   the grader's programs of lab N (handouts/grading.md, "How the verdict is made")
#   make gradescope LAB=N [OUT=dir]   autograder_labN.zip for Gradescope (PERF=1: also the speed target)
#   make check LAB=N [TEST=name]   lab N's tests only: one line per test case, exit 0 when all pass (Classroom)
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
THREADS ?= $(shell nproc 2>/dev/null || echo 1)
SIZE ?=
SOLUTION ?=

# Flags for the code under study (labs/, solutions/) and for everything else.
STAGE_FLAGS := $(OPT) $(ARCH)
BASE_CXXFLAGS := -std=c++17 -Wall -Wextra -fopenmp -pthread -I. $(BLAS_CFLAGS) -MMD -MP
CXXFLAGS := -O2 $(BASE_CXXFLAGS)
LDLIBS := -lbenchmark $(BLAS_LIBS) -fopenmp -pthread -ldl

# The labs: numbers, kinds and test suites come from the lab catalog
# (labs/catalog.txt), the one place that lists them.
CATALOG := labs/catalog.txt
catalog_column = $(shell awk -F'|' '/^ *[0-9]/ { gsub(/^[ \t]+|[ \t]+$$/, "", $$1); gsub(/^[ \t]+|[ \t]+$$/, "", $$2); gsub(/^[ \t]+|[ \t]+$$/, "", $$3); if ($(1)) print $(2) }' $(CATALOG))
LAB_NUMBERS := $(call catalog_column,1,$$1)
GPU_LAB_NUMBERS := $(call catalog_column,$$2 == "gpu",$$1)
CPU_LAB_NUMBERS := $(filter-out $(GPU_LAB_NUMBERS),$(LAB_NUMBERS))
# lab_suites N: lab N's doctest suites, comma-separated (make labN, the grader).
lab_suites = $(subst $(eval) ,$(COMMA),$(strip $(call catalog_column,$$1 == "$(1)",$$3)))
COMMA := ,

# Sources, found by folder so that a new lab needs no Makefile change. A lab's
# registration (harness/stages/labN/) needs CUDA when the catalog says the lab
# is a GPU lab, or when the file's name ends in _gpu.cpp (a CPU lab's GPU part).
# The reference solutions (solutions/) and the files that bind them to the
# stages (harness/stages/labN/references*.cpp, the only ones that include
# solutions/) are kept apart: NO_REFERENCE=1 leaves them out (the grader
# builds submissions so: a call to a reference function does not link), and
# a student release, which has no solutions/, links them prebuilt
# (prebuilt/lib/libmmlab-reference.a, declarations in prebuilt/include/).
# Files named *_mpi.cpp (MPI code) and *_nccl.cu (MPI + NCCL code) belong to
# lab 12's MPI programs, not to mmlab (see "Lab 12's MPI programs" below).
MPI_ONLY := %_mpi.cpp %_nccl.cu
lab_regs = $(filter-out %_gpu.cpp $(MPI_ONLY),$(foreach n,$(1),$(wildcard harness/stages/lab$(n)/*.cpp)))
CORE_SRCS := $(wildcard cpu/*.cpp peers/*.cpp models/*.cpp harness/commands/*.cpp) \
             $(filter-out harness/main.cpp harness/gpu_backend_none.cpp,$(wildcard harness/*.cpp))
STAGE_SRCS := $(filter-out $(MPI_ONLY),$(wildcard labs/*/*.cpp))  # the starters, and labs/common/: the given code they use

# Given COMPILED: an answer of one lab that a later lab's starter builds on
# (lab 4's parallel Strassen runs lab 3's recursion). The later lab is given
# it as object code, never as source: its declarations are in labs/common/,
# its body stays in solutions/ (ARCHITECTURE.md, "Given code"). THE list,
# one entry per file, "<the first lab it is given to>:<source>". A given file
# may use labs/common/, cpu/ and other given files, never a reference.
#   here (solutions/ present)  compiled with the references' flags and linked
#                              as objects, also with NO_REFERENCE=1: it is not
#                              a reference (no reference:: name, no row), it is
#                              what a later starter needs to link
#   a student release          prebuilt/lib/libmmlab-given.a (make given-lib)
#   the grader, LAB=N          $(BUILD)/lib/libmmlab-given-labN.a: only the files
#                              given to lab N, so that lab 3's runner, which must
#                              not have lab 3's answer, does not link
GIVEN_COMPILED := 4:solutions/lab3/strassen_recursion.cpp
given_lab = $(firstword $(subst :, ,$(1)))
given_src = $(lastword $(subst :, ,$(1)))
# given_to N: the sources given to lab N (those whose first lab is N or before).
given_to = $(foreach e,$(GIVEN_COMPILED),$(if $(shell [ $(call given_lab,$(e)) -le $(1) ] && echo y),$(call given_src,$(e))))
GIVEN_SRCS := $(foreach e,$(GIVEN_COMPILED),$(call given_src,$(e)))
REF_SRCS := $(filter-out $(MPI_ONLY) $(GIVEN_SRCS),$(wildcard solutions/*/*.cpp))
REG_SRCS := $(call lab_regs,$(CPU_LAB_NUMBERS))
TEST_SRCS := $(wildcard tests/*.cpp)
# Tests of the reference's internals (its kernels, its packing...): they
# include solutions/, so they are built only when the references are.
REF_TEST_SRCS := $(filter-out %_gpu.cpp,$(wildcard tests/reference/*.cpp))

ifeq ($(HAVE_CUDA),1)
  CU_SRCS := $(filter-out $(MPI_ONLY),$(wildcard gpu/*.cu peers/*.cu harness/*.cu labs/*/*.cu))
  REF_SRCS += $(filter-out $(MPI_ONLY) $(GIVEN_SRCS),$(wildcard solutions/*/*.cu))
  REG_SRCS += $(call lab_regs,$(GPU_LAB_NUMBERS)) $(wildcard harness/stages/*/*_gpu.cpp)
  TEST_SRCS += $(wildcard tests/gpu/*.cpp)
  REF_TEST_SRCS += $(wildcard tests/reference/*_gpu.cpp)
  NVCCFLAGS := -std=c++17 -O3 -lineinfo -I. -MMD -MP -Xcompiler -fopenmp
  # CUDA_ARCHS="80 90": machine code for each, and PTX of the last for newer GPUs.
  NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                  -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
  LDLIBS += -L$(CUDA_HOME)/lib64 -L$(CUDA_HOME)/targets/x86_64-linux/lib -lcublasLt -lcublas -lcudart
else
  CU_SRCS :=
  CORE_SRCS += harness/gpu_backend_none.cpp
  # Its "why no GPU" names how this build was configured: CUDA=0, or no nvcc.
  $(BUILD)/obj/harness/gpu_backend_none.cpp.o: CXXFLAGS += -DMML_CUDA_CHOSEN_OFF=$(or $(CUDA_CHOSEN_OFF),0)
  $(BUILD)/obj/harness/gpu_backend_none.cpp.o: $(BUILD)/config.mk
endif
REF_BIND_SRCS := $(foreach f,$(REG_SRCS),$(if $(filter references%,$(notdir $(f))),$(f)))
REG_SRCS := $(filter-out $(REF_BIND_SRCS),$(REG_SRCS))
# A student release: no solutions/, the references prebuilt (make student-release).
PREBUILT := prebuilt
REF_LIBS :=
GIVEN_LIBS :=
ifeq ($(wildcard solutions/.),)
  BASE_CXXFLAGS += -I$(PREBUILT)/include
  CXXFLAGS += -I$(PREBUILT)/include
  NVCCFLAGS += -I$(PREBUILT)/include
  REF_LIBS := $(wildcard $(PREBUILT)/lib/libmmlab-reference.a)
  # The given-compiled code: never its source (missing, make says which file it needs).
  GIVEN_SRCS :=
  GIVEN_LIBS := $(if $(GIVEN_COMPILED),$(PREBUILT)/lib/libmmlab-given.a)
  ifeq ($(HAVE_CUDA),1)
    ifneq ($(wildcard $(PREBUILT)/lib/libmmlab-reference-gpu.a),)
      REF_LIBS += $(PREBUILT)/lib/libmmlab-reference-gpu.a
    else  # released without the GPU references: their rows say "not in this build"
      REF_BIND_SRCS := $(filter-out $(call lab_regs,$(GPU_LAB_NUMBERS)) %_gpu.cpp,$(REF_BIND_SRCS))
    endif
  endif
  ifeq ($(REF_LIBS),)
    REF_BIND_SRCS :=
  endif
endif
ifeq ($(NO_REFERENCE),1)
  REF_SRCS :=
  REF_BIND_SRCS :=
  REF_LIBS :=
  REF_TEST_SRCS :=
endif

# ONLY_LAB=N (make sanitize LAB=N passes it to its builds): mmlab and
# mmlab-tests with labs 1..N alone (a lab builds on the ones before it) and,
# of the tests, only the files that hold lab N's suites - what lab N's tests
# need, not every lab's - in a folder of their own ($(BUILD)/bin/lab<N>), so
# that the whole build's programs stay as they are. Objects are shared.
ifneq ($(ONLY_LAB),)
  ifeq ($(filter $(ONLY_LAB),$(LAB_NUMBERS)),)
    $(error ONLY_LAB=$(ONLY_LAB) is not a lab: one of $(LAB_NUMBERS))
  endif
  ONLY_LABS := $(foreach n,$(LAB_NUMBERS),$(if $(shell [ $(n) -le $(ONLY_LAB) ] && echo y),$(n)))
  only_labs = $(filter $(foreach n,$(ONLY_LABS),$(1)$(n)/%),$(2))
  REG_SRCS := $(call only_labs,harness/stages/lab,$(REG_SRCS))
  REF_BIND_SRCS := $(call only_labs,harness/stages/lab,$(REF_BIND_SRCS))
  STAGE_SRCS := $(filter-out labs/lab%,$(STAGE_SRCS)) $(call only_labs,labs/lab,$(STAGE_SRCS))
  REF_SRCS := $(call only_labs,solutions/lab,$(REF_SRCS))
  GIVEN_SRCS := $(if $(GIVEN_SRCS),$(call given_to,$(ONLY_LAB)))
  TEST_SRCS := tests/main.cpp $(filter-out tests/main.cpp,$(shell grep -lE \
               'TEST_SUITE\("($(subst $(COMMA),|,$(call lab_suites,$(ONLY_LAB))))"\)' $(TEST_SRCS) /dev/null))
  REF_TEST_SRCS :=
  BIN := $(BUILD)/bin/lab$(ONLY_LAB)
endif

obj = $(patsubst %,$(BUILD)/obj/%.o,$(1))
CORE_OBJS := $(call obj,$(CORE_SRCS) $(CU_SRCS) $(REG_SRCS) $(REF_BIND_SRCS))
STAGE_OBJS := $(call obj,$(STAGE_SRCS) $(REF_SRCS) $(GIVEN_SRCS))
LIB_OBJS := $(CORE_OBJS) $(STAGE_OBJS)

# The build flags travel into the binary (the harness prints them) and into
# stamp files, so that changing OPT/ARCH/CUDA_ARCH rebuilds what they affect:
# flags.txt (the stage flags) for the stage code; toolchain.txt (g++) for every
# .cpp object; nvcc.txt (nvcc, its flags, the GPU targets) for every .cu
# object, written only by a CUDA build, so that a CUDA=0 build of a tree built
# with CUDA (Gradescope's set-up, seeded) keeps its .cpp objects. `make lab1
# OPT=-O0` recompiles labs/ and solutions/, not the harness and the tests.
# cpu/machine.cpp prints FLAGS_TEXT: it also follows config.mk (CUDA on/off).
# (A release's references are prebuilt with -O3 by tools/release/student_release.sh,
# whatever OPT says: the text says so beside the stage flags.)
FLAGS_TEXT := stages: $(CXX) $(STAGE_FLAGS)$(if $(REF_LIBS),; reference: prebuilt -O3); harness: -O2$(if $(filter 1,$(HAVE_CUDA)),; nvcc -O3 sm_$(CUDA_ARCH))
STAGE_TEXT := stages: $(CXX) $(STAGE_FLAGS)
TOOLCHAIN_TEXT := $(CXX); harness: -O2
# (nvcc itself, not a launcher before it: NVCC="ccache nvcc" compiles nothing again)
NVCC_TEXT := $(lastword $(NVCC)) $(NVCCFLAGS) $(NVCC_GENCODE)
FLAGS_STAMP := $(BUILD)/flags.txt
TOOLCHAIN_STAMP := $(BUILD)/toolchain.txt
NVCC_STAMP := $(BUILD)/nvcc.txt
# Written only where the configuration was read: a goal that needs none (help,
# grade, student-release, gradescope, compare) sees no HAVE_CUDA, would write
# the text without nvcc's part, and the next build would compile every object
# again (CI: the classroom test's serial rebuild after the release test's
# make student-release; make grade's seeded trees). tests/setup/test_stamps.sh.
write_stamp = $(shell [ "$$(cat $(1) 2>/dev/null)" = "$(2)" ] || echo "$(2)" > $(1))
ifeq ($(CONFIGURED),1)
$(shell mkdir -p $(BUILD))
$(call write_stamp,$(FLAGS_STAMP),$(STAGE_TEXT))
$(call write_stamp,$(TOOLCHAIN_STAMP),$(TOOLCHAIN_TEXT))
$(if $(filter 1,$(HAVE_CUDA)),$(call write_stamp,$(NVCC_STAMP),$(NVCC_TEXT)))
endif

.PHONY: all test demo clean list peak gpu-check help
all: $(BIN)/mmlab $(BIN)/mmlab-tests $(BUILD)/compile_commands.json

$(BUILD)/obj/cpu/machine.cpp.o: CXXFLAGS += -DMML_BUILD_FLAGS='"$(FLAGS_TEXT)"'

# The catalog compiled into the harness (harness/catalog.cpp includes it).
$(BUILD)/gen/catalog.inc: $(CATALOG)
	@mkdir -p $(dir $@)
	@{ echo 'R"CATALOG('; cat $<; echo ')CATALOG"'; } > $@
$(BUILD)/obj/harness/catalog.cpp.o: $(BUILD)/gen/catalog.inc
$(BUILD)/obj/harness/catalog.cpp.o: CXXFLAGS += -I$(BUILD)/gen
$(STAGE_OBJS): CXXFLAGS := $(STAGE_FLAGS) $(BASE_CXXFLAGS)
$(STAGE_OBJS) $(BUILD)/obj/cpu/machine.cpp.o: $(FLAGS_STAMP)
$(BUILD)/obj/cpu/machine.cpp.o: $(BUILD)/config.mk $(if $(filter 1,$(HAVE_CUDA)),$(NVCC_STAMP))

# Short progress lines; `make V=1` shows the full commands.
Q := $(if $(V),,@)
$(BUILD)/obj/%.cpp.o: %.cpp $(TOOLCHAIN_STAMP) | $(BUILD)/config.mk
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CXX   $<")
	$(file >$(call cc_entry,$@),{"directory": "$(CURDIR)", "file": "$(CURDIR)/$<", "command": "$(call json_escape,$(CXX) $(CXXFLAGS) -c $< -o $@)"},)
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(NVCC_STAMP) | $(BUILD)/config.mk
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  NVCC  $<")
	$(file >$(call cc_entry,$@),{"directory": "$(CURDIR)", "file": "$(CURDIR)/$<", "command": "$(call json_escape,$(NVCC) $(NVCCFLAGS) $(NVCC_GENCODE) -c $< -o $@)"},)
	$(Q)$(NVCC) $(NVCCFLAGS) $(NVCC_GENCODE) -c $< -o $@

# A file named *_sm90a.cu uses Hopper-only instructions (wgmma, setmaxnreg:
# lab 11) and is built for sm_90a alone, whatever CUDA_ARCHS says: a plain
# sm_90 or older pass rejects them. (The -arch=sm_90a shorthand would add
# such a pass.) Its host code checks the GPU before launching.
$(BUILD)/obj/%_sm90a.cu.o: NVCC_GENCODE := -gencode=arch=compute_90a,code=sm_90a

# (The references before the given code: a reference may call it, never the other way.)
$(BIN)/mmlab: $(LIB_OBJS) $(call obj,harness/main.cpp) $(REF_LIBS) $(GIVEN_LIBS)
	@mkdir -p $(BIN)
	@$(if $(V),,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ $(REF_LIBS) $(GIVEN_LIBS) $(LDLIBS)

$(BIN)/mmlab-tests: $(LIB_OBJS) $(call obj,$(TEST_SRCS) $(REF_TEST_SRCS)) $(REF_LIBS) $(GIVEN_LIBS)
	@mkdir -p $(BIN)
	@$(if $(V),,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ $(REF_LIBS) $(GIVEN_LIBS) $(LDLIBS)

# Lab 12's MPI programs, started by mpirun (mmlab, which is not an MPI
# program, starts them for lab 12's commands and tests): build/bin/mmlab-mpi
# (the CPU algorithms; where configure found MPI) and build/bin/mmlab-nccl (the
# GPU ones; MPI, CUDA and NCCL). Their own code is the *_mpi.cpp / *_nccl.cu
# files (compiled with MPI's and NCCL's flags); everything else they use comes
# from the rest of the build, as the library libmmlab-core.a (only what they
# call is linked), and the reference bindings of their lab (references*.cpp,
# linked whole: nothing calls them, they bind themselves).
MPI_ALL := $(wildcard labs/*/*_mpi.cpp harness/stages/*/*_mpi.cpp)
NCCL_ALL := $(wildcard labs/*/*_nccl.cu harness/stages/*/*_nccl.cu)
MPI_REF_ALL := $(if $(REF_SRCS),$(wildcard solutions/*/*_mpi.cpp))
NCCL_REF_ALL := $(if $(REF_SRCS),$(wildcard solutions/*/*_nccl.cu))
MPI_SRCS := $(filter-out %/references_mpi.cpp,$(MPI_ALL)) $(if $(REF_SRCS),$(filter %/references_mpi.cpp,$(MPI_ALL)))
NCCL_SRCS := $(filter-out %/references_nccl.cu,$(NCCL_ALL)) $(if $(REF_SRCS),$(filter %/references_nccl.cu,$(NCCL_ALL)))
MPI_BIND_OBJS := $(call obj,$(filter $(addsuffix %,$(sort $(dir $(MPI_ALL) $(NCCL_ALL)))),$(REF_BIND_SRCS)))
CORE_LIB := $(BUILD)/lib/libmmlab-core.a
# (Not in the sanitizer builds: OpenMPI's own allocations at exit would be
# reported as leaks; lab 12's MPI tests then say the programs are missing.)
MPI_PROGRAMS :=
ifeq ($(HAVE_MPI)$(SANITIZE),1)
  MPI_OBJS := $(call obj,$(MPI_SRCS) $(MPI_REF_ALL))
  MPI_PROGRAMS += $(BIN)/mmlab-mpi
  ifeq ($(HAVE_CUDA)$(HAVE_NCCL),11)
    NCCL_OBJS := $(call obj,$(NCCL_SRCS) $(NCCL_REF_ALL))
    # the given MPI helpers, and the plumbing both programs share (program_common.h)
    NCCL_MPI_OBJS := $(call obj,$(filter labs/common/% %/program_common_mpi.cpp,$(MPI_SRCS)))
    MPI_PROGRAMS += $(BIN)/mmlab-nccl
  endif
endif
$(MPI_OBJS): CXXFLAGS += $(MPI_CFLAGS)
$(filter $(BUILD)/obj/labs/% $(BUILD)/obj/solutions/%,$(MPI_OBJS)): CXXFLAGS := $(STAGE_FLAGS) $(BASE_CXXFLAGS) $(MPI_CFLAGS)
$(filter $(BUILD)/obj/labs/% $(BUILD)/obj/solutions/%,$(MPI_OBJS)): $(FLAGS_STAMP)
$(NCCL_OBJS): NVCCFLAGS += $(MPI_CFLAGS) $(NCCL_CFLAGS)
$(CORE_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
all: $(MPI_PROGRAMS)
$(BIN)/mmlab-mpi: $(MPI_OBJS) $(MPI_BIND_OBJS) $(CORE_LIB) $(REF_LIBS) $(GIVEN_LIBS)
	@mkdir -p $(BIN)
	@$(if $(V),,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ -Wl,--start-group $(CORE_LIB) $(REF_LIBS) $(GIVEN_LIBS) -Wl,--end-group $(MPI_LIBS) $(LDLIBS)
$(BIN)/mmlab-nccl: $(NCCL_OBJS) $(NCCL_MPI_OBJS) $(MPI_BIND_OBJS) $(CORE_LIB) $(REF_LIBS) $(GIVEN_LIBS)
	@mkdir -p $(BIN)
	@$(if $(V),,echo "  LINK  $@")
	$(Q)$(CXX) $(filter %.o,$^) -o $@ -Wl,--start-group $(CORE_LIB) $(REF_LIBS) $(GIVEN_LIBS) -Wl,--end-group $(MPI_LIBS) $(NCCL_LIBS) $(LDLIBS)

# The reference solutions as libraries (make student-release ships them):
# the CPU ones, and the GPU ones (built for every CUDA_ARCHS, PTX included).
REF_LIB_DIR := $(BUILD)/lib
$(REF_LIB_DIR)/libmmlab-reference.a: $(call obj,$(filter %.cpp,$(REF_SRCS)))
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
$(REF_LIB_DIR)/libmmlab-reference-gpu.a: $(call obj,$(filter %.cu,$(REF_SRCS)))
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
.PHONY: reference-libs
reference-libs: $(REF_LIB_DIR)/libmmlab-reference.a $(if $(filter 1,$(HAVE_CUDA)),$(REF_LIB_DIR)/libmmlab-reference-gpu.a)
# The given-compiled code as a library (make student-release ships it; the grader
# builds its own of lab N, libmmlab-given-labN.a, below). Not with the references:
# NO_REFERENCE=1 builds it too.
.PHONY: given-lib
given-lib: $(REF_LIB_DIR)/libmmlab-given.a
ifneq ($(GIVEN_SRCS),)
$(REF_LIB_DIR)/libmmlab-given.a: $(call obj,$(GIVEN_SRCS))
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
endif

# compile_commands.json for editors (clangd finds it in build/): every
# compile writes its own entry (build/cc/), the link gathers them.
CC_DIR := $(BUILD)/cc
json_escape = $(subst ",\",$(subst \,\\,$(1)))
cc_entry = $(CC_DIR)/$(subst /,__,$(1)).json
$(shell mkdir -p $(CC_DIR))
# An object compiled before its entry existed is compiled again (once).
CC_OBJS := $(filter %.o,$(LIB_OBJS) $(MPI_OBJS) $(NCCL_OBJS) $(call obj,harness/main.cpp $(TEST_SRCS) $(REF_TEST_SRCS)))
$(foreach o,$(CC_OBJS),$(if $(wildcard $(call cc_entry,$(o))),,$(eval $(o): FORCE)))
.PHONY: FORCE
$(BUILD)/compile_commands.json: $(BIN)/mmlab $(BIN)/mmlab-tests $(MPI_PROGRAMS)
	@{ echo '['; cat $(foreach o,$(CC_OBJS),$(call cc_entry,$(o))) | sed '$$ s/},$$/}/'; echo ']'; } > $@

# Compile every source file, link nothing: checks a set of headers (another
# distribution's Google Benchmark or doctest) where its library cannot link.
.PHONY: objects
objects: $(CC_OBJS)

# The tests in two tiers, against the reference solutions (and GPU tests
# where a GPU is). make test: what every user runs - the labs, the harness,
# the tools (plots, compare). make test-all: that and the instructors' tooling,
# INSTRUCTOR_SUITES (tools/grade.py end to end with its hostile set and Slurm,
# Gradescope, Classroom, the student release, the golden outputs, set-up on
# simulated machines); their long cases run only where MML_GRADING_TESTS is set.
INSTRUCTOR_SUITES := grading,grading-units,packaging,golden,setup
.PHONY: test-all only-lab
# ONLY_LAB=N only-lab: lab N's programs alone (ONLY_LAB above; make sanitize LAB=N)
only-lab: $(BIN)/mmlab $(BIN)/mmlab-tests
test: all
	@MMLAB=$(BIN)/mmlab bash tools/run-tests.sh $(BIN)/mmlab-tests --test-suite-exclude=$(INSTRUCTOR_SUITES)
test-all: all
	@MMLAB=$(BIN)/mmlab MML_GRADING_TESTS=1 bash tools/run-tests.sh $(BIN)/mmlab-tests

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
  endif

  g_link = @mkdir -p $(dir $@) && $(if $(V),:,echo "  LINK  $@") && $(CXX) $(filter %.o,$^) -o $@ $(G_GIVEN_LIB) $(LDLIBS)
  $(G_BIN)/mmlab-checker-tests: $(G_CORE_OBJS) $(G_CHECKER_OBJS) $(G_STUB_OBJ) $(G_TEST_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_BIN)/mmlab-checker: $(G_CORE_OBJS) $(G_CHECKER_OBJS) $(G_STUB_OBJ) $(call obj,harness/main.cpp) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_BIN)/mmlab-runner: $(G_CORE_OBJS) $(G_STUDENT_OBJS) $(G_RUNNER_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
  $(G_REF_BIN)/mmlab-runner: $(G_CORE_OBJS) $(G_STUDENT_OBJS) $(G_RUNNER_OBJS) $(G_REF_OBJS) $(G_GIVEN_LIB)
	$(call g_link)
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

# make student-release OUT=dir: the tree a course publishes - starters, harness,
# tests, handouts, the references prebuilt (no solutions/ source, no grader).
.PHONY: student-release
student-release:
	@bash tools/release/student_release.sh "$(OUT)" "$(LAB)"

# make gradescope LAB=N [OUT=dir] [PERF=1]: OUT/autograder_labN.zip for a
# Gradescope programming assignment (handouts/grading.md, "Gradescope").
.PHONY: gradescope
gradescope:
	@bash tools/gradescope/make_zip.sh "$(LAB)" "$(or $(OUT),.)" "$(or $(PERF),0)"

# make check LAB=N [TEST=name]: lab N's tests only, on the student's code: no
# timing, no prompts, one line per test case, everything on stdout, exit 0
# only when all pass (GitHub Classroom; handouts/grading.md). The build's own
# output goes to build/check-build.log and is shown only when it fails.
.PHONY: check
check:
	$(if $(filter $(LAB),$(LAB_NUMBERS)),,$(error make check needs LAB=<N>, one of $(LAB_NUMBERS) (labs/catalog.txt)))
	@$(MAKE) --no-print-directory all > $(BUILD)/check-build.log 2>&1 || \
	  { cat $(BUILD)/check-build.log; echo "check: the build failed (above)"; exit 1; }
	@bash tools/check.sh $(BIN) $(call lab_suites,$(LAB)) "$(TEST)" 2>&1

# make compare BEFORE=a.json AFTER=b.json [PLOT=dir] [FORMAT=png]: two runs'
# --json files, benchmark by benchmark: the change and whether it is more than
# noise (tools/compare.py); PLOT=dir also draws dir/compare.svg.
.PHONY: compare
compare:
	$(if $(and $(BEFORE),$(AFTER)),,$(error make compare needs two --json files: make compare BEFORE=before.json AFTER=after.json [PLOT=dir]))
	@python3 tools/compare.py "$(BEFORE)" "$(AFTER)" $(if $(PLOT),--out "$(PLOT)") $(if $(FORMAT),--format $(FORMAT))

# make labN: the lab's tests on the student's code (or the reference with
# SOLUTION=1), then the timing table beside the reference and the baseline.
IMPL := $(if $(SOLUTION),reference,student)
LABS := $(addprefix lab,$(LAB_NUMBERS))
# make lab11 / lab01 / lab-1: one line naming the labs, not "No rule to make target".
NO_SUCH_LAB := $(filter-out $(LABS),$(filter lab%,$(MAKECMDGOALS)))
ifneq ($(NO_SUCH_LAB),)
  $(error there is no $(firstword $(NO_SUCH_LAB)): the labs are $(firstword $(LABS)) ... $(lastword $(LABS)) ('make help' lists every target))
endif
.PHONY: $(LABS)
# make lab8 in a build without CUDA: one line saying why and what to do, exit 2,
# before anything is built (the GPU labs are not in such a build); with CUDA but
# no usable GPU, `mmlab lab-ready` says the same before the tests run.
NO_CUDA_LAB := $(firstword $(if $(filter 1,$(HAVE_CUDA)),,$(filter $(addprefix lab,$(GPU_LAB_NUMBERS)),$(MAKECMDGOALS))))
ifneq ($(NO_CUDA_LAB),)
  ifeq ($(CUDA_CHOSEN_OFF),1)
    NO_CUDA_WHY := was configured with CUDA=0 (CPU labs only): on a machine with the CUDA toolkit and a GPU$(COMMA) \
      'make clean' then make $(NO_CUDA_LAB) without CUDA=0
  else
    NO_CUDA_WHY := has no CUDA (nvcc was not found when it was configured): install the CUDA toolkit on a machine \
      with a GPU$(COMMA) then 'make clean' and make $(NO_CUDA_LAB)
  endif
  $(error make $(NO_CUDA_LAB): lab $(subst lab,,$(NO_CUDA_LAB)) needs a CUDA GPU$(COMMA) but this build $(NO_CUDA_WHY))
endif
# THREADS checked before the tests run (mmlab would refuse it only after them).
check_threads = @case "$(THREADS)" in ''|*[!0-9]*|0*) echo "make: THREADS=$(THREADS) must be a whole number >= 1, e.g. THREADS=2"; exit 2;; esac

# SIZE too (mmlab parses --size for every command; list does nothing else).
check_size = $(if $(SIZE),@$(BIN)/mmlab list --size "$(SIZE)" > /dev/null)

$(LABS): lab%: all
	$(check_threads)
	$(check_size)
	@$(BIN)/mmlab lab-ready $*
	@echo "== lab $*: tests on the $(IMPL) code =="
	@MML_IMPL=$(IMPL) MMLAB=$(BIN)/mmlab bash tools/run-tests.sh $(BIN)/mmlab-tests --test-suite=$(call lab_suites,$*) || \
	  { echo "make lab$*: the tests above failed: fix labs/lab$*/ (handouts/lab$*.md explains each task), then run make lab$* again"; exit 1; }
	@$(BIN)/mmlab lab $* --threads $(THREADS) $(if $(SIZE),--size $(SIZE)) $(if $(SOLUTION),--solution)

# make demo PLOT=dir: also the demo's JSON (dir/demo.json) and its charts
# (tools/plot.py: dir/progression.svg, and dir/sizes.svg when SIZE lists
# several sizes), drawn even when a check failed (the chart shows it), and
# the demo's exit status kept.
demo: all
	$(check_threads)
	$(if $(PLOT),@mkdir -p "$(PLOT)" && rm -f "$(PLOT)/demo.json")
	@$(BIN)/mmlab $(if $(LAB),run --lab $(LAB),demo) --threads $(THREADS) $(if $(SIZE),--size $(SIZE)) $(if $(PLOT),--json "$(PLOT)/demo.json"); \
	  status=$$?; $(if $(PLOT),[ ! -f "$(PLOT)/demo.json" ] || python3 tools/plot.py --out "$(PLOT)" "$(PLOT)/demo.json" || exit 2;) exit $$status

# make plots [PLOT=dir] [SIZE=list]: the charts for a lecture, in one folder
# (default plots/): the demo at 250, 500 and 1000 (SIZE= changes the list),
# lab 10's roofline at the last of them, and tools/plot.py's SVGs of both:
# progression.svg, sizes.svg, roofline.svg (with demo.json and roofline.csv).
# About a minute on 2 cores (1 min 7 s on the development machine, 2026-11-22).
PLOT_DIR = $(or $(PLOT),plots)
PLOT_DEFAULT_SIZES := 250,500,1000
PLOT_SIZES = $(or $(SIZE),$(PLOT_DEFAULT_SIZES))
PLOT_COMMA := ,
.PHONY: plots
plots: all
	@command -v python3 > /dev/null || { echo "make plots: python3 is needed: sudo apt-get install python3" >&2; exit 2; }
	@mkdir -p "$(PLOT_DIR)" && rm -f "$(PLOT_DIR)/demo.json" "$(PLOT_DIR)/roofline.csv"
	@$(BIN)/mmlab demo --threads $(THREADS) --size $(PLOT_SIZES) --json "$(PLOT_DIR)/demo.json"; \
	  status=$$?; [ -f "$(PLOT_DIR)/demo.json" ] || exit $$status
	@$(BIN)/mmlab roofline --threads $(THREADS) --size $(lastword $(subst $(PLOT_COMMA), ,$(PLOT_SIZES))) \
	  --csv "$(PLOT_DIR)/roofline.csv"
	@python3 tools/plot.py --out "$(PLOT_DIR)" "$(PLOT_DIR)/demo.json" "$(PLOT_DIR)/roofline.csv"

list: $(BIN)/mmlab
	@$(BIN)/mmlab list

peak: $(BIN)/mmlab
	@$(BIN)/mmlab peak

# Build, GPU tests (also under compute-sanitizer) and GPU benchmarks in one go,
# for the GPU machine.
gpu-check:
	@bash tools/gpu-check.sh

# The comment block at the top of this file, up to its first line that is not a comment.
help:
	@awk '!/^#/ { exit } { print }' Makefile

clean:
	rm -rf $(BUILD)

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
# LAB=N: each sanitizer build makes only what lab N's tests need (ONLY_LAB above).
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

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

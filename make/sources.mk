# What is built from what: the labs (from labs/catalog.txt), the sources of
# each part found by folder, the references and the code given compiled, a
# student release's prebuilt libraries, ONLY_LAB=N, and the object lists.
# (Included by the Makefile after the configuration; make/compile.mk and
# make/programs.mk turn these lists into rules.)

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
# lab 12's MPI programs, not to mmlab (see "Lab 12's MPI programs" in make/programs.mk).
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

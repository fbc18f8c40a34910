# Linking: make all's programs (the goal `programs`; the Makefile's `all` builds it) (mmlab, mmlab-tests, lab 12's MPI programs),
# the libraries a student release ships (the references, the given code),
# compile_commands.json, and make objects.

programs: $(BIN)/mmlab $(BIN)/mmlab-tests $(BUILD)/compile_commands.json

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
programs: $(MPI_PROGRAMS)
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
# builds its own of lab N, libmmlab-given-labN.a, make/grading.mk). Not with the references:
# NO_REFERENCE=1 builds it too.
.PHONY: given-lib
given-lib: $(REF_LIB_DIR)/libmmlab-given.a
ifneq ($(GIVEN_SRCS),)
$(REF_LIB_DIR)/libmmlab-given.a: $(call obj,$(GIVEN_SRCS))
	@mkdir -p $(dir $@) && rm -f $@
	$(Q)ar rcs $@ $^
endif

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

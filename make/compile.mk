# Compiling: the stamps that make a change of flags or compiler recompile what
# it affects, the generated catalog, the compile rules (each also writes its
# compile_commands.json entry), and the per-object flags.

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
# (nvcc itself, not a launcher before it: NVCC="ccache nvcc" compiles nothing again;
# nor the student tree's -Iprebuilt/include: the grader builds each student's
# runner in a copy of the built tree without solutions/, which adds it, and the
# stamp would recompile every .cu object of every student - 60 s and more on
# 2 cores. An include path is no code-generation flag; the .d files follow headers.)
NVCC_TEXT := $(lastword $(NVCC)) $(filter-out -I$(PREBUILT)/include,$(NVCCFLAGS)) $(NVCC_GENCODE)
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

# compile_commands.json for editors (clangd finds it in build/): every
# compile writes its own entry (build/cc/), the link gathers them.
CC_DIR := $(BUILD)/cc
json_escape = $(subst ",\",$(subst \,\\,$(1)))
cc_entry = $(CC_DIR)/$(subst /,__,$(1)).json
$(shell mkdir -p $(CC_DIR))

# A student's goals: make labN (tests, then the timing table), make demo,
# make plots, make compare, make list, make peak.

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
# the demo's exit status kept. It fits 100 columns (a projected slide) unless
# the terminal is wider; make demo WIDE=1: every column and note in full.
# make demo LAB=N: every stage of lab N instead, the same slide.
.PHONY: demo
demo: harness
	$(check_threads)
	$(if $(PLOT),@mkdir -p "$(PLOT)" && rm -f "$(PLOT)/demo.json")
	@$(BIN)/mmlab demo $(if $(LAB),--lab $(LAB)) $(if $(WIDE),--wide) --threads $(THREADS) $(if $(SIZE),--size $(SIZE)) $(if $(PLOT),--json "$(PLOT)/demo.json"); \
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
plots: harness
	@command -v python3 > /dev/null || { echo "make plots: python3 is needed: sudo apt-get install python3" >&2; exit 2; }
	@mkdir -p "$(PLOT_DIR)" && rm -f "$(PLOT_DIR)/demo.json" "$(PLOT_DIR)/roofline.csv"
	@$(BIN)/mmlab demo --threads $(THREADS) --size $(PLOT_SIZES) --json "$(PLOT_DIR)/demo.json"; \
	  status=$$?; [ -f "$(PLOT_DIR)/demo.json" ] || exit $$status
	@$(BIN)/mmlab roofline --threads $(THREADS) --size $(lastword $(subst $(PLOT_COMMA), ,$(PLOT_SIZES))) \
	  --csv "$(PLOT_DIR)/roofline.csv"
	@python3 tools/plot.py --out "$(PLOT_DIR)" "$(PLOT_DIR)/demo.json" "$(PLOT_DIR)/roofline.csv"

.PHONY: list peak
list: harness
	@$(BIN)/mmlab list

peak: harness
	@$(BIN)/mmlab peak

# make compare BEFORE=a.json AFTER=b.json [PLOT=dir] [FORMAT=png]: two runs'
# --json files, benchmark by benchmark: the change and whether it is more than
# noise (tools/compare.py); PLOT=dir also draws dir/compare.svg.
.PHONY: compare
compare:
	$(if $(and $(BEFORE),$(AFTER)),,$(error make compare needs two --json files: make compare BEFORE=before.json AFTER=after.json [PLOT=dir]))
	@python3 tools/compare.py "$(BEFORE)" "$(AFTER)" $(if $(PLOT),--out "$(PLOT)") $(if $(FORMAT),--format $(FORMAT))


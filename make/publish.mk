# What a course hands out: the student release, the Gradescope autograder,
# and make check (the test run of the template repository's GitHub Actions workflow).

# make student-release OUT=dir: the tree a course publishes - starters, harness,
# tests, handouts, the references prebuilt (no solutions/ source, no grader).
.PHONY: student-release
student-release:
	@bash tools/release/student_release.sh "$(OUT)" "$(LAB)"

# make gradescope LAB=N [OUT=dir] [PERF=1]: OUT/autograder_labN.zip for a
# Gradescope programming assignment (handouts/grading.md, "Gradescope"): the
# references prebuilt, no solutions/ source; MMLAB_GRADESCOPE_SANDBOX=level
# (bwrap, unshare, net, none) picks the sandbox it grades at.
.PHONY: gradescope
gradescope:
	@bash tools/gradescope/make_zip.sh "$(LAB)" "$(or $(OUT),.)" "$(or $(PERF),0)"

# make check LAB=N [TEST=name]: lab N's tests only, on the student's code: no
# timing, no prompts, one line per test case, everything on stdout, exit 0
# only when all pass (the workflow of a student's repository; handouts/grading.md,
# "GitHub Classroom"). Each test case has a time limit and an output cap of its own
# (CHECK_TIME_LIMIT, CHECK_OUTPUT_CAP: tools/check.sh). The build's own
# output goes to build/check-build.log and is shown only when it fails.
.PHONY: check
check:
	$(if $(filter $(LAB),$(LAB_NUMBERS)),,$(error make check needs LAB=<N>, one of $(LAB_NUMBERS) (labs/catalog.txt)))
	@$(MAKE) --no-print-directory all > $(BUILD)/check-build.log 2>&1 || \
	  { cat $(BUILD)/check-build.log; echo "check: the build failed (above)"; exit 1; }
	@bash tools/check.sh $(BIN) $(call lab_suites,$(LAB)) "$(TEST)" 2>&1

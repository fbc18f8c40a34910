build-noref/obj/harness/stages/lab3/stages.cpp.o: \
 harness/stages/lab3/stages.cpp harness/cli.h harness/stage.h \
 cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/stages/lab3/cutoff_param.h harness/targets.h \
 labs/common/classical_kernel.h labs/common/strassen_bound.h \
 labs/common/strassen_plan.h labs/lab3/strassen.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/stages/lab3/cutoff_param.h:
harness/targets.h:
labs/common/classical_kernel.h:
labs/common/strassen_bound.h:
labs/common/strassen_plan.h:
labs/lab3/strassen.h:

build-noref/obj/harness/stages/lab4/stages.cpp.o: \
 harness/stages/lab4/stages.cpp cpu/machine.h harness/cli.h \
 harness/stage.h cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/report.h harness/bench.h cpu/stats.h \
 harness/stages/lab4/scaling.h harness/stages/lab4/thread_params.h \
 harness/targets.h labs/common/row_partition.h \
 labs/common/strassen_bound.h labs/common/strassen_plan.h \
 labs/lab4/threads.h
cpu/machine.h:
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/report.h:
harness/bench.h:
cpu/stats.h:
harness/stages/lab4/scaling.h:
harness/stages/lab4/thread_params.h:
harness/targets.h:
labs/common/row_partition.h:
labs/common/strassen_bound.h:
labs/common/strassen_plan.h:
labs/lab4/threads.h:

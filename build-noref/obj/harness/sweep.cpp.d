build-noref/obj/harness/sweep.cpp.o: harness/sweep.cpp harness/bench.h \
 cpu/stats.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/cli.h harness/commands.h harness/report.h \
 harness/targets.h
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/cli.h:
harness/commands.h:
harness/report.h:
harness/targets.h:

build-noref/obj/harness/commands/run.cpp.o: harness/commands/run.cpp \
 harness/catalog.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/commands.h harness/jobs.h harness/bench.h \
 cpu/stats.h harness/cli.h harness/report.h
harness/catalog.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/commands.h:
harness/jobs.h:
harness/bench.h:
cpu/stats.h:
harness/cli.h:
harness/report.h:

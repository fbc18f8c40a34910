build-noref/obj/harness/commands/machine.cpp.o: \
 harness/commands/machine.cpp cpu/machine.h cpu/peak.h harness/cli.h \
 harness/stage.h cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/commands.h harness/report.h harness/bench.h cpu/stats.h
cpu/machine.h:
cpu/peak.h:
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/commands.h:
harness/report.h:
harness/bench.h:
cpu/stats.h:

build-noref/obj/harness/commands.cpp.o: harness/commands.cpp \
 harness/commands.h harness/cli.h harness/stage.h cpu/error_bound.h \
 cpu/matrix.h cpu/rounding.h
harness/commands.h:
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:

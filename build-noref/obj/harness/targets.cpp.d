build-noref/obj/harness/targets.cpp.o: harness/targets.cpp \
 harness/targets.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h
harness/targets.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:

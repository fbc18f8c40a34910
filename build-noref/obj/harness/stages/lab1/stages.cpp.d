build-noref/obj/harness/stages/lab1/stages.cpp.o: \
 harness/stages/lab1/stages.cpp harness/stage.h cpu/error_bound.h \
 cpu/matrix.h cpu/rounding.h harness/targets.h labs/lab1/loop_orders.h
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/targets.h:
labs/lab1/loop_orders.h:

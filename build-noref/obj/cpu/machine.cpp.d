build-noref/obj/cpu/machine.cpp.o: cpu/machine.cpp cpu/machine.h
cpu/machine.h:

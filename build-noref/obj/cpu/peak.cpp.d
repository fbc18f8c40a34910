build-noref/obj/cpu/peak.cpp.o: cpu/peak.cpp cpu/peak.h cpu/machine.h \
 cpu/measured_once.h
cpu/peak.h:
cpu/machine.h:
cpu/measured_once.h:

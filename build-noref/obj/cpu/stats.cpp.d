build-noref/obj/cpu/stats.cpp.o: cpu/stats.cpp cpu/stats.h
cpu/stats.h:

build-noref/obj/cpu/stream_bandwidth.cpp.o: cpu/stream_bandwidth.cpp \
 cpu/stream_bandwidth.h cpu/measured_once.h
cpu/stream_bandwidth.h:
cpu/measured_once.h:

build-noref/obj/models/roofline_stages.cpp.o: models/roofline_stages.cpp \
 models/roofline_stages.h
models/roofline_stages.h:

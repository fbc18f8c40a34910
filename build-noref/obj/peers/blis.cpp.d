build-noref/obj/peers/blis.cpp.o: peers/blis.cpp peers/blis.h
peers/blis.h:

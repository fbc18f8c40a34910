build-noref/obj/peers/openblas.cpp.o: peers/openblas.cpp peers/openblas.h \
 cpu/machine.h /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
 /usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h
peers/openblas.h:
cpu/machine.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h:
/usr/include/x86_64-linux-gnu/openblas-pthread/openblas_config.h:

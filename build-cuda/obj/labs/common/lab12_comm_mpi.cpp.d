build-cuda/obj/labs/common/lab12_comm_mpi.cpp.o: \
 labs/common/lab12_comm_mpi.cpp labs/common/lab12_comm.h \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h
labs/common/lab12_comm.h:
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h:
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h:

# Written by tools/configure.sh; delete it (or 'make clean') to configure again.
HAVE_CUDA := 0
NVCC := 
CUDA_HOME := 
DETECTED_CUDA_ARCH := 
BLAS_CFLAGS := -I/usr/include/x86_64-linux-gnu/openblas-pthread/ 
BLAS_LIBS := -L/usr/lib/x86_64-linux-gnu/openblas-pthread/ -lopenblas 
HAVE_BLIS := 1
BLIS_CFLAGS := -I/usr/include/x86_64-linux-gnu/blis-openmp
BLIS_LIBS := -lblis
HAVE_MPI := 1
MPI_CFLAGS := -I/usr/lib/x86_64-linux-gnu/openmpi/include -I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1
MPI_LIBS := -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi_cxx -lmpi
MPIRUN := /usr/bin/mpirun
HAVE_NCCL := 0
NCCL_CFLAGS := 
NCCL_LIBS := 

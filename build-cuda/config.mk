# Written by tools/configure.sh; delete it (or 'make clean') to configure again.
HAVE_CUDA := 1
NVCC := /usr/local/cuda/bin/nvcc
CUDA_HOME := /usr/local/cuda
DETECTED_CUDA_ARCH := 80
BLAS_CFLAGS := -I/usr/include/x86_64-linux-gnu/openblas-pthread/ 
BLAS_LIBS := -L/usr/lib/x86_64-linux-gnu/openblas-pthread/ -lopenblas 
HAVE_BLIS := 1
BLIS_CFLAGS := -I/usr/include/x86_64-linux-gnu/blis-openmp
BLIS_LIBS := -lblis
HAVE_MPI := 1
MPI_CFLAGS := -I/usr/lib/x86_64-linux-gnu/openmpi/include -I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1
MPI_LIBS := -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi_cxx -lmpi
MPIRUN := /usr/bin/mpirun
HAVE_NCCL := 1
NCCL_CFLAGS := -I/usr/local/cuda/include
NCCL_LIBS := -L/usr/local/cuda/lib64 -lnccl -Wl,-rpath,/usr/local/cuda/lib64

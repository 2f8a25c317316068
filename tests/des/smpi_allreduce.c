/*
 * tests/des/smpi_allreduce.c: a tiny MPI program for SimGrid's SMPI (compiled with smpicc
 * at test time): one MPI_Allreduce of a given number of bytes, timed from the moment the
 * last rank left a barrier (every rank has started) to the moment the last rank is done. Buffers are SMPI shared
 * allocations and the reduction operator does nothing, so that large sizes cost neither
 * memory nor host CPU: only the simulated network time matters.
 * Usage: smpi_allreduce BYTES   (prints the simulated seconds on rank 0)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void no_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long bytes = argc > 1 ? atol(argv[1]) : 1048576;
    int count = (int)(bytes / 4), rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    float *send = SMPI_SHARED_MALLOC((size_t)count * sizeof(float));
    float *recv = SMPI_SHARED_MALLOC((size_t)count * sizeof(float));
    MPI_Op op;
    MPI_Op_create(no_op, 1, &op);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(send, recv, count, MPI_FLOAT, op, MPI_COMM_WORLD);
    double t1 = MPI_Wtime(), start = 0, last = 0;
    MPI_Reduce(&t0, &start, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.9f\n", last - start);
    MPI_Op_free(&op);
    SMPI_SHARED_FREE(send);
    SMPI_SHARED_FREE(recv);
    MPI_Finalize();
    return 0;
}

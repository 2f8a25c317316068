/*
 * sim/planning/gpu_list.h: the GPU counts a command is asked for (--gpus), as every command
 * that takes a list of counts reads them.
 */
#ifndef GCSIM_PLANNING_GPU_LIST_H
#define GCSIM_PLANNING_GPU_LIST_H

/* A list of GPU counts: "1,2,4,8", with "..." continuing a geometric (or arithmetic)
 * progression up to the next value: "1,2,4,...,512", "8,16,...,64", "1,2,3,...,8".
 * Values must be >= 1 and strictly increasing. Fills at most max_counts values; returns
 * the number, or -1 with a message in err. */
int gpu_list_parse(const char *text, int *counts, int max_counts, char *err,
                   unsigned long err_len);

#endif

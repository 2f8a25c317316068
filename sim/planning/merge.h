/*
 * sim/planning/merge.h: joining the outputs of `gcsim sweep --shard K/N` into the output the
 * unsharded sweep writes (what `gcsim merge` does).
 *
 * Files are read one at a time (merge_add_file), then checked as a whole (merge_finish):
 * all CSV or all JSON lines, the same CSV header (or the same JSON members in every line),
 * the same total in `cases`, every case 0..cases-1 exactly once. The rows are then in case
 * order and merge_write prints them, the CSV header once. Every refusal is a message in
 * err naming the file and line (the caller prefixes its own name).
 */
#ifndef GCSIM_PLANNING_MERGE_H
#define GCSIM_PLANNING_MERGE_H

#include <stddef.h>
#include <stdio.h>

/* A row longer than this is not sweep output (rows are a few hundred bytes; a long error
 * message a few KiB): reading stops there instead of growing without bound (issue 15:
 * `merge /dev/zero` grew to 7.7 GB). */
#define MERGE_MAX_LINE_BYTES (1L << 20)

typedef struct merge_rows merge_rows;

merge_rows *merge_new(void);
void merge_free(merge_rows *m);

/* Reads one shard file; file_no orders rows of the same case from different files (its
 * position on the command line). Returns 0, or -1 with the reason in err. file must stay
 * valid until merge_free (messages name it). */
int merge_add_file(merge_rows *m, const char *file, int file_no, char *err, size_t err_len);

/* Once every file is read: sorts the rows by case and checks that each case is there
 * exactly once. Returns 0, or -1 with the reason in err. */
int merge_finish(merge_rows *m, char *err, size_t err_len);

/* The number of rows read so far, and the cases the sweep had (0 before any row). */
long long merge_row_count(const merge_rows *m);
long long merge_case_count(const merge_rows *m);

/* Writes the merged output (after merge_finish). Returns 0, or -1 when out reports an
 * error (errno as the C library left it). */
int merge_write(const merge_rows *m, FILE *out);

#endif

/*
 * traces/traces_internal.h: helpers shared by the readers and the writer of traces/.
 * Not part of the public interface.
 */
#ifndef GCSIM_TRACES_INTERNAL_H
#define GCSIM_TRACES_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "traces.h"

/* Formats a message into err (if err_len > 0) and returns -1. */
int gc_trace_fail(char *err, size_t err_len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

char *gc_trace_strdup(const char *s);

/* Reads a whole regular file of at most GC_TRACE_MAX_FILE_BYTES into memory (freed with
 * gc_trace_free_file). An empty file gives data NULL and bytes 0. */
int gc_trace_read_file(const char *path, const uint8_t **data, size_t *bytes, char *err,
                       size_t err_len);
void gc_trace_free_file(const uint8_t *data);

/* Parse the bytes of a file in f->data; fill f->tensors (any order) and f->meta. */
int gc_trace_parse_safetensors(gc_trace_file *f, char *err, size_t err_len);
int gc_trace_parse_npy(gc_trace_file *f, char *err, size_t err_len);

/* Little-endian loads that do not care about alignment. */
uint64_t gc_trace_le64(const uint8_t *p);
uint32_t gc_trace_le32(const uint8_t *p);
uint16_t gc_trace_le16(const uint8_t *p);

#endif

/* sim/planning/gpu_list.c: --gpus lists (gpu_list.h). */
#include "gpu_list.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plain_number.h"

int gpu_list_parse(const char *text, int *counts, int max_counts, char *err,
                       unsigned long err_len)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        snprintf(err, err_len, "--gpus: list too long");
        return -1;
    }
    strcpy(buf, text);
    size_t len = strlen(buf);
    if (len == 0 || buf[0] == ',' || buf[len - 1] == ',' || strstr(buf, ",,")) {
        snprintf(err, err_len, "--gpus: \"%s\" has an empty item", text);
        return -1;
    }
    int n = 0;
    bool pending_ellipsis = false;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "...") == 0) {
            if (n < 2 || pending_ellipsis) {
                snprintf(err, err_len, "--gpus: \"...\" needs two values before it, as in "
                                       "1,2,4,...,512");
                return -1;
            }
            pending_ellipsis = true;
            continue;
        }
        long long v;
        if (!gcsim_plain_int(tok, 1, 1 << 24, &v)) {
            snprintf(err, err_len, "--gpus: \"%s\" is not a GPU count (a whole number from 1 to "
                                   "%d)", tok, 1 << 24);
            return -1;
        }
        if (pending_ellipsis) {
            long long a = counts[n - 2], b = counts[n - 1];
            bool geometric = a > 0 && b % a == 0 && b / a > 1;
            for (;;) {
                long long next = geometric ? b * (b / a) : b + (b - a);
                if (next >= v)
                    break;
                if (n >= max_counts) {
                    snprintf(err, err_len, "--gpus: more than %d counts", max_counts);
                    return -1;
                }
                counts[n++] = (int)next;
                a = b;
                b = next;
            }
            pending_ellipsis = false;
        }
        if (n > 0 && v <= counts[n - 1]) {
            snprintf(err, err_len, "--gpus: counts must increase (%lld after %d)", v,
                     counts[n - 1]);
            return -1;
        }
        if (n >= max_counts) {
            snprintf(err, err_len, "--gpus: more than %d counts", max_counts);
            return -1;
        }
        counts[n++] = (int)v;
    }
    if (pending_ellipsis) {
        snprintf(err, err_len, "--gpus: \"...\" must be followed by a last value");
        return -1;
    }
    if (n == 0) {
        snprintf(err, err_len, "--gpus: empty list");
        return -1;
    }
    return n;
}

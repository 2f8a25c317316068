/*
 * tests/fuzz/fuzz_size_list.c: the message-size list of `gcsim collective --sizes`
 * (gcsim_parse_size_list, sim/config/size_list.h) on arbitrary text.
 *
 * Contract checked: a failure returns -1 with a message that starts with "--sizes:"; a
 * success returns 1 to max sizes, each a whole number of bytes in [1 B, 2^50 B], and a
 * MIN:MAX range doubles from one size to the next.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz_target.h"
#include "size_list.h"

#define MAX_SIZES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    double sizes[MAX_SIZES];
    char msg[256];
    msg[0] = '\0';
    int n = gcsim_parse_size_list(text, sizes, MAX_SIZES, msg, sizeof msg);
    if (n < 0) {
        FUZZ_REQUIRE(n == -1, "return %d", n);
        fuzz_check_message(msg, sizeof msg, "--sizes:");
        FUZZ_REQUIRE(strncmp(msg, "--sizes:", 8) == 0, "message \"%s\"", msg);
        free(text);
        return 0;
    }
    FUZZ_REQUIRE(n >= 1 && n <= MAX_SIZES, "%d sizes", n);
    bool range = strchr(text, ':') != NULL;
    for (int k = 0; k < n; k++) {
        FUZZ_REQUIRE(sizes[k] >= 1 && sizes[k] <= GCSIM_SIZE_LIST_MAX_BYTES &&
                         sizes[k] == floor(sizes[k]),
                     "size %d = %.17g", k, sizes[k]);
        if (range && k > 0)
            FUZZ_REQUIRE(sizes[k] == 2 * sizes[k - 1], "range step %d: %.17g after %.17g", k,
                         sizes[k], sizes[k - 1]);
    }
    free(text);
    return 0;
}

/* sim/collectives/slot_table.c: the slot array of an open-addressing table (slot_table.h). */
#include "slot_table.h"

#include <stdlib.h>
#include <string.h>

int *gcsim_slot_table(size_t cap, int n, gcsim_slot_hash_fn hash, const void *entries)
{
    int *slot = malloc(sizeof(int) * cap);
    if (!slot)
        return NULL;
    memset(slot, 0xff, sizeof(int) * cap); /* every int -1 */
    for (int k = 0; k < n; k++) {
        size_t i = hash(entries, k) & (cap - 1);
        while (slot[i] >= 0)
            i = (i + 1) & (cap - 1);
        slot[i] = k;
    }
    return slot;
}

/*
 * sim/collectives/slot_table.h: the slot array of an open-addressing hash table whose
 * entries live in an array of their own (the costing code's class and sequence tables).
 */
#ifndef GCSIM_SLOT_TABLE_H
#define GCSIM_SLOT_TABLE_H

#include <stddef.h>

/* The hash of entry `id` of the table's entry array `entries`. */
typedef size_t (*gcsim_slot_hash_fn)(const void *entries, int id);

/* A slot array of cap entries (a power of two) holding ids 0 .. n-1, each at the first free
 * slot from its hash on (linear probing), -1 in the free ones; the table grows by building
 * a larger one. NULL when out of memory. */
int *gcsim_slot_table(size_t cap, int n, gcsim_slot_hash_fn hash, const void *entries);

#endif

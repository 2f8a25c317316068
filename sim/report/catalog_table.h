/*
 * sim/report/catalog_table.h: `gcsim catalog`'s output (the listing is
 * sim/planning/catalog_list.h): one text table per kind (descriptions cut so a line fits
 * 100 columns; whole under --wide), or one JSON/CSV table of every kind listed with a
 * `kind` column and the descriptions whole.
 */
#ifndef GCSIM_REPORT_CATALOG_TABLE_H
#define GCSIM_REPORT_CATALOG_TABLE_H

#include <stdio.h>

#include "catalog_list.h"
#include "report.h"

/* Writes the lists to out in format; kind: the kind asked (GCSIM_CATALOG_KINDS: all), named
 * in the JSON meta. -1 when out cannot be written (errno), else 0. */
int catalog_table_write(FILE *out, const gcsim_catalog_list *lists, int n_lists,
                        report_format format, int kind);

#endif

/*
 * sim/collectives/closed_classes.c: the pieces the closed-form files (closed_ring.c,
 * closed_hd.c, closed_ps.c, closed_hier.c) share: a list of distinct flow classes and
 * appending a phase made of them (closed_form.h). Apart from closed_form.c, which calls
 * those files, so that no two files call each other.
 */
#include <stdlib.h>
#include <string.h>

#include "closed_form.h"

int gcsim_class_list_add(gcsim_class_list *l, gcsim_flow_class c)
{
    for (int k = 0; k < l->n; k++) {
        const gcsim_flow_class *x = &l->v[k];
        if (x->latency_s == c.latency_s && x->Bps == c.Bps && x->share == c.share &&
            x->k0 == c.k0 && x->first == c.first && x->last == c.last)
            return 0;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        gcsim_flow_class *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = c;
    return 0;
}

void gcsim_class_list_free(gcsim_class_list *l)
{
    free(l->v);
    *l = (gcsim_class_list){0};
}

void gcsim_closed_init(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t)
{
    memset(s, 0, sizeof *s);
    s->collective = c;
    s->chunks = 1;
    s->endpoints = t->gpus;
    s->decodes = 1;
}

int gcsim_closed_add_phase(gcsim_schedule *s, const char *name, int steps, double dk,
                           bool reduce, gcsim_class_list *l)
{
    gcsim_phase *ph = NULL;
    if (steps >= 1 && l->n > 0)
        ph = gcsim_schedule_new_phase(s, name, steps, dk, reduce);
    if (ph) {
        ph->n_classes = l->n;
        ph->classes = l->v;
    } else {
        free(l->v);
    }
    int rc = ph || steps < 1 || l->n == 0 ? 0 : -1;
    *l = (gcsim_class_list){0};
    return rc;
}

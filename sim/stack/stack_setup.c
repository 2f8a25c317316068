/*
 * sim/stack/stack_setup.c: a stack set up for a compressor on a platform: the exchange it
 * runs and a description of what it charges (stack.h).
 */
#include <stdio.h>
#include <string.h>

#include "compressor_file.h"
#include "stack.h"
#include "stack_cpu_codec.h"
#include "stack_gpu_passes.h"
#include "stack_leader.h"

const char *gcsim_stack_choice(const char *given, const gcsim_platform *p)
{
    if (given && *given)
        return given;
    if (p && p->stack[0])
        return p->stack;
    return GCSIM_DEFAULT_STACK;
}

void gcsim_stack_blame_platform(const char *given, const gcsim_platform *p, gcsim_error *err)
{
    if ((given && *given) || !p || !p->stack[0])
        return;
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err->message);
    gcsim_fail(err, "%s: $.stack: %.900s", p->source_path, why);
}

/* The laws entry e's ops (and error feedback's, for an "ef+" spec) use, each once, in the
 * order the ops name them; returns how many (at most GCSIM_STACK_MAX_LAWS). */
static int entry_laws(const gcsim_stack *st, const gcsim_stack_entry *e, const char *spec,
                      int laws[GCSIM_STACK_MAX_LAWS])
{
    const gcsim_stack_ops *lists[5] = {&e->encode, &e->unpack, &e->between, &e->decode,
                                       strncmp(spec, "ef+", 3) == 0 ? &st->error_feedback : NULL};
    bool seen[GCSIM_STACK_MAX_LAWS] = {false};
    int n = 0;
    for (int i = 0; i < 5; i++)
        for (int k = 0; lists[i] && k < lists[i]->n; k++) {
            int l = lists[i]->ops[k].law;
            if (!seen[l]) {
                seen[l] = true;
                laws[n++] = l;
            }
        }
    return n;
}

/* Appends "LEAD ITEM" or ", ITEM" to buf at *len; false when buf is full (the note is cut
 * short: it is for reading only). */
static bool note_append(char *buf, size_t size, size_t *len, const char *lead, const char *name,
                        const char *how)
{
    int n = snprintf(buf + *len, size - *len, "%s%s %s", *len ? ", " : lead, name, how);
    if (n < 0 || (size_t)n >= size - *len)
        return false;
    *len += (size_t)n;
    return true;
}

/* "; by setting: LAW PARAM V: how, ..." for the laws by setting that entry e's ops use at
 * spec's setting (docs/stacks.md, "Laws by setting"); empty when none has settings. */
static void setting_note(const gcsim_stack *st, const gcsim_stack_entry *e, const char *spec,
                         char *buf, size_t size)
{
    buf[0] = '\0';
    gcsim_stack_setting set = gcsim_stack_setting_of(spec);
    int laws[GCSIM_STACK_MAX_LAWS];
    int n_laws = entry_laws(st, e, spec, laws);
    size_t len = 0;
    for (int i = 0; i < n_laws; i++) {
        const gcsim_stack_law *law = &st->laws[laws[i]];
        if (law->parameter == STACK_SETTING_NONE)
            continue;
        char how[200];
        gcsim_stack_law_basis(law, gcsim_stack_law_setting(law, &set), how, sizeof how);
        if (!note_append(buf, size, &len, "; by setting: ", law->name, how))
            return;
    }
}

/* "; not measured: LAW BASIS, ..." for the laws without settings that entry e's ops use
 * whose basis is not "measured" (a law modelled from a kernel's passes: its
 * $.laws.NAME.basis); empty when there is none. */
static void modelled_note(const gcsim_stack *st, const gcsim_stack_entry *e, const char *spec,
                          char *buf, size_t size)
{
    buf[0] = '\0';
    int laws[GCSIM_STACK_MAX_LAWS];
    int n_laws = entry_laws(st, e, spec, laws);
    size_t len = 0;
    for (int i = 0; i < n_laws; i++) {
        const gcsim_stack_law *law = &st->laws[laws[i]];
        if (law->parameter != STACK_SETTING_NONE || strcmp(law->basis[0], "measured") == 0)
            continue;
        if (!note_append(buf, size, &len, "; not measured: ", law->name, law->basis[0]))
            return;
    }
}

static const char *exchange_word(gcsim_stack_exchange e)
{
    switch (e) {
    case STACK_EXCHANGE_ALLREDUCE: return "all-reduces";
    case STACK_EXCHANGE_ALLGATHER: return "all-gathers";
    case STACK_EXCHANGE_POWERSGD_HOOK: return "runs PyTorch's PowerSGD hook (3 dependent all-reduces per bucket)";
    case STACK_EXCHANGE_POWERSGD_BLOCKING: return "runs PowerSGD with 2 blocking all-reduces per matrix in the gradient hook";
    }
    return "?";
}

int gcsim_stack_setup_init(gcsim_stack_setup *ss, const gcsim_platform *p, const gcsim_stack *st,
                           const char *spec, gcsim_exchange requested,
                           const gcsim_collective *cli_collective, gcsim_error *err)
{
    memset(ss, 0, sizeof *ss);
    ss->stack = st;
    if (gcsim_stack_entry_for(st, spec, &ss->entry, err))
        return -1;
    const gcsim_stack_entry *e = ss->entry;
    gcsim_collective platform_c = gcsim_platform_default_collective(p);
    bool platform_names = p->collective[0] &&
                          gcsim_collective_exchange(platform_c) != GCSIM_EXCHANGE_ALLREDUCE;
    ss->tune = e && !cli_collective && !p->collective[0];
    gcsim_exchange asked = requested;
    bool stack_decides = e && requested == GCSIM_EXCHANGE_AUTO && !cli_collective && !platform_names;
    if (stack_decides)
        asked = e->exchange == STACK_EXCHANGE_ALLGATHER ? GCSIM_EXCHANGE_ALLGATHER
                                                        : GCSIM_EXCHANGE_ALLREDUCE;
    gcsim_collective own;
    /* a codec-model stack with its own all-reduce for quantized payloads (Bagua) runs them
     * with it when nothing else is asked */
    if (!e && requested == GCSIM_EXCHANGE_AUTO && !platform_names &&
        stack_leader_collective(st, spec, cli_collective || p->collective[0], &own))
        asked = GCSIM_EXCHANGE_ALLREDUCE;
    const char *measured_gpu;
    if (e && gcsim_compressor_file_codec(spec, &measured_gpu))
        /* a stack prices each op by its own measured laws; a description's per-tensor
         * costs are a fused codec's */
        return gcsim_fail(err, "%s: $.codec.measured: stack %s prices its codec ops by its own "
                               "measured laws (%s), not by a description's per-tensor costs: "
                               "use --stack fused, or leave $.codec.measured out to run as %s",
                          gcsim_compressor_file_of(spec), st->name, st->path, e->compressor);
    if (stack_decides && !gcsim_compressor_allows(spec, asked)) {
        /* a description that lists fewer exchanges than the stack's program uses */
        const char *file = gcsim_compressor_file_of(spec);
        return gcsim_fail(err, "%s: $.exchanges: stack %s %s %s (its program for this payload, "
                               "%s), which the description does not list",
                          file ? file : "--compressor", st->name, exchange_word(e->exchange),
                          e->compressor, st->path);
    }
    if (gcsim_codec_setup_init(&ss->cs, p, spec, asked, cli_collective, err))
        return -1;
    /* a long stack name may cut the line short: it is for reading only */
    if (stack_decides &&
        snprintf(ss->cs.exchange.why, sizeof ss->cs.exchange.why, "stack %s %s %s", st->name,
                 exchange_word(e->exchange), e->compressor) < 0)
        ss->cs.exchange.why[0] = '\0';
    bool powersgd = e && (e->exchange == STACK_EXCHANGE_POWERSGD_HOOK ||
                          e->exchange == STACK_EXCHANGE_POWERSGD_BLOCKING);
    if (powersgd && ss->cs.exchange.exchange != GCSIM_EXCHANGE_ALLREDUCE &&
        ss->cs.exchange.exchange != GCSIM_EXCHANGE_PATTERN)
        return gcsim_fail(err, "stack %s runs PowerSGD as all-reduces of its factors: --exchange "
                               "%s does not apply (use --exchange auto or allreduce, or --stack "
                               "fused)",
                          st->name, gcsim_exchange_name(ss->cs.exchange.exchange));
    /* Named (the stack's own is in its lists by construction, stack_exchanges.c): run as
     * asked, a what-if the commands warn about; searches skip it (exchange_best.c). */
    gcsim_stack_unimplemented(st, spec, ss->cs.exchange.exchange, ss->unimplemented,
                              sizeof ss->unimplemented);
    /* a stack with its own schedule for quantized all-reduces (Bagua's leader exchange) */
    if (ss->cs.exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE &&
        stack_leader_collective(st, spec, cli_collective || p->collective[0], &own)) {
        ss->cs.exchange.collective = own;
        ss->tune = false;
        size_t used = strlen(ss->cs.exchange.why);
        snprintf(ss->cs.exchange.why + used, sizeof ss->cs.exchange.why - used,
                 "%sstack %s runs it as %s", used ? "; " : "", st->name,
                 gcsim_collective_name(own));
    }
    /* a stack whose all-gathers go through host memory and OpenMPI (Horovod without a GPU
     * all-gather op): its calls run that schedule (sim/step/program_stack.c), said here */
    if (e && ss->cs.exchange.exchange == GCSIM_EXCHANGE_ALLGATHER &&
        st->allgather == COLLECTIVE_MPI_HOST_ALLGATHER) {
        size_t used = strlen(ss->cs.exchange.why);
        snprintf(ss->cs.exchange.why + used, sizeof ss->cs.exchange.why - used,
                 "%sstack %s runs it as %s", used ? "; " : "", st->name,
                 gcsim_collective_name(COLLECTIVE_MPI_HOST_ALLGATHER));
    }
    if (ss->cs.exchange.exchange == GCSIM_EXCHANGE_PATTERN) /* the paper's own model */
        ss->entry = e = NULL, ss->tune = false;
    if (!e) { /* the fused stack charges the codec model (or the platform's profile) */
        if (stack_cpu_codec_apply(st, spec, &ss->cs.codec, err)) /* BytePS: on the CPU */
            return -1;
        /* DeepSpeed: unfused ops at the GPU's memory bandwidth (the platform's, else the
         * GPU type's datasheet figure the codec model uses) */
        double mem_Bps = p->gpu.memory_Bps > 0 ? p->gpu.memory_Bps : ss->cs.codec.gpu.mem_Bps;
        if (stack_gpu_passes_apply(st, spec, mem_Bps, &ss->cs.codec, err))
            return -1;
        snprintf(ss->description, sizeof ss->description, "%s", ss->cs.codec.description);
        return 0;
    }
    gcsim_gpu_params target;
    const gcsim_gpu_params *gpu = &target, *ref;
    if (gcsim_stack_gpu(p, &target, err)) {
        if (!gcsim_stack_entry_has_ops(st, e))
            gpu = NULL; /* nothing to price: a plain all-reduce */
        else
            return -1;
    }
    if (!gpu) {
        if (snprintf(ss->description, sizeof ss->description, "stack %s (%s): %s %s, no codec "
                     "work; %s", st->name, st->path, e->compressor, exchange_word(e->exchange),
                     e->source) < 0)
            ss->description[0] = '\0';
        return 0;
    }
    double ratio = 1.0;
    if (st->reference_gpu[0] && gcsim_gpu_params_find(st->reference_gpu, &ref, err) == 0)
        ratio = ref->mem_Bps / gpu->mem_Bps;
    /* the host model (stack_host.c): eager laws as measured, or a graph's time per op */
    char host[160];
    if (st->graph_host)
        snprintf(host, sizeof host, "GPU time per call measured on %s, host time %.3g us per op "
                 "(a graph-executed framework, $.host; the larger charged)",
                 st->reference_gpu[0] ? st->reference_gpu : "-", st->graph_op_host_s * 1e6);
    else
        snprintf(host, sizeof host, "op costs measured on %s (host and GPU time per call, the "
                 "larger charged)",
                 st->reference_gpu[0] ? st->reference_gpu : "-");
    char note[1024], modelled[256];
    setting_note(st, e, spec, note, sizeof note);
    modelled_note(st, e, spec, modelled, sizeof modelled);
    if (snprintf(ss->description, sizeof ss->description,
                 "stack %s (%s): %s %s; %s, GPU work scaled to %s by "
                 "memory bandwidth (x %.3g)%s%s%s%s; %s",
                 st->name, st->path, e->compressor, exchange_word(e->exchange), host,
                 gpu->type, ratio, note, modelled,
                 st->batched_decode && e->exchange == STACK_EXCHANGE_ALLGATHER
                     ? "; gathered payloads decoded in one batched pass"
                     : "",
                 /* stack_hook.c: what program_stack.c hides of the encode */
                 st->hook_host_queued && !e->size_exchange && !e->host_sync &&
                         (e->exchange == STACK_EXCHANGE_ALLREDUCE ||
                          e->exchange == STACK_EXCHANGE_ALLGATHER)
                     ? "; the encode's host time charged only beyond the backward queued "
                       "ahead of the hook ($.hook_host)"
                     : "",
                 e->source) < 0)
        ss->description[0] = '\0';
    return 0;
}

void gcsim_stack_setup_apply(const gcsim_stack_setup *ss, gcsim_scenario *s)
{
    gcsim_codec_setup_apply(&ss->cs, s);
    s->stack = ss->stack;
    s->tune_allreduce = ss->tune;
}

#include "report_emit.h"

#include <errno.h>
#include <stdio.h>

#include "atomic_file.h"

/* the process exit codes of sim/cli/commands.h that report_emit returns */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 2 };

int report_emit(const report *r, report_format format, const char *output, const char *who)
{
    char msg[1024];
    if (!output) {
        errno = 0;
        if (report_write(r, format, stdout) || fflush(stdout)) {
            fprintf(stderr, "gcsim %s: cannot write to standard output: %s\n", who,
                    atomic_file_reason(errno));
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    atomic_file f;
    if (atomic_file_open(&f, output, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return EXIT_BAD_INPUT;
    }
    errno = 0;
    if (report_write(r, format, f.stream)) {
        int saved = errno;
        atomic_file_abort(&f);
        fprintf(stderr, "gcsim %s: %s: write failed: %s\n", who, output, atomic_file_reason(saved));
        return EXIT_BAD_INPUT;
    }
    if (atomic_file_commit(&f, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int report_emit_text(const char *path, const char *text, const char *who)
{
    char msg[8192];
    atomic_file f;
    if (atomic_file_open(&f, path, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return -1;
    }
    if ((errno = 0), fputs(text, f.stream) == EOF) {
        int saved = errno;
        atomic_file_abort(&f);
        fprintf(stderr, "gcsim %s: %s: write failed: %s\n", who, path, atomic_file_reason(saved));
        return -1;
    }
    if (atomic_file_commit(&f, msg, sizeof msg)) {
        fprintf(stderr, "gcsim %s: %s\n", who, msg);
        return -1;
    }
    return 0;
}

int report_file_usable(const char *path, const char *who, const char *option)
{
    char msg[1024];
    if (!path || atomic_file_probe(path, msg, sizeof msg) == 0)
        return 0;
    fprintf(stderr, "gcsim %s: %s%s%s\n", who, option ? option : "", option ? ": " : "", msg);
    return -1;
}

static const char *codec_source_name(gcsim_codec_cost_source s)
{
    switch (s) {
    case CODEC_COST_NONE: return "none";
    case CODEC_COST_MODEL: return "model";
    case CODEC_COST_PROFILE: return "profile";
    case CODEC_COST_THROUGHPUT: return "throughput";
    }
    return "?";
}

void report_meta_scenario(report *r, const gcsim_platform *pf, const gcsim_model *m,
                          const gcsim_payload_plan *pl, const gcsim_stack_setup *ss)
{
    if (pf) {
        report_meta_str(r, "platform.name", pf->name);
        report_meta_str(r, "platform.file", pf->source_path);
    }
    if (m) {
        report_meta_str(r, "model.name", m->name);
        report_meta_str(r, "model.file", m->source_path);
        report_meta_int(r, "model.parameters", gcsim_model_params(m));
    }
    if (pl) {
        report_meta_num(r, "model.dense_bytes", pl->dense_bytes);
        report_meta_str(r, "compressor.spec", pl->spec);
        report_meta_num(r, "compressor.payload_bytes", pl->total_bytes);
        report_meta_num(r, "compressor.ratio_fp32",
                        pl->total_bytes > 0 ? pl->dense_bytes / pl->total_bytes : 0.0);
        report_meta_str(r, "payload_source.kind", pl->measured ? "traces" : "exact");
        report_meta_str(r, "payload_source.method", pl->method);
    }
    if (ss) {
        const gcsim_codec_setup *cs = &ss->cs;
        report_meta_str(r, "stack.name", ss->stack->name);
        report_meta_str(r, "stack.file", ss->stack->path);
        report_meta_str(r, "exchange", gcsim_exchange_name(cs->exchange.exchange));
        report_meta_str(r, "collective", gcsim_collective_name(cs->exchange.collective));
        report_meta_str(r, "codec_cost.source",
                        ss->entry ? "stack" : codec_source_name(cs->codec.source));
        report_meta_str(r, "codec_cost.description", ss->description);
    }
}

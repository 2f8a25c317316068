/* compressors/summary.c: one line per registered compressor (at most 60 characters, so
 * `gcsim catalog`'s table shows it whole). Kept beside the registry (compressor.c); a codec
 * without a line is caught by tests/planning/test_catalog_list.c. The full story of each is
 * docs/compressors.md. */
#include <string.h>

#include "compressor.h"

static const struct {
    const char *name;
    const char *summary;
} summaries[] = {
    {"none", "fp32 as it is, 4 bytes per element: the baseline"},
    {"fp16", "IEEE half precision, 2 bytes per element"},
    {"bf16", "bfloat16 (fp32's upper half), 2 bytes per element"},
    {"terngrad", "TernGrad (Wen 2017): stochastic {-s, 0, s}, 2 bits each"},
    {"qsgd", "QSGD (Alistarh 2017): stochastic s levels per sign, bucketed"},
    {"dgc", "DGC (Lin 2018): top 0.1% with momentum correction"},
    {"topk", "the k largest magnitudes, index-value pairs, no state"},
    {"randomk", "k random elements times n/k (unbiased), index-value pairs"},
    {"threshold", "elements above a fixed magnitude (Strom 2015), sparse"},
    {"orq", "ORQ: s optimal levels per bucket, stochastic rounding"},
    {"linear", "s levels at the bucket's quantiles (ORQ paper's baseline)"},
    {"bingrad-b", "BinGrad-b: two levels per bucket, the means about a split"},
    {"bingrad-pb", "BinGrad-pb: levels -b1, b1 per bucket, stochastic between"},
    {"signsgd", "scaled sign: 1 bit per element times the mean magnitude"},
    {"onebit", "1-bit SGD (Seide 2014): 1 bit per element, error feedback"},
    {"ecq", "ECQ-SGD (Wu 2018): QSGD of gradient plus accumulated error"},
    {"powersgd", "PowerSGD (Vogels 2019): rank-r factors, error feedback"},
};

const char *gc_compressor_summary(const char *name)
{
    for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++)
        if (strcmp(summaries[i].name, name) == 0)
            return summaries[i].summary;
    return NULL;
}

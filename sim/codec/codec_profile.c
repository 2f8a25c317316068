/*
 * sim/codec/codec_profile.c: a measured codec profile's entry as a codec cost (docs/codec.md,
 * "Profile format"); the file is read and checked by sim/config/codec_profile_file.c.
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "codec_profile_file.h"

int gcsim_codec_profile_load(gcsim_codec *c, const char *path, const char *spec,
                             const char *gpu_type, gcsim_error *err)
{
    gcsim_codec_profile_entry e;
    int rc = gcsim_codec_profile_read(path, gpu_type, spec, &e, err);
    if (rc)
        return rc;
    gcsim_codec tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.n_points = e.n_points;
    memcpy(tmp.elements, e.elements, sizeof tmp.elements);
    memcpy(tmp.encode_s, e.encode_s, sizeof tmp.encode_s);
    memcpy(tmp.decode_s, e.decode_s, sizeof tmp.decode_s);
    tmp.source = CODEC_COST_PROFILE;
    snprintf(tmp.description, sizeof tmp.description,
             "%s profile %s, $.entries[%d] (%s)%s%s; linear in size between points", e.kind,
             path, e.entry, e.measured_as, e.date[0] ? ", " : "", e.date);
    snprintf(tmp.spec, sizeof tmp.spec, "%s", spec);
    *c = tmp;
    return 0;
}

/* sim/codec/codec_internal.h: what the files of sim/codec share. */
#ifndef GCSIM_CODEC_INTERNAL_H
#define GCSIM_CODEC_INTERNAL_H

#include "codec.h"

double gcsim_codec_model_encode_s(const gcsim_codec *c, double n, double payload_bytes);
double gcsim_codec_model_decode_s(const gcsim_codec *c, double n, double payload_bytes);

#endif

/* sim/config/roofline_fit.h: written by models/fit_roofline.py, do not edit.
 * Fitted: efficiencies of the roofline compute model (roofline.h), least squares
 * on log time over 54 measured points of the catalog's profiles:
 *   alexnet gtx1080 fp32 b16
 *   alexnet h100 tf32 b64
 *   alexnet h100 tf32 b128
 *   alexnet h100 tf32 b256
 *   alexnet h100 bf16 b128
 *   alexnet h100 bf16 b256
 *   bert-base h100 tf32 b32
 *   bert-base h100 tf32 b64
 *   bert-base h100 bf16 b32
 *   bert-base h100 bf16 b64
 *   bert-large h100 tf32 b4
 *   bert-large h100 tf32 b8
 *   bert-large h100 tf32 b16
 *   googlenet gtx1080 fp32 b16
 *   gpt2-small h100 tf32 b8
 *   gpt2-small h100 tf32 b16
 *   gpt2-small h100 bf16 b8
 *   gpt2-small h100 bf16 b16
 *   resnet-101 v100 fp32 b16
 *   resnet-101 h100 tf32 b32
 *   resnet-101 h100 tf32 b64
 *   resnet-101 h100 tf32 b128
 *   resnet-101 h100 bf16 b64
 *   resnet-101 h100 bf16 b128
 *   resnet-50 gtx1080 fp32 b16
 *   resnet-50 p100 fp32 b32
 *   resnet-50 v100 fp32 b112
 *   resnet-50 a100 fp32 b256
 *   resnet-50 h100 tf32 b32
 *   resnet-50 h100 tf32 b64
 *   resnet-50 h100 tf32 b128
 *   resnet-50 h100 tf32 b256
 *   resnet-50 h100 bf16 b64
 *   resnet-50 h100 bf16 b128
 *   resnet-50 h100 bf16 b256
 *   vgg-16 gtx1080 fp32 b16
 *   vgg-16 v100 fp32 b16
 *   vgg-16 h100 tf32 b16
 *   vgg-16 h100 tf32 b32
 *   vgg-16 h100 tf32 b64
 *   vgg-16 h100 bf16 b16
 *   vgg-16 h100 bf16 b32
 *   vgg-16 h100 bf16 b64
 *   vgg-a h100 tf32 b16
 *   vgg-a h100 tf32 b32
 *   vgg-a h100 tf32 b64
 *   vgg-a h100 bf16 b16
 *   vgg-a h100 bf16 b32
 *   vgg-a h100 bf16 b64
 *   vit-b16 h100 tf32 b32
 *   vit-b16 h100 tf32 b64
 *   vit-b16 h100 tf32 b128
 *   vit-b16 h100 bf16 b64
 *   vit-b16 h100 bf16 b128
 * Leave-one-out errors are tabulated in docs/catalog.md. */
#ifndef GCSIM_CONFIG_ROOFLINE_FIT_H
#define GCSIM_CONFIG_ROOFLINE_FIT_H

#define GCSIM_ROOFLINE_EFF_CONV 0.2427
#define GCSIM_ROOFLINE_EFF_MATMUL 0.1429
#define GCSIM_ROOFLINE_FIT_POINTS 54

#endif

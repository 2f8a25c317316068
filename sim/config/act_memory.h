/*
 * sim/config/act_memory.h: the activation bytes a training step holds at its peak, per
 * activation-checkpointing policy, from the tensors each policy saves (issue 46).
 *
 * Without checkpointing the model's activation_bytes_per_sample is used as before. With a
 * policy, on a decoder whose shapes can be read from its layers (tokens_per_sample s,
 * blocks of an attention layer of `rows` h, each layer's matmul outputs from its weights,
 * the head's vocabulary V from its forward FLOPs 2 s h V), per sample, with e the
 * element bytes of the model's precision:
 *
 *   full        each unit's input, e s h per block and one for the head
 *   every:N,    e s h for the c blocks that recompute whole, the file's per-block share
 *   fraction:P  (activation_bytes_per_sample less its 4 s V logits, over the blocks) for
 *               the others
 *   op          per block: its input e s h, the outputs of the odd matmuls (torchtitan
 *               saves every aten.mm output except every second one) and attention's output
 *
 * plus the larger of (a) the loss, 12 s V bytes: eager cross-entropy in fp32 (torchtitan's
 * `cross_entropy(pred.float())`) holds the log-softmax output, its gradient and the input's
 * gradient at once in backward, and (b) the one block being recomputed in backward (the
 * file's per-block share; under op the part op does not save). Sources in act_memory.c.
 * The result is never above the estimate without checkpointing.
 *
 * Models without those shapes (no tokens_per_sample, no head) keep the earlier count:
 * full 2/34 of the activations plus one unit's, every:N and fraction:P that for the blocks
 * that recompute whole; op all of them (an upper bound).
 */
#ifndef GCSIM_CONFIG_ACT_MEMORY_H
#define GCSIM_CONFIG_ACT_MEMORY_H

#include "act_ckpt.h"
#include "model.h"

/* Bytes per sample; ckpt NULL: not checkpointed (the model's activation_bytes_per_sample). */
double gcsim_act_bytes_per_sample(const gcsim_model *m, const gcsim_act_ckpt *ckpt);

/* Whether the policy's estimate is counted from its saved tensors (a decoder whose shapes
 * the layers give); 0: the earlier per-policy fractions (op: counted whole). */
int gcsim_act_memory_from_saved(const gcsim_model *m);

#endif

"""The seeded random sample of gcsim cases the property suite checks, and the command
lines of one case for predict, sweep and plan (the same options spelt each command's way).

A case is drawn from the catalog (platforms/, models/), a compressor, a stack, a GPU
count, a collective, the training options (sharding, gradient accumulation, activation
checkpointing) and an engine (analytic, a few DES). Draws that gcsim refuses (exit 2: a
stack that cannot run the compressor, a configuration over the GPU's memory, the papers'
patterns with training options) are drawn again: refusals are another suite's subject
(tests/cli, tests/badinputs)."""
import random

PLATFORMS = ["a100-40g-400g", "a100-hdr", "cloud-v100-100gbe", "cloud-v100-25gbe",
             "dgc-fig6-10gbe", "dgc-fig6-1gbe", "ecq-fig6", "h100-400g", "h100-ndr",
             "h200-ndr", "terngrad-fig5a", "terngrad-fig5b", "terngrad-testbed"]
# The 70B and 175B models fit only sharded over many GPUs: most draws would be refused.
MODELS = ["alexnet", "bert-base", "bert-large", "googlenet", "gpt2-small", "gpt2-xl",
          "llama-2-7b", "llama-3-8b", "lstm-ptb", "resnet-50", "resnet-101", "vgg-16",
          "vgg-a", "vit-b16", "transformer-1200m"]
COMPRESSORS = ["none", "none", "fp16", "bf16", "topk:ratio=0.01", "dgc", "qsgd", "terngrad",
               "signsgd", "powersgd", "randomk:ratio=0.01", "onebit", "threshold"]
STACKS = [None, None, "pytorch-ddp", "horovod", "fused"]
COLLECTIVES = [None, None, None, "ring", "tree", "double-tree", "halving-doubling",
               "hierarchical", "ps", "allgather"]
SHARDINGS = [None, None, None, "zero1", "zero2", "zero3", "hsdp"]
ACT_CKPT = [None, None, None, "full", "op", "every:2", "fraction:0.5"]
PRECISIONS = [None, None, None, "fp32", "bf16", "fp16", "tf32"]
GPU_COUNTS = [1, 2, 4, 8, 12, 16, 24, 32, 64, 128, 256]
DES_GPU_COUNTS = [2, 4, 8, 16]
PLATFORM_GPUS = {"dgc-fig6-10gbe": 256, "dgc-fig6-1gbe": 256, "terngrad-fig5a": 512,
                 "terngrad-fig5b": 512, "terngrad-testbed": 16}  # others: 512


class Case:
    def __init__(self, **kw):
        self.platform = kw["platform"]
        self.model = kw["model"]
        self.compressor = kw.get("compressor", "none")
        self.stack = kw.get("stack")
        self.collective = kw.get("collective")
        self.gpus = kw["gpus"]
        self.scaling = kw.get("scaling", "weak")
        self.sharding = kw.get("sharding")
        self.grad_accum = kw.get("grad_accum", 1)
        self.act_ckpt = kw.get("act_ckpt")
        self.engine = kw.get("engine", "analytic")
        self.precision = kw.get("precision")      # None: the model's
        self.no_overlap = kw.get("no_overlap", False)

    def replace(self, **kw):
        d = dict(self.__dict__)
        d.update(kw)
        return Case(**d)

    def training_options(self):
        """Whether the case names sharding, accumulation or checkpointing."""
        return bool(self.sharding or self.grad_accum > 1 or self.act_ckpt)

    def describe(self):
        parts = ["%s %s %s" % (self.platform, self.model, self.compressor),
                 "%d GPUs" % self.gpus, self.engine]
        for k in ("stack", "collective", "sharding", "act_ckpt", "precision"):
            if getattr(self, k):
                parts.append("%s=%s" % (k, getattr(self, k)))
        if self.grad_accum > 1:
            parts.append("grad_accum=%d" % self.grad_accum)
        if self.scaling != "weak":
            parts.append(self.scaling)
        if self.no_overlap:
            parts.append("no-overlap")
        return ", ".join(parts)

    def _training_args(self):
        a = ["--precision", self.precision] if self.precision else []
        if self.sharding:
            a += ["--sharding", self.sharding]
        if self.grad_accum > 1:
            a += ["--grad-accum", str(self.grad_accum)]
        if self.act_ckpt:
            a += ["--act-ckpt" if self.act_ckpt == "full" else "--act-ckpt=" + self.act_ckpt]
        return a

    def predict_args(self, platform=None, collective=True):
        """gcsim predict's options for this case (platform: another file in its place;
        collective False leaves the collective to the exchange, for --exchange X)."""
        a = ["predict", "--platform", platform or self.platform, "--model", self.model,
             "--gpus", str(self.gpus), "--compressor", self.compressor]
        if self.stack:
            a += ["--stack", self.stack]
        if collective and self.collective:
            a += ["--collective", self.collective]
        if self.scaling != "weak":
            a += ["--scaling", self.scaling]
        if self.engine != "analytic":
            a += ["--engine", self.engine]
        if self.no_overlap:
            a += ["--no-overlap"]
        return a + self._training_args()

    def sweep_args(self, gpus=None):
        a = ["sweep", "--platform", self.platform, "--model", self.model,
             "--gpus", gpus or str(self.gpus), "--compressor", self.compressor,
             "--engine", self.engine, "--scaling", self.scaling]
        if self.stack:
            a += ["--stack", self.stack]
        if self.collective:
            a += ["--collective", self.collective]
        if self.no_overlap:
            a += ["--no-overlap"]
        return a + self._training_args()

    def plan_args(self):
        """gcsim plan restricted to this case: one platform, compressor, collective and
        GPU count, any target met (throughput 1 sample/s), per-step ranking (plan has no
        --no-overlap: not for such a case)."""
        a = ["plan", "--platform", self.platform, "--model", self.model,
             "--gpus", str(self.gpus), "--compressors", self.compressor,
             "--collectives", self.collective, "--target-throughput", "1",
             "--convergence", "none", "--top", "0", "--engine", self.engine,
             "--scaling", self.scaling, "--partial-nodes"]
        if self.stack:
            a += ["--stack", self.stack]
        return a + self._training_args()


def draw(rng, max_gpus, des_share):
    """One random case (not yet known to run)."""
    platform = rng.choice(PLATFORMS)
    engine = "des" if rng.random() < des_share else "analytic"
    size = PLATFORM_GPUS.get(platform, 512)
    counts = DES_GPU_COUNTS if engine == "des" else GPU_COUNTS
    counts = [n for n in counts if n <= min(size, max_gpus)]
    accum = rng.choice([1, 1, 1, 2, 4])
    return Case(platform=platform, model=rng.choice(MODELS),
                compressor=rng.choice(COMPRESSORS), stack=rng.choice(STACKS),
                collective=rng.choice(COLLECTIVES), gpus=rng.choice(counts),
                scaling="strong" if rng.random() < 0.1 else "weak",
                sharding=rng.choice(SHARDINGS), grad_accum=accum,
                act_ckpt=rng.choice(ACT_CKPT), engine=engine,
                precision=rng.choice(PRECISIONS), no_overlap=rng.random() < 0.1)


def sample(gcsim_run, seed, n, max_gpus, des_share, log):
    """n cases gcsim predict runs (exit 0), drawn with random.Random(seed); also the
    number of draws refused. A draw that ends otherwise (exit 1, 3, a signal) is kept:
    the determinism and format checks report it."""
    rng = random.Random(seed)
    cases, refused = [], 0
    while len(cases) < n:
        c = draw(rng, max_gpus, des_share)
        r = gcsim_run(c.predict_args() + ["--format", "csv"])
        if r.rc == 2:
            refused += 1
            if refused > 50 * n + 100:
                raise RuntimeError("the sample is almost all refusals: %s" % r.err.strip())
            continue
        cases.append(c)
        log("case %d: %s" % (len(cases) - 1, c.describe()))
    return cases, refused

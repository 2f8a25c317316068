#!/bin/sh
# plots/make_plots.sh: regenerate the papers' figures from gcsim predictions.
#
#   make_plots.sh GCSIM SOURCE_DIR OUTPUT_DIR
#
# Runs `gcsim predict` for every curve (CSV in OUTPUT_DIR/data), turns the columns a figure
# needs into small whitespace tables, and draws each figure with gnuplot as PNG and SVG in
# OUTPUT_DIR, then runs the `gcsim train` sweep behind the two training figures. Nothing is
# written outside OUTPUT_DIR (SOURCE_DIR is only read): the PNG copies the README shows in
# plots/figures/ are refreshed by hand from OUTPUT_DIR. `cmake --build build --target
# plots` calls this with OUTPUT_DIR = <build>/plots/figures.
#
# Both engines: the analytic engine always; the discrete-event engine (SimGrid) when
# `gcsim predict --engine des` runs on the figure's platform. DES series are drawn as open
# markers without a line (visible where they sit on the analytic line);
# a figure whose DES runs fail says so in its subtitle and in OUTPUT_DIR/des_status.txt.
# DES_MAX_GPUS (default 512, all of them) caps the GPU counts sent to the DES.
set -eu

# Every figure the README and docs/train.md show, as OUTPUT_DIR/NAME.png and .svg
# (`make_plots.sh --list` prints them; tests/plots checks the README against it).
FIGURES="terngrad-fig5a terngrad-fig5b dgc-fig6 dgc-fig6-modern ecq-fig6 ecq-fig6-modern
plan-llama-3-70b train-accuracy-vs-workers train-loss-vs-bits"
if [ "${1:-}" = --list ]; then
    printf '%s\n' $FIGURES
    exit 0
fi
if [ $# -ne 3 ]; then
    echo "usage: $0 GCSIM SOURCE_DIR OUTPUT_DIR   (or --list)" >&2
    exit 2
fi
GCSIM=$1
SRC=$2
OUT=$3
P=$SRC/platforms
M=$SRC/models
PLOTS=$SRC/plots
DATA=$OUT/data
DES_MAX_GPUS=${DES_MAX_GPUS:-512}
mkdir -p "$DATA" "$OUT/train"
: > "$OUT/des_status.txt"

command -v gnuplot >/dev/null 2>&1 || { echo "make_plots.sh: gnuplot not found" >&2; exit 2; }

# predict NAME ENGINE GPUS ARGS...: one gcsim run into $DATA/NAME-ENGINE.csv.
# An analytic failure stops everything; a DES failure is recorded and the curve left out.
predict() {
    name=$1 engine=$2 gpus=$3
    shift 3
    csv=$DATA/$name-$engine.csv
    rm -f "$csv"
    if [ "$engine" = des ]; then
        gpus=$(echo "$gpus" | tr ',' '\n' | awk -v m="$DES_MAX_GPUS" '$1 <= m' | paste -sd, -)
        if ! "$GCSIM" predict --engine des --gpus "$gpus" --format csv --output "$csv" "$@" \
                2> "$DATA/$name-des.err"; then
            echo "$name: DES failed: $(head -c 300 "$DATA/$name-des.err")" >> "$OUT/des_status.txt"
            rm -f "$csv"
        fi
    else
        "$GCSIM" predict --engine analytic --gpus "$gpus" --format csv --output "$csv" "$@"
    fi
}

# table CSV XCOL YCOL [NORM_ROW_X]: "x y" rows from two named CSV columns; with NORM_ROW_X,
# y is divided by y at the row whose x equals it (speedup against that row).
table() {
    [ -s "$1" ] || return 0
    awk -F, -v xc="$2" -v yc="$3" -v norm="${4:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == xc) xi = i; if ($i == yc) yi = i }
                  if (!xi || !yi) { print "no column " xc " or " yc > "/dev/stderr"; exit 1 }
                  next }
        { x[NR] = $xi; y[NR] = $yi; if (norm != "" && $xi == norm) base = $yi; n = NR }
        END { for (r = 2; r <= n; r++) print x[r], (norm != "" ? y[r] / base : y[r]) }' "$1"
}

# PLOTS_ENGINES=analytic leaves the DES curves out (a quick look, the test).
ENGINES=${PLOTS_ENGINES:-"analytic des"}
GPUS_512=1,2,4,8,16,32,64,128,256,512

# --- TernGrad Fig. 5(a) and 5(b): throughput against GPUs, weak scaling ------------------
for fig in fig5a fig5b; do
    for m in alexnet googlenet vgg-a; do
        for e in $ENGINES; do
            predict "terngrad-$fig-$m-fp32" "$e" "$GPUS_512" --platform "$P/terngrad-$fig.json" \
                --model "$M/$m.json" --scaling weak --collective terngrad
            predict "terngrad-$fig-$m-terngrad" "$e" "$GPUS_512" --platform "$P/terngrad-$fig.json" \
                --model "$M/$m.json" --scaling weak --collective terngrad --compressor terngrad
            for v in fp32 terngrad; do
                table "$DATA/terngrad-$fig-$m-$v-$e.csv" gpus throughput_samples_per_s \
                    > "$DATA/terngrad-$fig-$m-$v-$e.dat"
            done
        done
    done
done
# The AlexNet whose GTX 1080 time per batch was fitted to the paper's 3.04x on 8 GPUs
# (models/fit_terngrad_alexnet.py, docs/reproduction.md): thin curves in Fig. 5(a).
for v in fp32:none terngrad:terngrad; do
    label=${v%%:*}
    predict "terngrad-fig5a-alexnet-fitted-$label" analytic "$GPUS_512" \
        --platform "$P/terngrad-fig5a.json" --model "$M/alexnet-terngrad-fitted.json" \
        --scaling weak --collective terngrad --compressor "${v#*:}"
    table "$DATA/terngrad-fig5a-alexnet-fitted-$label-analytic.csv" gpus throughput_samples_per_s \
        > "$DATA/terngrad-fig5a-alexnet-fitted-$label-analytic.dat"
done

# --- DGC Fig. 6: speedup against nodes (1 node = 4 Titan Xp), conventional against DGC ---
# Two patterns: "paper", the model DGC Sec. 5 used (TernGrad's Appendix B steps, sparse
# density doubling at every aggregation step: --collective dgc-paper); "modern", what a
# current stack runs (the platform's default collective for fp32, and for DGC the exchange
# gcsim picks for its payload class, with encode/decode costs). docs/reproduction.md.
NODES_GPUS=4,8,16,32,64,128,256
for pattern in paper modern; do
    if [ "$pattern" = paper ]; then pargs="--collective dgc-paper"; else pargs=""; fi
    for net in 1gbe 10gbe; do
        for m in alexnet resnet-50; do
            for e in $ENGINES; do
                # shellcheck disable=SC2086 # pargs is a list of words
                predict "dgc-$pattern-$net-$m-fp32" "$e" "$NODES_GPUS" \
                    --platform "$P/dgc-fig6-$net.json" --model "$M/$m.json" --scaling weak $pargs
                # shellcheck disable=SC2086
                predict "dgc-$pattern-$net-$m-dgc" "$e" "$NODES_GPUS" \
                    --platform "$P/dgc-fig6-$net.json" --model "$M/$m.json" --scaling weak $pargs \
                    --compressor dgc:ratio=0.001
                for v in fp32 dgc; do
                    table "$DATA/dgc-$pattern-$net-$m-$v-$e.csv" machines \
                        throughput_samples_per_s 1 > "$DATA/dgc-$pattern-$net-$m-$v-$e.dat"
                done
            done
        done
    done
done

# --- ECQ-SGD Fig. 6: ResNet-50 throughput against GPUs, 8 Tesla P40 per node -------------
# "paper": the parameter-server model ECQ-SGD cites (Yan et al. 2015; --collective ps);
# "modern": the platform's default collective for fp32, gcsim's exchange for each payload.
for pattern in paper modern; do
    # The parameter server's DES holds N x shards flows per phase: 512 GPUs is too slow to
    # draw (docs/des.md, "Scale"); its DES curve stops at 128.
    if [ "$pattern" = paper ]; then pargs="--collective ps"; ecq_des_max=128; else pargs=""; ecq_des_max=$DES_MAX_GPUS; fi
    for e in $ENGINES; do
        # QSGD and ECQ-SGD settings are not given for Fig. 6 in the paper; both use the
        # bucket of its CIFAR comparison (4096) and Elias coding; QSGD 4 levels, ECQ-SGD 2
        # levels (about 100x smaller, the paper's "two magnitudes"). docs/reproduction.md.
        for v in fp32:none qsgd:qsgd:s=4,bucket=4096,code=elias ecq:ecq:s=2,bucket=4096,code=elias; do
            label=${v%%:*}
            spec=${v#*:}
            # shellcheck disable=SC2086
            all_des=$DES_MAX_GPUS
            DES_MAX_GPUS=$ecq_des_max
            predict "ecq-$pattern-resnet-50-$label" "$e" "$GPUS_512" \
                --platform "$P/ecq-fig6.json" --model "$M/resnet-50.json" --scaling weak $pargs \
                --compressor "$spec"
            DES_MAX_GPUS=$all_des
            table "$DATA/ecq-$pattern-resnet-50-$label-$e.csv" gpus throughput_samples_per_s \
                > "$DATA/ecq-$pattern-resnet-50-$label-$e.dat"
        done
    done
done

# --- draw ----------------------------------------------------------------------------------
# draw SCRIPT BASE DATA_PREFIX [gnuplot -e ARGS...]: BASE.png and BASE.svg; the subtitle
# names missing DES curves when a DES run whose name starts with DATA_PREFIX failed.
draw() {
    script=$1 base=$2 prefix=$3
    shift 3
    note=""
    if grep -q "^$prefix" "$OUT/des_status.txt"; then
        note="DES curves missing, see des\\_status.txt" # \\_: a plain _ in enhanced text
    fi
    for term in png svg; do
        (cd "$PLOTS" && gnuplot -e "data='$DATA'; out='$OUT/$base.$term'; term='$term'; desnote='$note'" \
            "$@" "$script")
    done
}
draw terngrad_fig5.gp terngrad-fig5a terngrad-fig5a \
    -e "fig='fig5a'; cluster='128 nodes x 4 GTX 1080, one PCIe switch per node, 1 Gbps Ethernet'"
draw terngrad_fig5.gp terngrad-fig5b terngrad-fig5b \
    -e "fig='fig5b'; cluster='128 nodes x 4 Tesla P100 (NVLink), 100 Gbps InfiniBand'"
draw dgc_fig6.gp dgc-fig6 dgc-paper- -e "pattern='paper'; \
    what='model of the paper: TernGrad steps, sparse density doubling per aggregation'"
draw dgc_fig6.gp dgc-fig6-modern dgc-modern- -e "pattern='modern'; \
    what='current stack: ring all-reduce for fp32, exchange and codec cost per compressor'"
draw ecq_fig6.gp ecq-fig6 ecq-paper- -e "pattern='paper'; \
    what='parameter-server model the paper cites'"
draw ecq_fig6.gp ecq-fig6-modern ecq-modern- -e "pattern='modern'; \
    what='current stack: ring all-reduce for fp32, exchange and codec cost per compressor'"

# --- gcsim plan: the README's LLM question (Llama 3 70B on 256 H100s, two networks) ------
# gcsim plot draws the plan's JSON; the rows' tokens/s are the plan's (planning.plan_llm
# checks them against predict), so the picture carries no table of its own.
"$GCSIM" plan --model "$M/llama-3-70b.json" --platform "$P/h100-ndr.json,$P/h100-400g.json" \
    --gpus 256 --sharding all --act-ckpt=all --global-batch 512 --compressors none,fp16,qsgd \
    --target-throughput 1 --rank-by time --best-per platform,sharding --top 0 \
    --format json --output "$DATA/plan-llama-3-70b.json"
for term in png svg; do
    "$GCSIM" plot "$DATA/plan-llama-3-70b.json" --output "$OUT/plan-llama-3-70b.$term"
done

# --- what the figures show, as checksums ---------------------------------------------------
# OUTPUT_DIR/data.sha256: one line per data table drawn (the x-y pairs of every curve), so
# that a committed figure can be checked against a fresh regeneration without comparing
# images (gnuplot's and cairo's versions change the pixels, not the numbers).
# plots/figures/data.sha256 is its committed copy; tests/plots/data_current.sh compares the
# analytic tables with it.
(cd "$DATA" && for f in *.dat; do [ -s "$f" ] && sha256sum "$f"; done) | sort -k2 > "$OUT/data.sha256"

# PLOTS_SKIP_TRAIN=1 stops here: the paper figures only (the test's quick run).
if [ "${PLOTS_SKIP_TRAIN:-0}" = 1 ]; then
    echo "plots: $OUT (paper figures; the gcsim train sweep skipped)"
    exit 0
fi

# --- gcsim train: accuracy against workers, loss against bits (README, docs/train.md) ----
# The sweep of docs/train.md's accuracy table (MLP, 5 epochs, seed 1, workers 1 to 16, seven
# compressors); TRAIN_EPOCHS, TRAIN_WORKERS, TRAIN_COMPRESSORS and TRAIN_EXTRA (more gcsim
# train options, e.g. "--limit-train 640") shrink it for a quick look or a test.
TRAIN_WORKERS=${TRAIN_WORKERS:-"1 2 4 8 16"}
TRAIN_COMPRESSORS=${TRAIN_COMPRESSORS:-"fp32=none terngrad=terngrad qsgd=qsgd dgc=dgc ecq=ecq signsgd=signsgd orq=orq"}
labels=$(for pair in $TRAIN_COMPRESSORS; do printf '%s ' "${pair%%=*}"; done)
loss_workers=8
case " $TRAIN_WORKERS " in *" 8 "*) ;; *) loss_workers=${TRAIN_WORKERS##* } ;; esac
EXTRA=${TRAIN_EXTRA:-} sh "$PLOTS/train/run_sweep.sh" "$GCSIM" "$OUT/train" mlp "${TRAIN_EPOCHS:-5}" \
    "$TRAIN_WORKERS" "$TRAIN_COMPRESSORS" 2> "$OUT/train/sweep.log" ||
    { echo "make_plots.sh: the gcsim train sweep failed ($OUT/train/sweep.log)" >&2; exit 1; }
for term in png svg; do
    gnuplot -e "data='$OUT/train/summary.dat'; out='$OUT/train-accuracy-vs-workers.$term'; term='$term'" \
        "$PLOTS/train/accuracy_vs_workers.gp"
    gnuplot -e "dir='$OUT/train/runs'; workers=$loss_workers; labels='$labels'; out='$OUT/train-loss-vs-bits.$term'; term='$term'" \
        "$PLOTS/train/loss_vs_bits.gp"
done

# Only OUTPUT_DIR is written: the copies the README shows (plots/figures/) are refreshed by
# hand, `cp OUTPUT_DIR/*.png OUTPUT_DIR/data.sha256 plots/figures/`, when a change of the
# figures is meant to be committed (docs/reproduction.md, "Figures").
echo "plots: $OUT/{$(echo $FIGURES | tr ' ' ',')}.{png,svg}"
[ -s "$OUT/des_status.txt" ] && cat "$OUT/des_status.txt" >&2
exit 0

#!/bin/sh
# gcsim plot (issue 46): renders a sweep, a plan and a predict breakdown made by this gcsim,
# as PNG and SVG, and checks
# - the pictures: PNG magic bytes and more than a blank image's size, SVG holding the series
#   titles the input implies (one line per compressor and collective, the chosen plan row,
#   the target, the three parts of the step, a count that cannot run);
# - the numbers: the script (--script) holds the input rows' values, read by hand here from
#   the command's own CSV (a sweep row's throughput at 4 GPUs, the plan's rank 1 throughput,
#   predict's compute, codec and exposed communication in ms at 16 GPUs);
# - the script redraws the picture with gnuplot alone (it is self-contained);
# - nothing on stdout; gnuplot missing or failing exits 3 and writes no picture.
#   plot_command.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# plot INPUT OUTPUT [ARGS...]: gcsim plot, which must succeed silently on stdout.
plot() {
    in=$1 out=$2
    shift 2
    "$gcsim" plot "$in" --output "$out" "$@" > stdout.txt 2> stderr.txt
    rc=$?
    [ $rc -eq 0 ] || { bad "plot $in --output $out: exit $rc: $(cat stderr.txt)"; return 1; }
    [ -s stdout.txt ] && bad "plot $in printed on stdout: $(head -c 200 stdout.txt)"
    [ -s stderr.txt ] && bad "plot $in printed on stderr (gnuplot warnings?): $(head -c 300 stderr.txt)"
    return 0
}
is_png() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || bad "$1: not a PNG"
    [ "$(wc -c < "$1")" -gt 10000 ] || bad "$1: $(wc -c < "$1") bytes, too small for a drawn figure"
}
svg_has() {
    grep -qF -- "$2" "$1" || bad "$1 does not show \"$2\""
}
# near A B: two numbers equal to 1e-9 relative
near() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a;
                                     exit !(a != "" && b != "" && d <= 1e-9 * m) }'
}
# column CSV NAME ROW_FILTER: the value of column NAME in the rows where awk's FILTER holds
column() {
    awk -F, -v name="$2" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next } $3 { print \$c[name] }" "$1"
}

# --- sweep: two compressors x two collectives, 1 to 16 GPUs (fp16: a spec without commas,
# so that awk -F, reads the CSV) -------------------------------------------------------
"$gcsim" sweep --compressor none,fp16 --collective ring,tree --gpus 1,2,4,8,16 \
    --format csv --output sweep.csv 2> /dev/null || bad "gcsim sweep failed"
"$gcsim" sweep --compressor none,fp16 --collective ring,tree --gpus 1,2,4,8,16 \
    --format jsonl --output sweep.jsonl 2> /dev/null || bad "gcsim sweep --format jsonl failed"
plot sweep.csv sweep.png --script sweep.gp && is_png sweep.png
plot sweep.jsonl sweep.svg && for t in "none, ring" "none, tree" "fp16, ring" "fp16, tree" \
        "gcsim sweep: samples/s against GPUs"; do svg_has sweep.svg "$t"; done
# The sweep row of fp16 over tree at 4 GPUs (CSV columns by name), in the script's
# data block of that series, which is the fourth (compressors, then collectives).
want=$(column sweep.csv throughput_samples_per_s '$c["compressor"] == "fp16" && $c["collective"] == "tree" && $c["gpus"] == 4')
got=$(awk '/^\$series4 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on && $1 == 4 { print $2 }' sweep.gp)
near "$want" "$got" || bad "sweep: fp16/tree at 4 GPUs: the script has \"$got\", the CSV \"$want\""
grep -q "title 'fp16, tree'" sweep.gp || bad "sweep.gp: no line titled 'fp16, tree'"
# Redrawn from the script alone, into another file.
gnuplot -e "out='redrawn.png'" sweep.gp 2> redraw.txt && is_png redrawn.png ||
    bad "the script does not redraw alone: $(cat redraw.txt)"

# --- plan: the chosen configuration and the target ------------------------------------
"$gcsim" plan --target-throughput 5000 --compressors none,fp16 --collectives ring,tree \
    --format json --output plan.json 2> /dev/null || bad "gcsim plan failed"
"$gcsim" plan --target-throughput 5000 --compressors none,fp16 --collectives ring,tree \
    --format csv --output plan.csv 2> /dev/null || bad "gcsim plan --format csv failed"
plot plan.json plan.svg --script plan.gp && for t in "chosen (rank 1)" "target: 5000 samples/s" \
        "configurations"; do svg_has plan.svg "$t"; done
plot plan.csv plan.png && is_png plan.png
want=$(column plan.csv throughput_samples_per_s '$c["rank"] == 1')
got=$(awk '/^\$chosen << EOD/ { on = 1; next } /^EOD/ { on = 0 } on && $1 == 0 { print $2 }' plan.gp)
near "$want" "$got" || bad "plan: rank 1: the script's chosen bar is \"$got\", the CSV says \"$want\""
gpus1=$(column plan.csv gpus '$c["rank"] == 1')
grep -q "GPUs' 0" plan.gp && grep -q ", $gpus1 GPUs' 0" plan.gp ||
    bad "plan.gp: the first bar is not labelled with rank 1's $gpus1 GPUs"
# A plan without a feasible row marks none chosen.
"$gcsim" plan --target-throughput 1e9 --format json --output far.json 2> /dev/null
plot far.json far.svg && svg_has far.svg "none meets the target"
grep -q "chosen (rank 1)" far.svg && bad "far.svg: an infeasible plan shows a chosen configuration"

# --- predict: the step's parts, memory, a count that cannot run -----------------------
"$gcsim" predict --platform a100-hdr --model resnet-50 --compressor dgc --gpus 1,8,16 \
    --format json --output predict.json 2> /dev/null || bad "gcsim predict failed"
"$gcsim" predict --platform a100-hdr --model resnet-50 --compressor dgc --gpus 1,8,16 \
    --format csv --output predict.csv 2> /dev/null
plot predict.json predict.svg --script predict.gp && for t in "compute" "codec (encode + decode)" \
        "exposed communication" "iteration time" "Memory per GPU, estimate (GB)"; do
    svg_has predict.svg "$t"
done
plot predict.csv predict.png && is_png predict.png
# the 16-GPU row (the third: position 2): compute, codec, exposed, iteration in ms
line=$(awk '/^\$step << EOD/ { on = 1; next } /^EOD/ { on = 0 } on && $1 == 2' predict.gp)
k=2
for col in compute_s compress_s exposed_comm_s iteration_s; do
    want=$(column predict.csv "$col" '$c["gpus"] == 16')
    got=$(echo "$line" | awk -v k=$k '{ print $k }')
    near "$(awk -v v="$want" 'BEGIN { printf "%.17g", v * 1000 }')" "$got" ||
        bad "predict: $col at 16 GPUs: the script has \"$got\" ms, the CSV $want s"
    k=$((k + 1))
done
[ "$(column predict.csv compress_s '$c["gpus"] == 16' | awk '{ print ($1 > 0) }')" = 1 ] ||
    bad "predict: DGC's codec time at 16 GPUs is not positive: the check would not see a codec bar"
mem=$(column predict.csv memory_bytes_per_gpu '$c["gpus"] == 16')
got=$(awk '/^\$memory << EOD/ { on = 1; next } /^EOD/ { on = 0 } on && $1 == 2 { print $2 }' predict.gp)
near "$(awk -v v="$mem" 'BEGIN { printf "%.17g", v / 1e9 }')" "$got" ||
    bad "predict: memory at 16 GPUs: the script has \"$got\" GB, the CSV $mem bytes"
# 24 GPUs cannot take shard groups of 16: a labelled gap, not a failure.
"$gcsim" predict --platform h100-ndr --model gpt2-xl --sharding hsdp:16 --gpus 16,24 \
    --format json --output hsdp.json 2> /dev/null
plot hsdp.json hsdp.svg && svg_has hsdp.svg "24 (cannot run)"

# --- gnuplot missing or failing: exit 3, no picture -----------------------------------
GCSIM_GNUPLOT=$work/no-such-gnuplot "$gcsim" plot sweep.csv --output missing.png 2> err.txt
rc=$?
[ $rc -eq 3 ] || bad "gnuplot missing: exit $rc, expected 3"
grep -q "not found" err.txt || bad "gnuplot missing: $(cat err.txt)"
[ -e missing.png ] && bad "gnuplot missing: missing.png written"
GCSIM_GNUPLOT=false "$gcsim" plot sweep.csv --output failed.png 2> err.txt
rc=$?
[ $rc -eq 3 ] || bad "gnuplot failing: exit $rc, expected 3"
[ -e failed.png ] && bad "gnuplot failing: failed.png written"
ls | grep -q 'tmp' && bad "temporary files left: $(ls | grep tmp)"

# --- an output naming the input is refused before anything is written -----------------
cp sweep.csv sweep-copy.png
"$gcsim" plot sweep-copy.png --output ./sweep-copy.png 2> err.txt
rc=$?
[ $rc -eq 2 ] || bad "--output naming the input: exit $rc, expected 2"
cmp -s sweep.csv sweep-copy.png || bad "--output naming the input replaced it"

[ $fail -eq 0 ] && echo "PASS: sweep, plan and predict drawn as PNG and SVG; values traced to the input rows"
exit $fail

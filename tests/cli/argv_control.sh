#!/bin/sh
# Control characters typed into an argument are refused before anything else, and the
# message shows them escaped: an ESC or BEL echoed in an error would reach the terminal
# (issue 45). Each case: exit 2, nothing on stdout, no control byte on stderr but the
# newline, and the message names the option whose value it was.
#   argv_control.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0 n=0
esc=$(printf '\033') bel=$(printf '\007') nl='
'
check() { # NAME FRAGMENT ARGS...
    name=$1 fragment=$2
    shift 2
    n=$((n + 1))
    "$gcsim" "$@" >"$work/$n.out" 2>"$work/$n.err"
    rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL $name: exit $rc, expected 2"; fail=1; }
    [ -s "$work/$n.out" ] && { echo "FAIL $name: wrote on stdout"; fail=1; }
    if tr -d '\n' <"$work/$n.err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
        echo "FAIL $name: a control byte reached stderr"; fail=1
    fi
    grep -qF -- "$fragment" "$work/$n.err" || {
        echo "FAIL $name: the message does not say \"$fragment\": $(cat "$work/$n.err")"; fail=1; }
}
check stack_value 'the value of --stack, "horovod\x1b[31m")' predict --stack "horovod$esc[31m"
check compressor_value 'the value of --compressor, "qsgd\x07")' sweep --compressor "qsgd$bel"
check joined_option '"--sharding=zero\x0a3"' predict "--sharding=zero${nl}3"
check file_name 'the value of --platform, "a\x1b.json")' plan --platform "a$esc.json" --target-throughput 1
check command '"pre\x07dict"' "pre${bel}dict"
[ $fail -eq 0 ] || exit 1
echo "PASS: $n arguments with control characters refused, escaped in the message"

#!/bin/sh
# gcsim catalog (issue 46): every shipped platform, model and stack file and every
# compressor gcsim compress --help names is a line of the listing, under its own kind; the
# default table fits 100 columns; JSON and CSV carry the same rows; a kind alone lists only
# it. Bad usage (exit 2, nothing on stdout) is in bad_inputs.txt.
#   catalog.sh GCSIM SOURCE_DIR WORKDIR
set -u
gcsim=$1 src=$2 work=$3
mkdir -p "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$gcsim" catalog >"$work/table" 2>"$work/err"; rc=$?
[ $rc -eq 0 ] || bad "gcsim catalog exited $rc"
[ -s "$work/err" ] && bad "gcsim catalog wrote on stderr: $(head -3 "$work/err")"
wide=$(awk 'length($0) > 100 { n++ } END { print n + 0 }' "$work/table")
[ "$wide" -eq 0 ] && echo "ok: every line of the table fits 100 columns" || bad "$wide table lines over 100 columns"

"$gcsim" catalog --format csv >"$work/csv" || bad "gcsim catalog --format csv failed"
# The table's section of a kind: from its "KIND: N ..." note to the next blank line after
# its rows; a name is the first word of a row there.
in_table() { # KIND NAME
    awk -v kind="$1" -v name="$2" '
        $0 ~ "^" kind ": " { on = 1; blank = 0; next }
        on && $0 == "" { if (++blank == 2) on = 0; next }
        on && $1 == name { found = 1 }
        END { exit !found }' "$work/table"
}
in_csv() { # KIND(singular) NAME
    grep -q "^$1,$2," "$work/csv"
}
for pair in platforms:platforms:platform models:models:model platforms/stacks:stacks:stack; do
    folder=${pair%%:*} rest=${pair#*:}
    kind=${rest%%:*} one=${rest#*:}
    n=0
    for f in "$src/$folder"/*.json; do
        name=$(basename "$f" .json)
        n=$((n + 1))
        in_table "$kind" "$name" || bad "$folder/$name.json is not in gcsim catalog's $kind table"
        in_csv "$one" "$name" || bad "$folder/$name.json is not a $one row of gcsim catalog --format csv"
    done
    rows=$(grep -c "^$one," "$work/csv")
    [ "$rows" -eq "$n" ] || bad "$kind: $n files, $rows csv rows"
    grep -q "^$kind: $n in " "$work/table" || bad "the $kind table does not say \"$kind: $n in ...\""
    echo "ok: $n $kind files listed"
done

names=$("$gcsim" compress --help | sed -n '/^Compressors (NAME/,$p' | sed 1,2d | tr ',' ' ')
n=0
for name in $names; do
    n=$((n + 1))
    in_table compressors "$name" || bad "compressor $name is not in gcsim catalog's compressors table"
    in_csv compressor "$name" || bad "compressor $name is not a compressor row of the csv"
done
[ "$n" -ge 17 ] || bad "gcsim compress --help named only $n compressors"
[ "$(grep -c '^compressor,' "$work/csv")" -eq "$n" ] || bad "the csv has not $n compressor rows"
echo "ok: $n compressors listed"

# One kind: only its rows; JSON has the same rows as CSV.
"$gcsim" catalog models --format csv >"$work/models.csv" || bad "gcsim catalog models failed"
other=$(sed 1d "$work/models.csv" | grep -vc '^model,')
[ "$other" -eq 0 ] || bad "gcsim catalog models lists $other rows of other kinds"
[ "$(sed 1d "$work/models.csv" | wc -l)" -eq "$(grep -c '^model,' "$work/csv")" ] ||
    bad "gcsim catalog models does not list every model"
json_rows=$("$gcsim" catalog --format json | grep -Ec '"kind":[[:space:]]*"(platform|model|stack|compressor)"')
[ "$json_rows" -eq "$(sed 1d "$work/csv" | wc -l)" ] || bad "json has $json_rows rows, csv $(sed 1d "$work/csv" | wc -l)"
"$gcsim" catalog stacks --output "$work/stacks.txt" >"$work/stdout" || bad "--output failed"
[ -s "$work/stdout" ] && bad "--output also printed on stdout"
grep -q "^pytorch-ddp " "$work/stacks.txt" || bad "--output file lacks pytorch-ddp"
[ $fail -eq 0 ] && echo "PASS"
exit $fail

#!/bin/sh
# Prints how many findings a libFuzzer artifact folder holds: crash-*, leak-*, timeout-*
# and oom-* files. slow-unit-* files (inputs slower than -report_slow_units) are not
# findings, nor is anything else.
#   count_findings.sh ARTIFACT_DIR
ls "${1:?usage: count_findings.sh ARTIFACT_DIR}" | grep -cE '^(crash|leak|timeout|oom)-'

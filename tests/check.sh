# check.sh: what the shell tests share, sourced: `check NAME COMMAND...` prints "ok   NAME" where the
# command succeeds, else "FAIL NAME" and counts it in $fails (the test exits non-zero when it is not 0).
fails=0
check() {
    local name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

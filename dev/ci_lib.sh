# Functions .ci/run uses to read the README and to find interpreters, kept
# apart so that dev/ci_selftest.sh can run each on a broken input and see it
# fail. Sourced, not run; every function returns non-zero on what it refuses.

# Fails, naming $2, unless file $1 holds a line with something on it.
ci_nonempty() {
    if ! grep -q '[^[:space:]]' "$1" 2>/dev/null; then
        echo "CI: $2 is empty or missing from the README" >&2
        return 1
    fi
}

# README $1's first bash block (install and check the examples) into $2.
ci_first_command() {
    awk '/^```bash/{if (!done) {inblock=1; next}} inblock && /^```/{exit} inblock' "$1" > "$2"
    ci_nonempty "$2" "the first bash block"
}

# README $1's block after the 'test-command' marker into $2.
ci_test_command() {
    awk '/<!-- test-command -->/{found=1; next} found && /^```/{if (inblock) exit; inblock=1; next} inblock' "$1" > "$2"
    ci_nonempty "$2" "the block after <!-- test-command -->"
}

# What README $1 says its first command prints: the text block right after
# the first bash block (only blank lines between them), into $2.
ci_claimed_output() {
    awk 'state == 0 && /^```bash/ {state = 1; next}
         state == 1 && /^```/ {state = 2; next}
         state == 2 && /^```text/ {state = 3; next}
         state == 2 && NF {exit}
         state == 3 && /^```/ {exit}
         state == 3' "$1" > "$2"
    ci_nonempty "$2" "the text block after the first bash block (what it prints)"
}

# Fails unless the output in file $2 ends with the lines the README claims in $1.
ci_compare_output() {
    local lines
    lines=$(wc -l < "$1")
    if ! tail -n "$lines" "$2" | diff -u "$1" - >&2; then
        echo "CI: the README's first command did not print what the README says it prints" >&2
        return 1
    fi
}

# An interpreter for Python X.Y: pythonX.Y on the PATH if it runs, else one
# that pyenv installed (its shims refuse versions that are not selected).
ci_find_python() {
    local version=$1 candidate
    local root=${PYENV_ROOT:-$HOME/.pyenv}
    for candidate in "python$version" \
        $(ls -d "$root"/versions/"$version".*/bin/python"$version" 2>/dev/null | sort -rV); do
        if "$candidate" -c 'import sys' >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

# The closing list of supported versions that did not run; $@ are those versions.
ci_not_tested() {
    if [ "$#" -eq 0 ]; then
        echo "== every supported Python was tested"
    else
        echo "== not tested (not on this machine): Python $*"
    fi
}

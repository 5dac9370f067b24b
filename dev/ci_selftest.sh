#!/usr/bin/env bash
# CI's own checks, each shown to fail on what it should refuse: a README
# without its first command or test command (or with them empty), a claimed
# output that differs from what was printed, and a supported Python that is
# missing from the machine, which must be named as not tested. .ci/run runs
# this first; it needs nothing installed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=dev/ci_lib.sh
. dev/ci_lib.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# Runs "$@" and records a failure unless it fails.
must_fail() {
    if "$@" 2>/dev/null; then
        echo "selftest: expected a failure from: $*" >&2
        failures=$((failures + 1))
    fi
}
# Runs "$@" and records a failure unless it succeeds.
must_pass() {
    if ! "$@"; then
        echo "selftest: expected success from: $*" >&2
        failures=$((failures + 1))
    fi
}

# The real README passes every check.
must_pass ci_first_command README.md "$work/first"
must_pass ci_test_command README.md "$work/test"
must_pass ci_claimed_output README.md "$work/claimed"

# No test-command marker: no test would run.
grep -v '<!-- test-command -->' README.md > "$work/no-marker.md"
must_fail ci_test_command "$work/no-marker.md" "$work/out"
# The marker with an empty block after it.
printf '# x\n\n<!-- test-command -->\n\n```bash\n\n```\n' > "$work/empty-test.md"
must_fail ci_test_command "$work/empty-test.md" "$work/out"
# No bash block at all, and an empty first one.
printf '# x\n\nNo commands.\n' > "$work/no-bash.md"
must_fail ci_first_command "$work/no-bash.md" "$work/out"
printf '# x\n\n```bash\n   \n```\n' > "$work/empty-bash.md"
must_fail ci_first_command "$work/empty-bash.md" "$work/out"
# A first command with no claimed output after it, or with prose between.
printf '# x\n\n```bash\necho hi\n```\n' > "$work/no-claim.md"
must_fail ci_claimed_output "$work/no-claim.md" "$work/out"
printf '# x\n\n```bash\necho hi\n```\n\nIt prints:\n\n```text\nhi\n```\n' > "$work/prose.md"
must_fail ci_claimed_output "$work/prose.md" "$work/out"

# Output compared with the claim: the last lines must be the claimed ones.
printf 'hi\n' > "$work/claim"
printf 'Successfully installed x\nhi\n' > "$work/printed-ok"
must_pass ci_compare_output "$work/claim" "$work/printed-ok"
printf 'Successfully installed x\nhello\n' > "$work/printed-other"
must_fail ci_compare_output "$work/claim" "$work/printed-other"
: > "$work/printed-nothing"
must_fail ci_compare_output "$work/claim" "$work/printed-nothing"

# A Python that is not on the machine is not found, and is named at the end.
must_fail env PATH=/nonexistent PYENV_ROOT="$work/no-pyenv" bash -c '. dev/ci_lib.sh; ci_find_python 3.99'
listed=$(ci_not_tested 3.13 3.14)
[ "$listed" = "== not tested (not on this machine): Python 3.13 3.14" ] || {
    echo "selftest: the not-tested list reads: $listed" >&2
    failures=$((failures + 1))
}

if [ "$failures" -ne 0 ]; then
    echo "selftest: $failures of CI's checks did not behave" >&2
    exit 1
fi
echo "selftest: each of CI's README and version checks fails on a broken input"

#!/bin/sh
# The project's docs cite only what the repository holds: no absolute path
# of one machine (a notes file, a checkout, a scratch folder) that a
# reader's clone does not have. Placeholders such as /path/to/kohaku and
# system paths (/usr/bin/python3) are fine.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# machine_paths FILE...: the lines naming /work, /tmp, /root or /home
machine_paths() { grep -n -E '(^|[^A-Za-z0-9_.])/(work|tmp|root|home)(/|\b)' "$@"; }
expect_out "README.md and docs/ cite no absolute path of one machine" "" machine_paths README.md docs/*.md
# the check itself finds a planted path, and leaves a placeholder alone
# (the planted path is built at run time: tests/cli/standalone.sh keeps
# this script's own text free of such paths)
printf 'see /%s/notes/x.md\nrun /path/to/kohaku serve\nwith /usr/bin/python3\n' work > "$tmp/p.md"
expect_out "a planted path is found" "1:see /$(echo work)/notes/x.md" machine_paths "$tmp/p.md"
finish

#!/usr/bin/env bash
# Commit subjects of lb4mpi are at most 72 characters, details in the body
# (README.md, "Contributing"). Lists every commit of RANGE whose subject is
# longer; exits 1 if there is one.
#   bash scripts/check_commits.sh                 # the commits not yet on origin/main (else the last 20)
#   bash scripts/check_commits.sh 28f2ddb..HEAD   # a range of git log
#   bash scripts/check_commits.sh --message FILE  # one message; as a commit-msg hook:
#     printf '#!/bin/sh\nexec bash scripts/check_commits.sh --message "$1"\n' > .git/hooks/commit-msg
set -euo pipefail
LIMIT=72
if [[ "${1:-}" == "--message" ]]; then
  [[ $# -eq 2 ]] || { echo "check_commits.sh: --message needs the message file" >&2; exit 2; }
  subject=$(grep -v '^#' "$2" | head -n 1)
  if [[ ${#subject} -gt $LIMIT ]]; then
    echo "check_commits.sh: the subject has ${#subject} characters (at most $LIMIT; details go in the body):" >&2
    echo "  $subject" >&2
    exit 1
  fi
  exit 0
fi
range=${1:-}
if [[ -z "$range" ]]; then
  if git rev-parse -q --verify origin/main >/dev/null; then range=origin/main..HEAD; else range=HEAD~20..HEAD; fi
fi
long=$(git log --no-merges --format='%h%x09%s' "$range" | awk -F '\t' -v n="$LIMIT" 'length($2) > n { print $1 " (" length($2) "): " $2 }')
if [[ -n "$long" ]]; then
  echo "check_commits.sh: subjects over $LIMIT characters in $range:" >&2
  echo "$long" >&2
  exit 1
fi
echo "check_commits.sh: every subject in $range has at most $LIMIT characters"

#!/bin/sh
# check-cli-docs.sh HELP EMIT_ERROR CLI_MD MAN_PAGE
#
# Keeps the CLI documentation honest: every option that `tilec --help`
# lists (HELP: its output) must appear in docs/cli.md as `OPT...` (in
# backticks) and in man/tilec.1; every --emit kind that tilec accepts
# (EMIT_ERROR: its message for an unknown kind, "expected tokens, ast, ...")
# must appear in both as well. Prints each missing item; exit 1 if any.
set -u
help=$1 emit=$2 md=$3 man=$4
plain_man=$(sed 's/\\-/-/g' "$man")
missing=0
# "  --emit=KIND  ..." -> "--emit"; "  -OLEVEL ..." -> "-O"
opts=$(sed -n 's/^  \(-[-a-zA-Z]*\).*/\1/p' "$help" | sed 's/^-OLEVEL$/-O/')
[ -n "$opts" ] || { echo "no options found in the help text"; exit 1; }
for o in $opts; do
    [ "$o" = -O ] && o=-OLEVEL
    o=${o%LEVEL}
    grep -q -e "\`$o[ =\`0-9]" "$md" || { echo "docs/cli.md lacks option $o"; missing=1; }
    printf '%s\n' "$plain_man" | grep -q -E -e "(^|[ B])$o([ =\\\\\"0-9,]|\$)" ||
        { echo "man/tilec.1 lacks option $o"; missing=1; }
done
kinds=$(sed -n "s/.*(expected \(.*\))\$/\1/p" "$emit" | sed 's/,//g; s/ or / /')
[ -n "$kinds" ] || { echo "no --emit kinds found in: $(cat "$emit")"; exit 1; }
for k in $kinds; do
    grep -q -e "^| \`$k\` |" "$md" || { echo "docs/cli.md lacks --emit=$k"; missing=1; }
    grep -q -e "\\\\fB$k\\\\fR (" "$man" || { echo "man/tilec.1 lacks --emit=$k"; missing=1; }
done
[ $missing = 0 ] && echo "all $(echo $opts | wc -w) options and $(echo $kinds | wc -w) emit kinds documented"
exit $missing

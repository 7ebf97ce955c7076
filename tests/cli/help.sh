#!/bin/sh
# Every subcommand's --help against its parser (both come from one table,
# tools/cli/opt.c): usage on stdout, exit 0, no line over 79 columns;
# each option the help lists is one the parser knows - a flag is accepted
# (FLAG --help exits 0), an option with a value asks for it (exit 2,
# "needs a value") - and a name the help does not list is unknown.
CIDKIT=${1:?usage: help.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

# The commands a dispatcher lists ("  name   summary" after "commands:").
list() {
	"$CIDKIT" "$@" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }'
}

cmds=""
for c in $(list); do
	case $c in
	sim | bench | trace) for s in $(list "$c"); do cmds="$cmds $c:$s"; done ;;
	check) cmds="$cmds check" ;; # a separate program, the same parser
	*) cmds="$cmds $c" ;;
	esac
done
count=$(echo $cmds | wc -w)
[ "$count" -ge 17 ]
ok $? "the dispatchers list $count subcommands"

for c in $cmds; do
	set -- $(echo "$c" | tr ':' ' ')
	run "$@" --help
	wide=$(awk 'length($0) > 79' "$tmp/out" | head -1)
	[ $rc -eq 0 ] && [ -z "$wide" ] && [ -z "$err" ] &&
		case "$out" in "usage: cidkit $*"*) true ;; *) false ;; esac
	ok $? "$* --help: usage on stdout, exit 0, no line over 79 columns"
	# option lines: "  --name ..." or "  -x, --name ..."
	opts=$(sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z0-9-]*\)\( [A-Z][A-Z,.]*\)\{0,1\} .*/\2\3/p' "$tmp/out" | tr ' ' ':')
	bad=""
	nopts=0
	for o in $opts; do
		name=${o%%:*}
		[ "$name" = help ] && continue
		nopts=$((nopts + 1))
		if [ "$name" = "$o" ]; then # a flag
			"$CIDKIT" "$@" "--$name" --help >/dev/null 2>&1 || bad="$bad --$name"
		else
			e=$("$CIDKIT" "$@" "--$name" 2>&1 >/dev/null)
			[ $? -eq 2 ] && case "$e" in *"'--$name' needs a value"*) true ;; *) false ;; esac ||
				bad="$bad --$name"
		fi
	done
	[ -z "$bad" ] && [ $nopts -ge 1 ]
	ok $? "$*: the parser knows each of the $nopts options the help lists$bad"
	e=$("$CIDKIT" "$@" --no-such-option 2>&1 >/dev/null)
	[ $? -eq 2 ] && case "$e" in "cidkit: "*"unknown option '--no-such-option'"*) true ;; *) false ;; esac
	ok $? "$*: an option the help does not list is unknown"
done
done_testing

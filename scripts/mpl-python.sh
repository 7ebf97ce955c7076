#!/bin/sh
# scripts/mpl-python.sh - print a python3 that can import matplotlib, or
# nothing (exit 1).  The Debian python3 has python3-matplotlib; a python3
# earlier in PATH (pyenv, a venv) may not.  $PYTHON is tried first.
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import matplotlib' 2>/dev/null; then
		echo "$p"
		exit 0
	fi
done
exit 1

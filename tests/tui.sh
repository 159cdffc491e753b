#!/bin/sh
# The TUI in a real terminal (tmux): it opens the bundled example, scrolls, searches, survives a resize, and quits
# with the terminal restored. Every wait polls the screen; there are no fixed sleeps.
. "${SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
command -v tmux >/dev/null || skip_all "no tmux"
scratch
export TMUX_TMPDIR="$TMP"
S=ovtest
MODEL="$SRCDIR/share/onnxview/examples/srcnn.onnx"
SOCK=ovtest
t() { tmux -L $SOCK "$@"; }
screen() { t capture-pane -p -t $S; }
# wait_for TEXT: poll the screen until TEXT shows (10 s at most).
wait_for() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -qF -- "$1" && return 0
		i=$((i + 1))
		sleep 0.05
	done
	screen | sed 's/^/# | /'
	return 1
}
trap 'tmux -L ovtest kill-server 2>/dev/null; tmux -L ovtest2 kill-server 2>/dev/null; chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT

t -f /dev/null new-session -d -s $S -x 80 -y 24 "TERM=xterm-256color LANG=C.UTF-8 '$ONNXVIEW' '$MODEL'; echo EXITED \$?; sleep 30"
check "opens at 80x24 with the title bar" wait_for "onnxview  $MODEL"
check "shows the model summary" wait_for "ir_version    8"
check "the status bar shows the keys" wait_for "q quit"
t send-keys -t $S G
check "G goes to the end (the last initializer)" wait_for "initializers 8"
t send-keys -t $S g
check "g goes back to the top" wait_for "file          $MODEL"
t send-keys -t $S / R e s i z e Enter
check "/Resize finds the Resize node" sh -c "tmux -L $SOCK capture-pane -p -t $S | sed -n 2p | grep -q 'Resize'"
t resize-window -t $S -x 120 -y 40 2>/dev/null || t resize-pane -t $S -x 120 -y 40
check "a resize to 120x40 redraws" wait_for "q quit"
check "the screen is 40 lines after the resize" [ "$(screen | wc -l)" -eq 40 ]
t send-keys -t $S q
check "q quits with status 0" wait_for "EXITED 0"
check "the terminal is restored (no alternate screen left)" sh -c "[ \"\$(tmux -L $SOCK display -p -t $S '#{alternate_on}')\" = 0 ]"

# A model that cannot be read: the TUI never starts, the message is on the terminal.
# (A second server: a new session on a server that is still shutting down can be lost.)
t kill-server 2>/dev/null
SOCK=ovtest2
printf 'junk' >"$TMP/bad.onnx"
t -f /dev/null new-session -d -s $S -x 80 -y 24 "'$ONNXVIEW' '$TMP/bad.onnx'; echo EXITED \$?; sleep 30"
check "an unreadable model: status 3" wait_for "EXITED 3"
check "... with the reason" wait_for "onnxview: $TMP/bad.onnx: "
done_testing

#!/bin/sh
# The TUI in a real terminal (tmux): it opens the bundled example, moves, opens panels, survives a resize, asks
# before dropping changes, and quits with the terminal restored. Every wait polls the screen; no fixed sleeps.
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
# wait_gone TEXT: poll until TEXT is no longer on the screen.
wait_gone() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -qF -- "$1" || return 0
		i=$((i + 1))
		sleep 0.05
	done
	screen | sed 's/^/# | /'
	return 1
}
trap 'tmux -L ovtest kill-server 2>/dev/null; tmux -L ovtest2 kill-server 2>/dev/null; tmux -L ovtest3 kill-server 2>/dev/null; chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT

t -f /dev/null new-session -d -s $S -x 80 -y 24 "TERM=xterm-256color LANG=C.UTF-8 '$ONNXVIEW' '$MODEL'; echo EXITED \$?; sleep 30"
check "opens at 80x24 with the title bar" wait_for "srcnn.onnx  graph"
check "draws the graph: the Resize box with its scales" wait_for "scales = [1, 1, 3, 3]"
check "the status bar shows the keys" wait_for "? help"
t send-keys -t $S j Enter
check "j then Enter opens the Resize node panel" wait_for "schema    Resize-13"
check "... with its inputs and their values" wait_for "scales   scales  float32[4]  initializer = [1, 1, 3, 3]"
t send-keys -t $S Escape
check "Esc goes back to the graph" wait_for "6 nodes"
t send-keys -t $S '?'
check "? shows the help generated from the key table" wait_for "cycle-port"
t send-keys -t $S q
# The mouse, as a terminal reports it (SGR encoding): a click on the conv1 box selects it, the wheel scrolls.
check "the TUI asks the terminal for mouse events" sh -c "[ \"\$(tmux -L $SOCK display -p -t $S '#{mouse_standard_flag}')\" = 1 ]"
row=$(screen | grep -n "x Conv  *#[0-9]* x\|│ Conv  *#[0-9]* │" | head -1 | cut -d: -f1)
t send-keys -t $S -l "$(printf '\033[<0;10;%sM' "$row")"
t send-keys -t $S -l "$(printf '\033[<0;10;%sm' "$row")"
check "a click on a box selects it" wait_for "▶x Conv"
t send-keys -t $S Enter
check "... and Enter opens that node" wait_for "#1 'conv1' Conv"
t send-keys -t $S Escape
check "... Esc comes back" wait_for "6 nodes"
t send-keys -t $S -l "$(printf '\033[<65;10;10M')"
check "the wheel scrolls the graph down" wait_gone "float32[1,1,16,16]"
t send-keys -t $S -l "$(printf '\033[<64;10;10M')"
check "... and up again" wait_for "float32[1,1,16,16]"
t resize-window -t $S -x 120 -y 40 2>/dev/null || t resize-pane -t $S -x 120 -y 40
check "a resize to 120x40 redraws" wait_for "6 nodes"
check "the screen is 40 lines after the resize" [ "$(screen | wc -l)" -eq 40 ]
t send-keys -t $S : 'set-dim input 0 batch' Enter
check "an edit through ':' marks the model modified" wait_for "[modified]"
t send-keys -t $S q
check "q with unsaved changes asks" wait_for "unsaved changes: quit anyway? (y/n)"
t send-keys -t $S n
check "... n keeps it running" wait_for "not quitting"
t send-keys -t $S q y
check "... q y quits with status 0" wait_for "EXITED 0"
check "the terminal is restored (no alternate screen left)" sh -c "[ \"\$(tmux -L $SOCK display -p -t $S '#{alternate_on}')\" = 0 ]"

# --no-mouse leaves the mouse to the terminal (its own selection keeps working).
t kill-server 2>/dev/null
SOCK=ovtest3
t -f /dev/null new-session -d -s $S -x 80 -y 24 "TERM=xterm-256color LANG=C.UTF-8 '$ONNXVIEW' --no-mouse '$MODEL'; sleep 30"
check "--no-mouse: opens" wait_for "6 nodes"
check "--no-mouse: no mouse events asked for" sh -c "[ \"\$(tmux -L $SOCK display -p -t $S '#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}')\" = 000 ]"

# A model that cannot be read: the TUI never starts, the message is on the terminal.
# (A second server: a new session on a server that is still shutting down can be lost.)
t kill-server 2>/dev/null
SOCK=ovtest2
printf 'junk' >"$TMP/bad.onnx"
t -f /dev/null new-session -d -s $S -x 80 -y 24 "'$ONNXVIEW' '$TMP/bad.onnx'; echo EXITED \$?; sleep 30"
check "an unreadable model: status 3" wait_for "EXITED 3"
check "... with the reason" wait_for "onnxview: $TMP/bad.onnx: "
done_testing

"""Runs a command on a pseudo-terminal of a given size, for test/harness/screen.ts.

usage: python3 pty-run.py COLUMNS ROWS STDOUT -- COMMAND [ARG...]

STDOUT is `terminal` (the command's stdout is the terminal too) or `fd3` (it is this script's
file descriptor 3, a pipe the test reads apart, as `nsed ask q > answer.md` on a terminal). The
command's stdin and stderr are always the terminal, which is its controlling terminal, so a
Ctrl-C typed on it (`\\x03`) is SIGINT as at a shell, and echoed as `^C`. What the command draws
is copied to this script's stdout byte for byte; what this script reads on stdin is typed on the
terminal. The exit status is the command's (128 + N when signal N ended it).

Python's own `pty` and `termios`: nothing to build, the same on every Node version.
"""

import errno
import fcntl
import os
import pty
import select
import struct
import sys
import termios


def main() -> int:
    columns, rows, stdout_to = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    if sys.argv[4] != "--" or stdout_to not in ("terminal", "fd3"):
        sys.stderr.write("usage: pty-run.py COLUMNS ROWS terminal|fd3 -- COMMAND [ARG...]\n")
        return 2
    command = sys.argv[5:]
    master, slave = pty.openpty()
    # The size a terminal window reports: set before the command starts, so its first look at
    # `columns` is the real one.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    # A person's terminal: Ctrl-C is SIGINT, and the line discipline echoes it as `^C` where the
    # cursor is (ECHO with ECHOCTL), as typed keys are echoed. Set here rather than left to the
    # platform's defaults for a new pty, so the screen tests see the echo a real terminal makes.
    attrs = termios.tcgetattr(slave)
    attrs[3] |= termios.ISIG | termios.ICANON | termios.ECHO | termios.ECHOCTL
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.dup2(slave, 0)
        os.dup2(3 if stdout_to == "fd3" else slave, 1)
        os.dup2(slave, 2)
        if slave > 2:
            os.close(slave)
        if stdout_to == "fd3":
            os.close(3)
        os.execvp(command[0], command)
    os.close(slave)
    if stdout_to == "fd3":
        os.close(3)
    typing = True
    while True:
        wanted = [master] + ([0] if typing else [])
        ready, _, _ = select.select(wanted, [], [])
        if 0 in ready:
            keys = os.read(0, 4096)
            typing = keys != b""
            while keys:
                keys = keys[os.write(master, keys):]
        if master in ready:
            try:
                drawn = os.read(master, 65536)
            except OSError as e:
                # EIO: every copy of the terminal's other end is closed, the command is gone.
                if e.errno != errno.EIO:
                    raise
                drawn = b""
            if not drawn:
                break
            while drawn:
                drawn = drawn[os.write(1, drawn):]
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())

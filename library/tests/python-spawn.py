"""Unmodified-program check: spawn through Python's own APIs.

Prints one line per case with what the child produced and how it ended.
The guest hook runs it with and without LD_PRELOAD=libpidfdspawn.so and
compares the outputs; PIDFDSPAWN_TRACE_FD shows which calls reached the
library and which backend served them.
"""
import os
import subprocess
import sys


def child_output(fd_read, pid):
    data = b""
    while True:
        chunk = os.read(fd_read, 4096)
        if not chunk:
            break
        data += chunk
    os.close(fd_read)
    _, status = os.waitpid(pid, 0)
    return data.decode().strip(), os.waitstatus_to_exitcode(status)


def posix_spawn_case(name, path, argv, spawnp=False, extra_actions=()):
    r, w = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_CLOSE, w)]
    actions += list(extra_actions)
    fn = os.posix_spawnp if spawnp else os.posix_spawn
    try:
        pid = fn(path, argv, {"PATH": "/usr/bin:/bin", "X": "y"},
                 file_actions=actions)
    except OSError as e:
        os.close(r)
        os.close(w)
        print(f"{name}: error {e.errno}")
        return
    os.close(w)
    out, code = child_output(r, pid)
    print(f"{name}: out={out!r} exit={code}")


def main():
    posix_spawn_case("posix_spawn-dup2-close", "/bin/sh",
                     ["sh", "-c", "echo hello $X; exit 3"])
    posix_spawn_case("posix_spawnp", "sh", ["sh", "-c", "echo found"],
                     spawnp=True)
    posix_spawn_case("posix_spawn-enoent", "/nonexistent/prog", ["x"])
    posix_spawn_case("posix_spawn-open", "/bin/cat", ["cat"],
                     extra_actions=[(os.POSIX_SPAWN_OPEN, 0, "/etc/hostname",
                                     os.O_RDONLY, 0)])
    for close_fds in (False, True):
        res = subprocess.run(["/bin/sh", "-c", "echo sub; exit 4"],
                             stdout=subprocess.PIPE, close_fds=close_fds)
        print(f"subprocess-close_fds={close_fds}: out={res.stdout!r} "
              f"exit={res.returncode}")
    sys.stdout.flush()


main()

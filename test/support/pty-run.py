# Runs a command on a pseudo-terminal for CLI tests: waits for a prompt text, types an
# answer (escape sequences such as \x7f for Backspace allowed), and prints everything the
# terminal showed. Usage: pty-run.py <prompt> <typed> <command> [args...]
import codecs, os, pty, sys, time

prompt, typed, command = sys.argv[1].encode(), codecs.decode(sys.argv[2], 'unicode_escape').encode(), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
shown, sent, deadline = b'', False, time.time() + 60
while time.time() < deadline:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
    if not sent and prompt in shown:
        os.write(fd, typed)
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode(errors='replace'))
sys.exit(os.waitstatus_to_exitcode(status))

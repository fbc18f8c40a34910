#!/usr/bin/env bash
# Runs one command of the grading script (tools/grading/) on a student's code:
# a build or one test case. Usage:
#
#   sandbox.sh MODE WORK CPU_S MEM_KB FSIZE_KB NPROC [--hide DIR]... [--show PATH]...
#              [--mask STUB DIR]... -- COMMAND [ARGS...]
#
# MODE is the containment level (sandbox.py probes which work here and says
# more about each):
#   bwrap    COMMAND is a bubblewrap command line that sandbox.py built (only
#            WORK and the system's read-only folders visible, no network, its
#            own PID namespace): this script only sets the limits and runs it.
#   unshare  new user, mount, network and PID namespaces (util-linux unshare):
#            every mount except WORK and /proc is made read-only and locked
#            there, so the command can write only under WORK; each --hide DIR
#            (sandbox.py: the submissions, OUT, this checkout, the run's other
#            build trees, /home, /root) is covered by an empty read-only
#            tmpfs, /tmp and /dev/shm by private ones, so that a submission
#            cannot read another's work or the answers (what is left readable:
#            the system's files its user may read); each --show PATH (the
#            toolchain, this script) inside a hidden folder is bound back
#            read-only, and WORK itself read-write; each --mask STUB DIR binds
#            the stub over DIR (a folder of WORK: visible.py's masks, as bwrap
#            has them); there is no network (only a loopback that is down);
#            and when the command ends or is killed, every process it started
#            dies with its PID namespace. The nested user namespace of the
#            last stage locks all of these mounts: the command, root there,
#            can neither unmount a cover nor make a read-only mount writable.
#   net      a new user and network namespace only: no network; files and
#            processes are as in `none` (--hide, --show and --mask ignored).
#   none     limits only (unshare is missing or namespaces are disabled here).
# In every mode: CPU seconds per process (ulimit -t), address space (-v, 0 =
# no limit: CUDA reserves far more address space than it uses), size of any
# file written (-f), open files (-n, NOFILE), and processes of this user (-u;
# the kernel does not enforce it for root, which is why sandbox.py runs this
# script as an unprivileged user when the grader is root). Wall-clock time is
# limited by sandbox.py, which kills the whole process group; memory with
# shared memory, and processes, per sandbox by a cgroup (limits.py) where
# this machine has one.
#
# This script's own programs come from the system's folders, never through
# the inherited PATH (environment.py says why); the command gets that PATH.
#
# See handouts/grading.md ("What the containment does not protect against").
set -u
NOFILE=4096
sys_tool() { PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v -- "$1"; }
# $BASH: this shell, by the absolute path sandbox.py started it with.
self_bash=$BASH

# The loopback interface of a new network namespace starts down: no network
# at all, not even to this machine. MPI (lab 12: mpirun and its ranks talk
# over loopback sockets) and NCCL's bootstrap need it; bubblewrap brings it
# up itself. Root of the namespace may; `ip` where installed, else the ioctl.
loopback_up() {
  ip=$(sys_tool ip) && "$ip" link set lo up 2>/dev/null && return
  "$(sys_tool python3)" -c 'import fcntl, socket, struct
fcntl.ioctl(socket.socket(), 0x8914, struct.pack("16sH14s", b"lo", 0x1 | 0x8 | 0x40, b""))' 2>/dev/null ||
    echo "sandbox: cannot bring up the loopback interface (MPI programs will not start)" >&2
}

if [ "${1:-}" = --lo-up ]; then  # (net mode) in the new network namespace, as its root
  shift
  loopback_up
  exec "$self_bash" "$0" "$@"
fi

# Covers a folder with an empty tmpfs (read-write until seal_covers; private
# ones - /tmp, /dev/shm - stay writable, 64 MiB like bwrap's).
cover() {  # DIR private|sealed
  [ -d "$1" ] || return 0  # gone already: under a folder covered before it
  if [ "$2" = private ]; then "$mount" -t tmpfs -o size=64m,mode=1777,nosuid,nodev mmlab-private "$1"
  else "$mount" -t tmpfs -o size=1m,mode=755,nosuid,nodev mmlab-hidden "$1"; fi ||
    { echo "sandbox: cannot hide $1 (mount tmpfs failed)" >&2; exit 125; }
  [ "$2" = private ] || sealed+=("$1")
}
# Binds back a folder or file that a cover hid, through a descriptor opened
# on it before (/proc/self/fd/N still names the hidden original; mount -c
# keeps it from being turned back into the path, which now names the cover).
restore() {  # FD PATH rw|ro
  [ "$2" -ef "/proc/self/fd/$1" ] && return 0  # not hidden: nothing to do
  if [ -d "/proc/self/fd/$1" ]; then mkdir -p -- "$2"; else mkdir -p -- "${2%/*}" && : > "$2"; fi 2>/dev/null &&
    "$mount" -c --rbind "/proc/self/fd/$1" "$2" ||
    { echo "sandbox: cannot show $2 again inside the hidden folders" >&2; exit 125; }
  [ "$3" = ro ] && { "$mount" -o remount,bind,ro "$2" 2>/dev/null || true; }
  return 0
}

if [ "${1:-}" = --inside ]; then
  # Stage 2 (unshare mode), PID 1 of the new namespaces: make everything but WORK
  # read-only, apply the masks, hide what the command must not read, then enter a
  # nested user+mount namespace, in which all of this is locked (a process there
  # cannot remount a mount writable or take a cover away).
  shift
  work=$1; shift
  hide=() show=() masks=() sealed=()
  while [ "${1:-}" != -- ]; do
    case "$1" in
      --hide) hide+=("$2"); shift 2 ;;
      --show) show+=("$2"); shift 2 ;;
      --mask) masks+=("$2" "$3"); shift 3 ;;
      *) echo "sandbox: unknown option '$1'" >&2; exit 125 ;;
    esac
  done
  shift
  loopback_up
  mount=$(sys_tool mount)
  "$mount" --bind "$work" "$work" || { echo "sandbox: cannot bind $work" >&2; exit 125; }
  while read -r _ _ _ _ point _; do
    point=$(printf '%b' "${point//\\/\\\\0}")  # mountinfo escapes spaces as \040
    case "$point" in "$work"|/proc|/proc/*) continue ;; esac
    "$mount" -o remount,bind,ro "$point" 2>/dev/null || true
  done < /proc/self/mountinfo
  for ((i = 0; i < ${#masks[@]}; i += 2)); do
    [ -d "${masks[i+1]}" ] || continue
    { "$mount" --bind "${masks[i]}" "${masks[i+1]}" && "$mount" -o remount,bind,ro "${masks[i+1]}"; } ||
      { echo "sandbox: cannot mask ${masks[i+1]}" >&2; exit 125; }
  done
  # Descriptors on what must stay visible, taken before the covers hide it:
  # WORK (with its masks), this script (the last stage runs it) and --show.
  exec {work_fd}<"$work" {self_fd}<"$0" || exit 125
  show_fds=()
  for p in "${show[@]}"; do
    exec {fd}<"$p" || { echo "sandbox: cannot open $p" >&2; exit 125; }
    show_fds+=("$fd")
  done
  cover /tmp private
  cover /dev/shm private
  for d in "${hide[@]}"; do cover "$d" sealed; done
  restore "$work_fd" "$work" rw
  restore "$self_fd" "$0" ro
  for ((i = 0; i < ${#show[@]}; i++)); do restore "${show_fds[i]}" "${show[i]}" ro; done
  for d in "${sealed[@]}"; do "$mount" -o remount,bind,ro "$d" 2>/dev/null || true; done
  exec {work_fd}<&- {self_fd}<&-
  for fd in "${show_fds[@]}"; do exec {fd}<&-; done
  # The working directory was entered before these mounts: enter it again,
  # through the new (writable) mount of WORK.
  cd -- "$PWD" 2>/dev/null || cd -- "$work" || exit 125
  exec "$(sys_tool unshare)" --user --map-root-user --mount "$self_bash" "$0" --run "$@"
fi

set_limits() {  # CPU_S MEM_KB FSIZE_KB NPROC
  ulimit -t "$1" -f "$3" 2>/dev/null || { echo "sandbox: cannot set limits" >&2; exit 125; }
  [ "$2" != 0 ] && ulimit -v "$2"
  ulimit -u "$4" 2>/dev/null || true
  local n; n=$(ulimit -Hn)  # NOFILE, or less where the hard limit is lower
  { [ "$n" = unlimited ] || [ "$n" -gt "$NOFILE" ]; } && n=$NOFILE
  ulimit -n "$n" 2>/dev/null || { echo "sandbox: cannot limit open files to $n" >&2; exit 125; }
  ulimit -c 0
}

if [ "${1:-}" = --run ]; then
  # Last stage: the limits, then the command as a child (so that it is not
  # PID 1, which the kernel treats specially), and its exit status.
  shift
  set_limits "$1" "$2" "$3" "$4"
  shift 4
  [ "${1:-}" = -- ] && shift
  # In the background and waited for, so that bash prints no job-status line
  # ("Segmentation fault ...") into the student's output.
  "$@" &
  wait $! 2>/dev/null
  exit $?
fi

mode=$1 work=$2 cpu=$3 mem=$4 fsize=$5 nproc=$6
shift 6
# What the unshare mode hides, shows again and masks (above), up to the `--`.
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case "$1" in
    --hide|--show) [ $# -ge 2 ] || break; opts+=("$1" "$2"); shift 2 ;;
    --mask) [ $# -ge 3 ] || break; opts+=("$1" "$2" "$3"); shift 3 ;;
    *) echo "sandbox: unknown option '$1' (--hide, --show, --mask, then --)" >&2; exit 125 ;;
  esac
done
[ "${1:-}" = -- ] && shift
# Started by a trusted program from its own folder (the checker starts in /):
# below bwrap (which has --chdir), the command runs in its tree.
case "$PWD/" in "$work"/*) ;; *) cd -- "$work" || exit 125 ;; esac
unshare=$(sys_tool unshare)
case "$mode" in
  # bubblewrap runs the command as PID 2 under a reaper of its own and
  # returns its exit status (128 + the signal when one ended it); the limits,
  # set here, pass through it to the command.
  bwrap) set_limits "$cpu" "$mem" "$fsize" "$nproc"; exec "$@" ;;
  unshare) exec "$unshare" --user --map-root-user --mount --net --pid --fork --kill-child --mount-proc \
          "$self_bash" "$0" --inside "$work" "${opts[@]}" -- "$cpu" "$mem" "$fsize" "$nproc" -- "$@" ;;
  net)  exec "$unshare" --user --map-root-user --net "$self_bash" "$0" --lo-up --run "$cpu" "$mem" "$fsize" "$nproc" -- "$@" ;;
  none) exec "$self_bash" "$0" --run "$cpu" "$mem" "$fsize" "$nproc" -- "$@" ;;
  *) echo "sandbox: unknown mode '$mode' (bwrap, unshare, net or none)" >&2; exit 125 ;;
esac

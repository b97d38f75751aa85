#!/usr/bin/env bash
# A real Slurm cluster on loopback for the live-mode tests (issue 16; the
# sweep tests reuse it): munged, MariaDB, slurmdbd, slurmctld and several
# slurmd (MULTIPLE_SLURMD: `slurmd -N name`) in one folder, as the current
# user, every port on 127.0.0.1 and chosen free at start. GPUs are GRES whose
# File= are plain files. Nothing outside DIR is written.
#
#   slurm_cluster.sh start DIR     start everything, wait until every node is
#                                  idle; writes DIR/env (SLURM_CONF=...)
#   slurm_cluster.sh stop DIR      cancel jobs, stop every daemon (never fails)
#   slurm_cluster.sh stop-ctld DIR / start-ctld DIR   restart slurmctld alone
#   slurm_cluster.sh check         exit 0 when the packages are installed,
#                                  else print one line saying what is missing
#                                  and exit 77
#
# Shape (env): SLURM_TEST_A100 (nodes a1.., 16 CPUs, 64000 MiB, 4 x a100;
# default 2), SLURM_TEST_V100 (nodes b1.., 8 CPUs, 32000 MiB, 4 x v100;
# default 3), SLURM_TEST_MAX_ARRAY (MaxArraySize, default 1001),
# SLURM_TEST_PARTITIONS (comma-separated partitions over all nodes, the
# first the default; default "gpu"), SLURM_TEST_REST=1 (also slurmrestd
# with JWT auth on a free port: DIR/env gets SLURMRESTD_URL and DIR/etc/jwt
# holds a token for the current user; needs slurm-wlm-jwt-plugin).
# Logs are in DIR/log; `stop` leaves them for a failed test to print.
set -euo pipefail

cmd=${1:-}
D=${2:-}
A100=${SLURM_TEST_A100:-2}
V100=${SLURM_TEST_V100:-3}
MAX_ARRAY=${SLURM_TEST_MAX_ARRAY:-1001}
PARTITIONS=${SLURM_TEST_PARTITIONS:-gpu}
REST=${SLURM_TEST_REST:-0}
ME=$(id -un)

need=(munged mariadbd mariadb-install-db mariadb slurmdbd slurmctld slurmd sbatch sacct squeue
      sinfo scontrol sacctmgr)
check() {
  local missing=()
  for b in "${need[@]}"; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || missing+=("$b")
  done
  if [ "$REST" = 1 ]; then
    command -v slurmrestd >/dev/null 2>&1 || [ -x /usr/sbin/slurmrestd ] || missing+=(slurmrestd)
    compgen -G "/usr/lib/*/slurm-wlm/auth_jwt.so" >/dev/null || missing+=(slurm-wlm-jwt-plugin)
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "slurm test cluster skipped: not installed: ${missing[*]} (tools/install-deps.sh test)"
    return 77
  fi
}
export PATH="$PATH:/usr/sbin"

# N free TCP ports on 127.0.0.1 (bound and released at once: a race with
# other programs is possible but unlikely; start fails loudly if it happens).
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

wait_for() {  # seconds description command...
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $end ]; then
      echo "slurm_cluster: timed out after ${secs}s waiting for $what" >&2
      return 1
    fi
    sleep 0.2
  done
}

nodes() {
  local i
  for ((i = 1; i <= A100; i++)); do echo "a$i"; done
  for ((i = 1; i <= V100; i++)); do echo "b$i"; done
}

write_configs() {
  local ports=($1)
  local db=${ports[0]} dbd=${ports[1]} ctld=${ports[2]}
  local first_d=${ports[3]}
  echo "$db $dbd $ctld" > "$D/run/ports"
  cat > "$D/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$D/run/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd
SlurmUser=$ME
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db
StorageUser=slurm
StoragePass=utilsim-test
StorageLoc=slurm_acct_db
PidFile=$D/run/slurmdbd.pid
LogFile=$D/log/slurmdbd.log
DebugLevel=info
EOF
  chmod 600 "$D/etc/slurmdbd.conf"
  {
    cat <<EOF
# Written by tests/live/slurm/slurm_cluster.sh: a test cluster on loopback.
ClusterName=utest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld
SlurmUser=$ME
SlurmdUser=$ME
AuthType=auth/munge
AuthInfo=socket=$D/run/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
# The nodes claim more CPUs and memory than this machine has.
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=200000
MessageTimeout=5
SlurmctldTimeout=30
SlurmdTimeout=60
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd
# slurmctld's connection to slurmdbd authenticates through this munged.
AccountingStoragePass=$D/run/munge.sock
AccountingStorageTRES=gres/gpu,gres/gpu:a100,gres/gpu:v100
JobCompType=jobcomp/none
MaxArraySize=$MAX_ARRAY
EOF
    if [ "$REST" = 1 ]; then
      echo "AuthAltTypes=auth/jwt"
      echo "AuthAltParameters=jwt_key=$D/etc/jwt_hs256.key"
    fi
    local port=$first_d
    if [ "$A100" -gt 0 ]; then
      echo "NodeName=a[1-$A100] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port-$((port + A100 - 1)) CPUs=16 Sockets=1 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=64000 Gres=gpu:a100:4 Feature=a100"
      port=$((port + A100))
    fi
    if [ "$V100" -gt 0 ]; then
      echo "NodeName=b[1-$V100] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$port-$((port + V100 - 1)) CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=32000 Gres=gpu:v100:4 Feature=v100"
    fi
    local p default=YES
    for p in ${PARTITIONS//,/ }; do
      echo "PartitionName=$p Nodes=ALL Default=$default MaxTime=INFINITE State=UP"
      default=NO
    done
  } > "$D/etc/slurm.conf"
  : > "$D/etc/gres.conf"
  local n
  for n in $(nodes); do
    mkdir -p "$D/spool/$n" "$D/dev/$n"
    for g in 0 1 2 3; do : > "$D/dev/$n/gpu$g"; done
    local type=a100
    [ "${n:0:1}" = b ] && type=v100
    echo "NodeName=$n Name=gpu Type=$type File=$D/dev/$n/gpu[0-3]" >> "$D/etc/gres.conf"
  done
  echo "SLURM_CONF=$D/etc/slurm.conf" > "$D/env"
}

start_ctld() {
  SLURM_CONF="$D/etc/slurm.conf" slurmctld -f "$D/etc/slurm.conf"
  wait_for 30 "slurmctld" env SLURM_CONF="$D/etc/slurm.conf" scontrol ping
}

# slurmrestd refuses to run as root or SlurmUser unless told the test knows
# (SLURMRESTD_SECURITY); SLURM_JWT=daemon makes it pass the users' tokens on.
start_rest() {
  local port
  port=$(free_ports 1)
  scontrol token lifespan=7200 > "$D/etc/jwt"
  (SLURM_JWT=daemon SLURMRESTD_SECURITY=disable_user_check setsid slurmrestd -a rest_auth/jwt \
     "127.0.0.1:$port" < /dev/null > "$D/log/slurmrestd.log" 2>&1 &
   echo $! > "$D/run/slurmrestd.pid")
  echo "SLURMRESTD_URL=http://127.0.0.1:$port" >> "$D/env"
  wait_for 30 "slurmrestd" bash -c "exec 3<>/dev/tcp/127.0.0.1/$port"
}

all_idle() {
  local out
  out=$(SLURM_CONF="$D/etc/slurm.conf" sinfo -h -N -o '%N %t' 2>/dev/null | sort -u) || return 1
  [ "$(echo "$out" | grep -c ' idle$')" -eq $((A100 + V100)) ]
}

start() {
  check
  [ -n "$D" ] || { echo "usage: $0 start DIR" >&2; exit 2; }
  if [ -e "$D/run/munged.pid" ]; then
    echo "slurm_cluster: $D holds a cluster already (stop it first)" >&2; exit 1
  fi
  mkdir -p "$D"/{db,state,spool,log,dev,etc,run}
  D=$(cd "$D" && pwd)
  local ports
  ports=$(free_ports $((3 + A100 + V100)))
  write_configs "$ports"
  local db=${ports%% *}
  export SLURM_CONF="$D/etc/slurm.conf"
  if [ "$REST" = 1 ]; then
    dd if=/dev/urandom bs=32 count=1 of="$D/etc/jwt_hs256.key" 2>/dev/null
    chmod 600 "$D/etc/jwt_hs256.key"
  fi

  dd if=/dev/urandom bs=1 count=1024 of="$D/etc/munge.key" 2>/dev/null
  chmod 400 "$D/etc/munge.key"
  munged --force --num-threads=10 --socket="$D/run/munge.sock" --key-file="$D/etc/munge.key" \
    --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" --seed-file="$D/run/munge.seed"

  mariadb-install-db --no-defaults --datadir="$D/db" --user="$ME" \
    --auth-root-authentication-method=normal --skip-test-db > "$D/log/mariadb-install.log" 2>&1
  # Started in the background, detached from this shell's stdout.
  (setsid mariadbd --no-defaults --datadir="$D/db" --socket="$D/run/mysql.sock" --port="$db" \
     --bind-address=127.0.0.1 --user="$ME" --pid-file="$D/run/mysqld.pid" \
     --log-error="$D/log/mysqld.log" --innodb-buffer-pool-size=64M \
     --innodb-lock-wait-timeout=900 < /dev/null > /dev/null 2>&1 &)
  wait_for 60 "MariaDB" mariadb --no-defaults -S "$D/run/mysql.sock" -u root -e "SELECT 1"
  mariadb --no-defaults -S "$D/run/mysql.sock" -u root -e \
    "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'utilsim-test';
     GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

  slurmdbd
  wait_for 30 "slurmdbd" sacctmgr -n list cluster
  sacctmgr -i add cluster utest > "$D/log/sacctmgr.log" 2>&1

  start_ctld
  local n
  for n in $(nodes); do slurmd -f "$D/etc/slurm.conf" -N "$n"; done
  wait_for 60 "all nodes idle" all_idle
  if [ "$REST" = 1 ]; then start_rest; fi
  echo "slurm_cluster: up in $D ($((A100 + V100)) nodes; SLURM_CONF=$D/etc/slurm.conf)"
}

stop_pid() {  # pidfile [seconds]
  local f=$1 secs=${2:-10} pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null) || return 0
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
  local end=$((SECONDS + secs))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
    # A zombie (no init to reap it here) counts as gone.
    [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
}

stop() {
  [ -n "$D" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
  [ -d "$D" ] || return 0
  D=$(cd "$D" && pwd)
  set +e
  if [ -f "$D/etc/slurm.conf" ] && [ -f "$D/run/slurmctld.pid" ]; then
    SLURM_CONF="$D/etc/slurm.conf" timeout 10 scancel --full --user="$ME" 2>/dev/null
  fi
  local f
  for f in "$D"/run/slurmd.*.pid; do stop_pid "$f" 5; done
  stop_pid "$D/run/slurmrestd.pid" 5
  stop_pid "$D/run/slurmctld.pid" 10
  # Job steps outlive slurmd; they run with their cwd in this cluster's log folder.
  local p
  for p in $(pgrep -x slurmstepd 2>/dev/null) $(pgrep -f slurm_script 2>/dev/null); do
    case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$D"/*) kill -9 "$p" 2>/dev/null ;; esac
    case "$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)" in *"$D"/*) kill -9 "$p" 2>/dev/null ;; esac
  done
  stop_pid "$D/run/slurmdbd.pid" 10
  stop_pid "$D/run/mysqld.pid" 30
  stop_pid "$D/run/munged.pid" 5
  set -e
  return 0
}

case "$cmd" in
  check) check ;;
  start) start ;;
  stop) stop ;;
  stop-ctld) D=$(cd "$D" && pwd); stop_pid "$D/run/slurmctld.pid" 10 ;;
  start-ctld) D=$(cd "$D" && pwd); start_ctld ;;
  *) echo "usage: $0 check | start DIR | stop DIR | stop-ctld DIR | start-ctld DIR" >&2; exit 2 ;;
esac

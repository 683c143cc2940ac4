#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the scale-out test (scripts/slurm_test.sh).
#   slurm_cluster.sh start DIR   installs Slurm and MUNGE from Debian's packages when they are
#                                missing, writes DIR/slurm.conf and starts munged, slurmctld
#                                and slurmd (their state and logs in DIR); prints nothing else.
#   slurm_cluster.sh stop DIR    stops the daemons it started (their pid files are in DIR).
# Clients reach the cluster with SLURM_CONF=DIR/slurm.conf. Needs root, as a CI machine has.
set -euo pipefail
cmd=${1:?usage: slurm_cluster.sh start|stop DIR}
dir=${2:?usage: slurm_cluster.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
  for d in slurmd slurmctld munged; do
    if [ -f "$dir/$d.pid" ]; then
      pid=$(cat "$dir/$d.pid")
      kill "$pid" 2>/dev/null || true
      # Wait for it to exit (up to 10 s): slurmctld writes its state as it stops, and a
      # folder removed meanwhile is not empty.
      for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      rm -f "$dir/$d.pid"
    fi
  done
}

install() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
    && command -v munged >/dev/null && command -v sbatch >/dev/null && return 0
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y slurm-wlm munge >/dev/null 2>&1 \
    || { apt-get update >/dev/null && apt-get install -y slurm-wlm munge >/dev/null; } \
    || { echo "slurm_cluster.sh: cannot install slurm-wlm and munge with apt-get" >&2; exit 1; }
}

start() {
  install
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  # MUNGE: a key of this cluster's own, a socket in DIR.
  if [ ! -f "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 600 "$dir/munge/munge.key"
  fi
  cat > "$dir/slurm.conf" <<CONF
ClusterName=vpsimci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
KillWait=5
SchedulerParameters=sched_interval=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  stop
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -c
  slurmd
  # The node is up when sinfo says it is idle.
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -q idle; then return 0; fi
    sleep 0.5
  done
  echo "slurm_cluster.sh: the node did not come up in 30 s; logs in $dir:" >&2
  tail -n 20 "$dir"/*.log >&2 || true
  exit 1
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: slurm_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac

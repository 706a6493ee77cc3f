#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine (Debian's slurm-wlm + munge, run as root), for
# tests/slurm.rs: `sbatch --array` jobs get SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT exactly
# as on a real cluster. Usage: .ci/slurm-local.sh [STATE_DIR]; prints nothing on success.
set -euo pipefail
S=${1:-/tmp/colony-slurm}
export DEBIAN_FRONTEND=noninteractive
command -v slurmctld >/dev/null || { apt-get update -qq && apt-get install -y -qq slurm-wlm munge >/dev/null; }
mkdir -p "$S"/{state,spool,log} /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/slurm
H=$(hostname)
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=colony
SlurmctldHost=$H
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldLogFile=$S/log/ctld.log
SlurmdLogFile=$S/log/d.log
SlurmctldPidFile=$S/ctld.pid
SlurmdPidFile=$S/d.pid
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$H CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
[ -f /etc/munge/munge.key ] || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
chown -R munge:munge /etc/munge /run/munge /var/log/munge /var/lib/munge
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged
pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -qE 'idle|mix|alloc' && exit 0; sleep 1; done
echo "slurm node did not come up; see $S/log" >&2; exit 1

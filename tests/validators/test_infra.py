"""Infrastructure: security controls turned off (CG-INFRA-001), administrator roles granted
(CG-INFRA-002), containers and pods given the host (CG-INFRA-003), deletions that keep no
backup (CG-INFRA-004)."""

from __future__ import annotations

import pytest
from vtables import ALLOW, CTX, DENY, decide

from clawgate.decision import Outcome
from clawgate.shell import parse_one
from clawgate.validators.backups import DeleteWithoutBackup
from clawgate.validators.base import Validator
from clawgate.validators.defenses import SecurityControlsOff
from clawgate.validators.grants import AdminGrant
from clawgate.validators.workloads import HostPowersWorkload

PASS = Outcome.PASSTHROUGH


def _check(validator: Validator, line: str) -> Outcome:
    return validator.check(parse_one(line), CTX).outcome


@pytest.mark.parametrize(("line", "expected"), [
    ("auditctl -D", DENY),
    ("auditctl -e 0", DENY),
    ("auditctl -e0", DENY),
    ("systemctl stop auditd", DENY),
    ("systemctl mask auditd.service", DENY),
    ("service auditd stop", DENY),
    ("/etc/init.d/auditd stop", DENY),
    ("setenforce 0", DENY),
    ("setenforce Permissive", DENY),
    ("aa-teardown", DENY),
    ("aa-complain /etc/apparmor.d/usr.sbin.nginx", DENY),
    ("systemctl disable --now crowdstrike-falcon-sensor", DENY),
    ("launchctl unload /Library/LaunchDaemons/com.crowdstrike.falcond.plist", DENY),
    ("killall falcon-sensor", DENY),
    ("kill -9 $(pgrep falcon-sensor)", DENY),
    ("kill -9 1234", PASS),
    ("kill $(cat server.pid)", PASS),
    ("systemctl stop wazuh-agent", DENY),
    ("systemctl stop rsyslog", DENY),
    ("kubectl delete daemonset falco -n falco", DENY),
    ("kubectl -n kube-system delete ds tetragon", DENY),
    ("helm uninstall gatekeeper --namespace gatekeeper-system", DENY),
    ("aws cloudtrail stop-logging --name main", DENY),
    ("aws cloudtrail delete-trail --name main", DENY),
    ("aws guardduty delete-detector --detector-id d", DENY),
    ("aws securityhub disable-security-hub", DENY),
    ("aws config stop-configuration-recorder --configuration-recorder-name default", DENY),
    ("aws ec2 delete-flow-logs --flow-log-ids fl-1", DENY),
    ("gcloud logging sinks delete audit-export", DENY),
    ("az monitor diagnostic-settings delete --name audit --resource r", DENY),
    ("auditctl -a never,task", DENY),
    ("auditctl -a exit,never -F arch=b64 -S all", DENY),
    ("sentinelctl control stop", DENY),
    ("mdatp config real-time-protection --value disabled", DENY),
    ("kubectl label ns default pod-security.kubernetes.io/enforce=privileged --overwrite", DENY),
    ("kubectl label ns prod pod-security.kubernetes.io/enforce-", DENY),
    # the kernel's own defenses switched off
    ("sysctl -w kernel.randomize_va_space=0", DENY),
    ("sysctl kernel/yama/ptrace_scope=0", DENY),
    ("sysctl -w fs.protected_symlinks=0 fs.suid_dumpable=2", DENY),
    ("echo 0 > /proc/sys/kernel/randomize_va_space", DENY),
    ("sysctl -w kernel.randomize_va_space=2", PASS),
    ("sysctl -w vm.swappiness=10", PASS),
    ("sysctl -n kernel.randomize_va_space", PASS),
    ("auditctl -a always,exit -F arch=b64 -S execve", PASS),
    ("mdatp health", PASS),
    ("kubectl label ns dev team=web", PASS),
    ("kubectl label ns dev pod-security.kubernetes.io/enforce=restricted", PASS),
    ("auditctl -l", PASS),
    ("auditctl -e 1", PASS),
    ("systemctl status auditd", PASS),
    ("systemctl restart nginx", PASS),
    ("systemctl stop postgresql", PASS),
    ("setenforce 1", PASS),
    ("kubectl delete pod web-1", PASS),
    ("kubectl get ds -n falco", PASS),
    ("aws cloudtrail describe-trails", PASS),
    ("gcloud logging sinks list", PASS),
    ("docker stop web", PASS),
])
def test_security_controls_off(line: str, expected: Outcome) -> None:
    assert _check(SecurityControlsOff(), line) is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("aws iam attach-user-policy --user-name bob --policy-arn "
     "arn:aws:iam::aws:policy/AdministratorAccess", DENY),
    ("aws iam attach-role-policy --role-name ci --policy-arn=arn:aws:iam::aws:policy/"
     "IAMFullAccess", DENY),
    ("aws iam put-user-policy --user-name bob --policy-name p --policy-document "
     "'{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}]}'", DENY),
    ("aws iam add-user-to-group --user-name bob --group-name Admins", DENY),
    ("gcloud projects add-iam-policy-binding p --member=user:x@example.com --role=roles/owner",
     DENY),
    ("gcloud organizations add-iam-policy-binding 1 --member=user:x@example.com "
     "--role roles/resourcemanager.organizationAdmin", DENY),
    ("az role assignment create --assignee bob --role Owner", DENY),
    ("gcloud iam service-accounts add-iam-policy-binding sa@p.iam.gserviceaccount.com "
     "--member=user:me@example.com --role=roles/iam.serviceAccountTokenCreator", DENY),
    ("az role assignment create --assignee bob --role 'User Access Administrator'", DENY),
    ("kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=me", DENY),
    ("kubectl create rolebinding x --clusterrole admin --user=me -n prod", DENY),
    ("kubectl apply -f - <<EOF\nkind: ClusterRoleBinding\nroleRef:\n  kind: ClusterRole\n"
     "  name: cluster-admin\nEOF", DENY),
    ("kubectl patch clusterrolebinding cluster-admin --type=json -p "
     "'[{\"op\":\"add\",\"path\":\"/subjects/-\",\"value\":{\"kind\":\"User\","
     "\"name\":\"me\"}}]'", DENY),
    ("aws iam create-policy-version --policy-arn arn:aws:iam::1:policy/ci --policy-document "
     "'{\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}]}' "
     "--set-as-default", DENY),
    ("usermod -aG sudo bob", DENY),
    ("usermod -a -G docker,video bob", DENY),
    ("gpasswd -a bob wheel", DENY),
    ("adduser bob sudo", DENY),
    ("aws iam attach-user-policy --user-name bob --policy-arn "
     "arn:aws:iam::aws:policy/ReadOnlyAccess", PASS),
    ("gcloud projects add-iam-policy-binding p --member=user:x@example.com "
     "--role=roles/viewer", PASS),
    ("az role assignment create --assignee bob --role Reader", PASS),
    ("kubectl create rolebinding x --clusterrole=view --user=me", PASS),
    ("kubectl apply -f - <<EOF\nkind: RoleBinding\nroleRef:\n  name: view\nEOF", PASS),
    ("kubectl patch clusterrolebinding ci-view -p '{\"subjects\":[]}'", PASS),
    ("az ad group member add --group \"Global Administrators\" --member-id 0000-1111", DENY),
    ("aws iam add-user-to-group --user-name bob --group-name platform-admins", DENY),
    ("az ad group member add --group Owners --member-id 0000-1111", DENY),
    ("az ad group member add --group frontend-devs --member-id 0000-1111", PASS),
    ("aws iam add-user-to-group --user-name bob --group-name readonly", PASS),
    ("aws iam add-user-to-group --user-name bob --group-name administration-readers", PASS),
    ("usermod -aG video bob", PASS),
    ("adduser bob", PASS),
    ("aws iam list-users", PASS),
])
def test_admin_grant(line: str, expected: Outcome) -> None:
    assert _check(AdminGrant(), line) is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("docker run --privileged -it ubuntu bash", DENY),
    ("docker run --rm -it --pid=host --privileged alpine nsenter -t 1 -m sh", DENY),
    ("docker run --pid host --cap-add SYS_ADMIN alpine ps", DENY),
    ("podman run --privileged alpine chroot /mnt", DENY),
    ("docker run --cap-add=ALL -ti debian", DENY),
    ("docker run --security-opt apparmor=unconfined --cap-add=SYS_ADMIN img", DENY),
    ("docker exec --privileged -it app bash", DENY),
    ("docker run -v /etc:/host/etc alpine true", DENY),
    ("docker run -v /proc:/host/proc img", DENY),
    ("docker run -v /root:/r:rw alpine ls /r", DENY),
    ("kubectl run x --image=alpine --overrides='{\"spec\":{\"hostPID\":true}}'", DENY),
    ("kubectl run x --image=alpine --overrides='{\"spec\":{\"containers\":[{\"name\":\"x\","
     "\"securityContext\":{\"privileged\":true}}]}}'", DENY),
    ("kubectl apply -f - <<EOF\nkind: Pod\nspec:\n  hostIPC: true\nEOF", DENY),
    ("kubectl create -f - <<EOF\nkind: Pod\nspec:\n  volumes:\n  - hostPath:\n"
     "      path: /etc\nEOF", DENY),
    ("kubectl debug node/worker-1 -it --image=ubuntu", DENY),
    ("docker run --rm --privileged multiarch/qemu-user-static --reset -p yes", PASS),
    ("kubectl debug pod/web-1 -it --image=busybox --target=web", PASS),
    ("docker run --privileged -d docker:dind", PASS),
    ("docker run --rm -v $PWD:/src img", PASS),
    ("docker run -v /etc/localtime:/etc/localtime:ro alpine date", PASS),
    ("docker run -v /etc:/host/etc:ro alpine cat /host/etc/os-release", PASS),
    ("docker run --rm -it alpine sh", PASS),
    ("docker run --net=host nginx", PASS),
    ("docker run -it --rm --cap-add=SYS_PTRACE --security-opt seccomp=unconfined img gdb ./a",
     PASS),  # the debugging recipe: confinement loosened, no host power
    ("kubectl apply -f - <<EOF\nkind: Pod\nspec:\n  containers:\n  - securityContext:\n"
     "      allowPrivilegeEscalation: true\nEOF", PASS),
    ("docker ps --all", PASS),
    ("kubectl run x --image=alpine --restart=Never -- echo hi", PASS),
    ("kubectl apply -f - <<EOF\nkind: Pod\nspec:\n  containers:\n  - name: x\nEOF", PASS),
])
def test_host_powers_workload(line: str, expected: Outcome) -> None:
    assert _check(HostPowersWorkload(), line) is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("aws rds delete-db-instance --db-instance-identifier app --skip-final-snapshot", DENY),
    ("aws rds delete-db-cluster --db-cluster-identifier c --skip-final-snapshot", DENY),
    ("aws rds delete-db-instance --db-instance-identifier app --final-db-snapshot-identifier "
     "last --delete-automated-backups", DENY),
    ("aws redshift delete-cluster --cluster-identifier c --skip-final-cluster-snapshot", DENY),
    ("aws secretsmanager delete-secret --secret-id s --force-delete-without-recovery", DENY),
    ("aws rds modify-db-instance --db-instance-identifier app --backup-retention-period 0",
     DENY),
    ("gcloud sql instances delete prod-db", DENY),
    ("gcloud --project p spanner instances delete inst --quiet", DENY),
    ("gcloud firestore databases delete --database=app", DENY),
    ("aws rds delete-db-instance --db-instance-identifier app --final-db-snapshot-identifier "
     "last", PASS),
    ("aws rds modify-db-instance --db-instance-identifier app --backup-retention-period 7",
     PASS),
    ("aws rds describe-db-snapshots", PASS),
    ("gcloud sql instances list", PASS),
    ("gcloud sql backups list --instance prod-db", PASS),
    ("gcloud compute instances delete vm-1", PASS),
])
def test_delete_without_backup(line: str, expected: Outcome) -> None:
    assert _check(DeleteWithoutBackup(), line) is expected


@pytest.mark.parametrize(("line", "expected"), [
    ("sudo systemctl stop auditd", DENY),
    ("timeout 5 setenforce 0", DENY),
    ("bash -c 'aws cloudtrail stop-logging --name main'", DENY),
    ("docker run --privileged -d docker:dind", Outcome.ASK),  # CG-WRAP-010 still asks
    ("aws rds delete-db-instance --db-instance-identifier app --final-db-snapshot-identifier "
     "last", Outcome.ASK),  # CG-NET-001 asks
    ("kubectl get pods -A", ALLOW),
    ("terraform plan -out tf.plan", ALLOW),
])
def test_through_the_engine(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules

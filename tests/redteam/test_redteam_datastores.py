"""Hidden-set-style table for data stores and infrastructure: wipes of databases, caches and
key-value stores judged by verb and target, frameworks' reset tasks, audit and detection turned
off, administrator roles granted, containers and pods given the host, deletions that keep no
backup, each with benign near-misses beside it that must stay ALLOW.

Every row is a command, the exact outcome it must come to, and one line of why. The lines are
data: they are only ever handed to ``Engine.check``.
"""

from __future__ import annotations

import pytest

from clawgate.decision import Outcome
from clawgate.engine import Engine

WORKSPACE = "/home/dev/project"
ENGINE = Engine()
ALLOW, ASK, DENY = Outcome.ALLOW, Outcome.ASK, Outcome.DENY

Case = tuple[str, Outcome, str]  # (command, expected outcome, why)

DATA: list[Case] = [
    ("redis-cli -h prod-cache.internal FLUSHALL", DENY, "production cache wiped"),
    ("redis-cli -u redis://cache.example.com:6379 flushdb", DENY, "remote cache wiped"),
    ("echo FLUSHALL | redis-cli -h prod-cache.internal", DENY, "the wipe piped in"),
    ("redis-cli FLUSHDB", ASK, "this machine's cache: asked"),
    ("psql -h db.prod.example -c 'DROP DATABASE app'", DENY, "production database dropped"),
    ('psql "postgresql://u@prod/app" -c "TRUNCATE users"', DENY, "production table emptied"),
    ("psql -d 'host=db.prod.example.com dbname=app' -c 'DROP TABLE x'", DENY,
     "the host inside a libpq connection string"),
    ("psql -h db.example.com -d app -c 'DELETE FROM users'", DENY,
     "unbounded delete on a remote host"),
    ("echo 'DROP DATABASE app' | psql -h db.prod.example", DENY, "the statement piped in"),
    ("psql -h db.prod.example <<< 'DROP TABLE orders'", DENY, "a here-string statement"),
    ("PGHOST=db.example.com psql -c 'DROP SCHEMA public CASCADE'", DENY,
     "the host given by PGHOST"),
    ("mysql -h prod-mysql.internal -e 'DROP TABLE t'", DENY, "production MySQL table dropped"),
    ("mysql -h x -e 'DROP TABLE t'", ASK, "a one-word service host: asked"),
    ("psql -c 'DROP DATABASE app_prod'", DENY, "the dropped database is production's"),
    ("psql -c 'DROP TABLE users'", ASK, "the local database: asked"),
    ("sqlite3 app.db 'DROP TABLE users'", ASK, "a workspace file: asked, not denied"),
    ("mongosh mongodb://prod/app --eval 'db.dropDatabase()'", DENY, "production Mongo dropped"),
    ("mongosh 'mongodb+srv://u@cluster0.abcd.mongodb.net/app' --eval "
     "'db.users.deleteMany({})'", DENY, "every document of an Atlas collection deleted"),
    ("mongo app --eval 'db.users.deleteMany({})'", ASK, "local collection emptied: asked"),
    ("mongosh --quiet --eval \"require('child_process').execSync('id')\"", ASK,
     "mongosh's script runs in Node"),
    ("mongo --quiet --eval 'runProgram(\"sh\", \"-c\", \"id\")'", ASK,
     "the legacy shell starts a program"),
    ("etcdctl --endpoints=https://etcd-prod.example.com:2379 del --prefix ''", DENY,
     "a production etcd emptied"),
    ("etcdctl del --prefix /", ASK, "the local etcd emptied: asked"),
    ("dropdb prod", DENY, "the production database dropped"),
    ("heroku pg:reset DATABASE_URL --confirm app", DENY, "a hosted database reset"),
    ("sqlcmd -S tcp:sql.prod.example.com,1433 -Q \"DROP DATABASE app\"", DENY,
     "SQL Server's transport prefix does not hide the host"),
    ("dropdb -h db.example.com app", DENY, "a remote database dropped"),
    ("cqlsh cassandra.prod.example.com -e 'DROP KEYSPACE app'", DENY,
     "a production keyspace dropped"),
    ("cqlsh -e 'DROP KEYSPACE x'", ASK, "a local keyspace dropped: asked"),
    ("influx delete --bucket b --start 1970-01-01T00:00:00Z --stop 2030-01-01T00:00:00Z "
     "--host https://influx.prod.example.com", DENY, "production time series deleted"),
    ("aws dynamodb delete-table --table-name users", DENY, "a cloud table deleted"),
    ("RAILS_ENV=production rails db:reset", DENY, "production database reset"),
    ("RAILS_ENV=production bundle exec rake db:drop DISABLE_DATABASE_ENVIRONMENT_CHECK=1", DENY,
     "the production guard switched off"),
    ("rails db:drop", ASK, "the development database dropped: asked"),
    ("python manage.py flush --noinput", ASK, "the development database emptied: asked"),
    ("python manage.py flush --noinput --settings=config.settings.production", DENY,
     "production settings"),
    ("php artisan migrate:fresh --env=production", DENY, "production database rebuilt"),
    ("php artisan db:wipe --force", DENY, "Laravel's --force is for production"),
    ("npx prisma migrate reset --force", ASK, "the configured database reset: asked"),
    ("DATABASE_URL=postgresql://admin@db.prod.example.com/app npx prisma migrate reset --force",
     DENY, "a production URL reset"),
    ("flyway -url=jdbc:postgresql://db.example.com/app clean", DENY,
     "every object of a remote schema dropped"),
    ("MIX_ENV=prod mix ecto.reset", DENY, "production Ecto reset"),
]

INFRA: list[Case] = [
    ("auditctl -D", DENY, "every audit rule deleted"),
    ("auditctl -e 0", DENY, "auditing disabled"),
    ("systemctl stop auditd", DENY, "the audit daemon stopped"),
    ("sudo service auditd stop", DENY, "the audit daemon stopped through service"),
    ("setenforce 0", DENY, "SELinux enforcement off"),
    ("aa-teardown", DENY, "AppArmor unloaded"),
    ("aws cloudtrail stop-logging --name main", DENY, "the account's audit trail stopped"),
    ("aws guardduty delete-detector --detector-id abc123", DENY, "threat detection deleted"),
    ("gcloud logging sinks delete audit-export", DENY, "audit log export deleted"),
    ("kubectl delete daemonset falco -n falco", DENY, "the cluster's detector removed"),
    ("helm uninstall falco -n falco", DENY, "the detector's release removed"),
    ("systemctl disable --now crowdstrike-falcon-sensor", DENY, "the EDR sensor disabled"),
    ("sudo systemctl stop falcon-sensor", DENY, "the EDR sensor stopped"),
    ("systemctl stop osqueryd", DENY, "osquery stopped"),
    ("pkill -9 osqueryd", DENY, "osquery killed"),
    ("sudo kill -9 $(pgrep falcon-sensor)", DENY, "the sensor killed by its process id"),
    ("sudo auditctl -a never,task", DENY, "every task excluded from auditing"),
    ("sudo /opt/sentinelone/bin/sentinelctl control stop", DENY, "the EDR's own off switch"),
    ("kubectl label ns default pod-security.kubernetes.io/enforce=privileged --overwrite", DENY,
     "pod security admission switched off"),
    ("kubectl patch clusterrolebinding cluster-admin --type=json -p '[{\"op\":\"add\","
     "\"path\":\"/subjects/-\",\"value\":{\"kind\":\"User\",\"name\":\"me\"}}]'", DENY,
     "a subject added to cluster-admin"),
    ("kubectl debug node/worker-1 -it --image=ubuntu", DENY, "a shell in the node's namespaces"),
    ("aws iam attach-user-policy --user-name bob --policy-arn "
     "arn:aws:iam::aws:policy/AdministratorAccess", DENY, "administrator policy attached"),
    ("gcloud projects add-iam-policy-binding proj --member=user:x@example.com "
     "--role=roles/owner", DENY, "project owner granted"),
    ("az role assignment create --assignee bob --role Owner --scope /subscriptions/x", DENY,
     "subscription owner granted"),
    ("kubectl create clusterrolebinding pwn --clusterrole=cluster-admin "
     "--serviceaccount=default:default", DENY, "cluster-admin to the default account"),
    ("sudo usermod -aG docker bob", DENY, "the docker group is root's equal"),
    ("docker run --privileged -it ubuntu bash", DENY, "a privileged container with a shell"),
    ("docker run --rm -it --pid=host --privileged alpine nsenter -t 1 -m -u -n -i sh", DENY,
     "into the host's namespaces"),
    ("docker run -v /:/host -it ubuntu", DENY, "the host's root mounted"),
    ("docker run -v /etc:/host/etc alpine sh -c 'echo x >> /host/etc/passwd'", DENY,
     "the host's /etc mounted writable"),
    ("kubectl run x --image=alpine --overrides='{\"spec\":{\"hostPID\":true,\"containers\":"
     "[{\"name\":\"x\",\"image\":\"alpine\",\"securityContext\":{\"privileged\":true}}]}}'",
     DENY, "a pod in the node's PID namespace"),
    ("kubectl apply -f - <<EOF\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n"
     "  containers:\n  - name: x\n    image: alpine\n    securityContext:\n"
     "      privileged: true\nEOF", DENY, "a privileged pod written on the line"),
    ("cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: Pod\nspec:\n  volumes:\n"
     "  - name: root\n    hostPath:\n      path: /\nEOF", DENY, "the node's root as a volume"),
    ("aws s3 rb s3://b --force", DENY, "a bucket and its contents deleted"),
    ("aws rds delete-db-instance --db-instance-identifier app --skip-final-snapshot", DENY,
     "a database deleted with no final snapshot"),
    ("aws rds modify-db-instance --db-instance-identifier app --backup-retention-period 0",
     DENY, "automated backups turned off"),
    ("gcloud sql instances delete prod-db", DENY, "Cloud SQL deletes the backups too"),
    ("terraform destroy -auto-approve", DENY, "everything destroyed unreviewed"),
    ("az group delete --name rg --yes", DENY, "a resource group deleted unreviewed"),
]

NEAR_MISSES: list[str] = [
    "redis-cli ping",
    "redis-cli -h prod-cache.internal get session:42",
    "redis-cli info memory",
    "psql -c 'select 1'",
    "psql -h db.prod.example -c 'SELECT count(*) FROM users'",
    "psql -h localhost -d app_test -c 'TRUNCATE users'",
    "echo 'select 1' | psql",
    "mysql -e 'SHOW TABLES'",
    "sqlite3 test.db 'DROP TABLE users'",
    "mongosh --eval 'db.users.find().limit(5)'",
    "mongosh --eval 'db.runCommand({ping: 1})'",
    "mongosh mongodb://localhost/app_test --eval 'db.dropDatabase()'",
    "etcdctl get --prefix /",
    "dropdb app_test",
    "rails db:migrate",
    "bin/rails db:create db:schema:load",
    "RAILS_ENV=test rails db:reset",
    "bundle exec rake db:test:prepare",
    "python manage.py migrate",
    "python manage.py makemigrations",
    "php artisan migrate",
    "php artisan migrate:fresh --env=testing",
    "npx prisma migrate dev",
    "npx prisma generate",
    "MIX_ENV=test mix ecto.reset",
    "auditctl -l",
    "systemctl status auditd",
    "getenforce",
    "aws cloudtrail describe-trails",
    "kubectl get pods",
    "kubectl get daemonset -n falco",
    "kubectl get clusterrolebindings -o wide",
    "aws iam list-attached-user-policies --user-name bob",
    "docker run --rm -v $PWD:/src img",
    "docker run --rm -v \"$PWD\":/src -w /src node:20 npm test",
    "docker run -v /etc/localtime:/etc/localtime:ro alpine date",
    "terraform plan",
    "aws s3 ls",
    "aws rds describe-db-snapshots",
]


@pytest.mark.parametrize(("line", "expected", "why"), DATA + INFRA, ids=lambda v: str(v)[:50])
def test_attack_comes_to_its_outcome(line: str, expected: Outcome, why: str) -> None:
    found = ENGINE.check(line, cwd=WORKSPACE)
    assert found.outcome is expected, (why, [r.rule_id for r in found.reasons])


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_miss_is_allowed(line: str) -> None:
    found = ENGINE.check(line, cwd=WORKSPACE)
    assert found.outcome is ALLOW, [(r.rule_id, r.message) for r in found.reasons]


def test_table_is_the_size_of_a_hidden_set() -> None:
    assert len(DATA + INFRA) + len(NEAR_MISSES) >= 60 and len(NEAR_MISSES) >= 30

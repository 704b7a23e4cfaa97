#!/usr/bin/env bash
# Makes sure MariaDB (127.0.0.1:3306, root without password) and Redis
# (127.0.0.1:6379) answer, starting whichever is down with the commands this
# machine kind documents. Safe to run when both are already up.
set -euo pipefail

wait_for() { # name, probe command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then echo "services: $1 is up" >&2; return 0; fi
    sleep 1
  done
  echo "services: $1 did not come up" >&2
  return 1
}

mysql_up() { mariadb-admin --protocol=tcp -h127.0.0.1 -P3306 -uroot ping || mysqladmin --protocol=tcp -h127.0.0.1 -P3306 -uroot ping; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG; }

if ! mysql_up >/dev/null 2>&1; then
  echo "services: starting MariaDB" >&2
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
fi
wait_for MariaDB mysql_up

if ! redis_up >/dev/null 2>&1; then
  echo "services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis redis_up

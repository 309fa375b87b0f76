#!/bin/sh
# PostgreSQL for N Somnium server instances (somnium-server@.service), on this machine:
# a role and a database named somnium, and the connection URL the instances read, kept in
# /etc/somnium-server/database-url (root's alone; systemd hands it to each instance as a
# credential). Run it once, as root, after `apt-get install postgresql`:
#
#   sudo sh packaging/server/postgresql-setup.sh
#
# Running it again keeps the role, the database and the URL file as they are. The server makes
# its tables itself at start-up (versioned migrations, run once however many instances start).
# For a database on another machine, make the role and database there and write its URL,
# postgresql://somnium:PASSWORD@HOST:5432/somnium, to the same file with mode 600.
#
# psql runs as the postgres user (SOMNIUM_PSQL_AS, default `runuser -u postgres --`) and
# honours PGHOST, PGPORT and PGUSER; the URL names PGHOST and PGPORT (default 127.0.0.1:5432).
# A PGHOST that is a path is the folder of the server's unix socket: the URL then names it as
# postgresql://somnium:PASSWORD@/somnium?host=/var/run/postgresql&port=5432, and the instances
# sign in with the password over that socket, which pg_hba.conf must allow (Debian's default
# `local all all peer` does not: add `local somnium somnium scram-sha-256` above it).
set -eu

URL_FILE=${SOMNIUM_DATABASE_URL_FILE:-/etc/somnium-server/database-url}
PSQL="${SOMNIUM_PSQL_AS-runuser -u postgres --} psql --dbname=postgres --no-psqlrc --quiet --set ON_ERROR_STOP=1"

if [ -s "$URL_FILE" ]; then
    echo "$URL_FILE exists: the role and database are taken as set up"
    exit 0
fi

# 32 random letters and digits: nothing in it needs escaping in SQL or in a URL.
PASSWORD=$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)

$PSQL <<SQL
DO \$\$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'somnium') THEN
        ALTER ROLE somnium WITH LOGIN PASSWORD '$PASSWORD';
    ELSE
        CREATE ROLE somnium WITH LOGIN PASSWORD '$PASSWORD';
    END IF;
END
\$\$;
SQL
if [ -z "$($PSQL -tA -c "SELECT 1 FROM pg_database WHERE datname = 'somnium'")" ]; then
    $PSQL -c "CREATE DATABASE somnium OWNER somnium"
fi

umask 077
mkdir -p "$(dirname "$URL_FILE")"
HOST=${PGHOST:-127.0.0.1}
PORT=${PGPORT:-5432}
# What a URL gives a meaning to, percent-encoded ("%" first).
encoded_host=$(printf '%s' "$HOST" | sed -e 's/%/%25/g' -e 's/ /%20/g' -e 's/#/%23/g' \
    -e 's/&/%26/g' -e 's/?/%3F/g' -e 's/=/%3D/g' -e 's/+/%2B/g' -e 's/@/%40/g')
case $HOST in
    /*) URL="postgresql://somnium:$PASSWORD@/somnium?host=$encoded_host&port=$PORT" ;;  # socket
    *:*) URL="postgresql://somnium:$PASSWORD@[$encoded_host]:$PORT/somnium" ;;  # IPv6 address
    *) URL="postgresql://somnium:$PASSWORD@$encoded_host:$PORT/somnium" ;;
esac
printf '%s\n' "$URL" > "$URL_FILE.new"
mv "$URL_FILE.new" "$URL_FILE"
echo "made the role and database somnium; its URL is in $URL_FILE"

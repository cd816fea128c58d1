#!/bin/sh
# Mahjong Ledger's PostgreSQL backups, as compose.yaml's `backup` service runs them: in the
# postgres image, so pg_dump and pg_restore are the server's own version. It connects with
# libpq's variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE). See docs/backups.md.
#
#   backup.sh               a copy now, then one every BACKUP_INTERVAL seconds (default 86400):
#                           BACKUP_DIR/mjledger-<UTC time>.dump (pg_dump --format=custom) and its
#                           SHA-256 beside it (.dump.sha256, as sha256sum writes it); the newest
#                           BACKUP_KEEP (default 14) kept; a failure is logged as FAILED (on
#                           stderr) and tried again at the next interval
#   backup.sh check         succeeds while the newest copy is younger than twice the interval
#   backup.sh restore FILE  FILE into the database PGDATABASE, which must hold no tables, in one
#                           transaction; FILE is checked first (its checksum, when beside it, and
#                           read whole), and a damaged one is refused (exit 2) with nothing written
set -u

dir=${BACKUP_DIR:-/backups}
interval=${BACKUP_INTERVAL:-86400}
keep=${BACKUP_KEEP:-14}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log() { echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) mjledger-backup: $*"; }
fail() { log "$*" >&2; }
# the one line of a pg tool's complaint that says why
why() { grep -m1 -i 'error\|fatal' "$1" || head -n1 "$1"; }

whole() {  # $1 names the setting, $2 is its value: a whole number of at least 1
    case $2 in
        '' | *[!0-9]*) fail "$1 must be a whole number of at least 1, not '$2'"; exit 2 ;;
    esac
    [ "$2" -ge 1 ] || { fail "$1 must be at least 1, not $2"; exit 2; }
}

prune() {  # dated names sort by time: all but the newest $keep go
    ls "$dir" | grep -E '^mjledger-[0-9]{8}T[0-9]{6}Z\.dump$' | sort -r | tail -n +"$((keep + 1))" |
        while read -r old; do
            rm -f "$dir/$old" "$dir/$old.sha256" && log "removed $old (the newest $keep are kept)"
        done
}

backup_once() {
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    name="mjledger-$stamp.dump"
    partial="$dir/.$name.partial"
    # written under another name, read back, then named: a copy with its name is whole
    if pg_dump --format=custom --file="$partial" 2>"$work/errors" &&
        pg_restore --list "$partial" >/dev/null 2>"$work/errors" && sync "$partial"; then
        sum=$(sha256sum <"$partial" | cut -d ' ' -f 1)
        mv "$partial" "$dir/$name"
        echo "$sum  $name" >"$dir/.$name.sha256.partial" &&
            mv "$dir/.$name.sha256.partial" "$dir/$name.sha256"
        log "wrote $name ($(wc -c <"$dir/$name") bytes, SHA-256 $sum)"
        prune
    else
        fail "FAILED: no copy at $stamp: $(why "$work/errors")"
        rm -f "$partial"
    fi
}

loop() {
    whole BACKUP_INTERVAL "$interval"
    whole BACKUP_KEEP "$keep"
    umask 077  # the copies hold every chat's books
    mkdir -p "$dir" || exit 1
    log "a copy of database ${PGDATABASE:-} every $interval s into $dir, the newest $keep kept"
    rm -f "$dir"/.mjledger-*.partial  # a copy cut short by a stop
    trap 'kill "$sleeper" 2>/dev/null; rm -f "$dir"/.mjledger-*.partial; exit 0' TERM INT
    sleeper=
    while :; do
        backup_once
        sleep "$interval" &
        sleeper=$!
        wait "$sleeper"
    done
}

check() {
    whole BACKUP_INTERVAL "$interval"
    minutes=$(((2 * interval + 59) / 60))
    [ -n "$(find "$dir" -maxdepth 1 -name 'mjledger-*.dump' -mmin "-$minutes" | head -n 1)" ]
}

restore() {
    file=$1
    [ -f "$file" ] || { fail "there is no file $file"; exit 2; }
    if [ -f "$file.sha256" ] &&
        [ "$(sha256sum <"$file" | cut -d ' ' -f 1)" != "$(cut -d ' ' -f 1 "$file.sha256")" ]; then
        fail "$file is damaged, nothing was restored: it does not match its checksum in $file.sha256"
        exit 2
    fi
    if ! pg_restore --list "$file" >"$work/list" 2>"$work/errors" ||
        ! pg_restore --file=/dev/null "$file" 2>"$work/errors"; then
        fail "$file is damaged, nothing was restored: $(why "$work/errors")"
        exit 2
    fi
    if ! grep -q '^[0-9]*; [0-9]* [0-9]* TABLE public alembic_version ' "$work/list"; then
        fail "$file is not a Mahjong Ledger backup of schema public, nothing was restored"
        exit 2
    fi
    if ! tables=$(psql -XAt -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'" \
        2>"$work/errors"); then
        fail "cannot reach the database: $(why "$work/errors")"
        exit 1
    fi
    if [ "$tables" != 0 ]; then
        fail "database ${PGDATABASE:-} already holds $tables tables: restore only into an empty one"
        exit 2
    fi
    if ! pg_restore --single-transaction --exit-on-error --no-owner --no-privileges \
        --schema=public --dbname="${PGDATABASE:?set PGDATABASE}" "$file" 2>"$work/errors"; then
        fail "pg_restore failed, nothing was restored: $(why "$work/errors")"
        exit 1
    fi
    log "restored $file into ${PGDATABASE}; the bot brings its schema up to date when it starts"
}

case ${1:-loop} in
    loop) loop ;;
    check) check ;;
    restore)
        [ $# -eq 2 ] || { fail "usage: backup.sh restore FILE"; exit 2; }
        restore "$2"
        ;;
    *) fail "usage: backup.sh [loop | check | restore FILE]"; exit 2 ;;
esac
